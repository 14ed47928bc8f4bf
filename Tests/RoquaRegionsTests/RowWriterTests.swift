import Foundation
import GRDB
import Testing

@testable import RoquaRegions

/// The row writer binds what GRDB's arguments bind, with the same SQLite types, and refuses a row
/// whose values are not one per placeholder before anything is written.
@Suite struct RowWriterTests {
    static let columns = "i, r, t, b"

    /// An in-memory table of untyped columns, so a value keeps the type it was bound with.
    func table() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { try $0.execute(sql: "CREATE TABLE t (\(Self.columns))") }
        return queue
    }

    /// Every row of `queue`'s table as text: each value's type and value.
    func dump(_ queue: DatabaseQueue) throws -> [String] {
        try queue.read {
            try String.fetchAll(
                $0,
                sql:
                    "SELECT typeof(i) || quote(i) || typeof(r) || quote(r) || typeof(t) || quote(t) || typeof(b) || quote(b) FROM t ORDER BY rowid"
            )
        }
    }

    @Test func writesWhatGRDBArgumentsWrite() throws {
        let rows: [(Int64?, Double?, String?, [UInt8])] = [
            (1, 0.5, "Kadıköy", [0, 1, 255]), (nil, nil, nil, []), (-9_007_199_254_740_993, -0.0, "", [7]),
            (Int64.max, 1e300, "a\u{301}b", Array(repeating: 42, count: 70_000)), (0, 41.0, "東京", [0]),
        ]
        let ours = try table(), theirs = try table()
        try ours.write { db in
            let writer = try RowWriter(db, sql: "INSERT INTO t (\(Self.columns)) VALUES (?, ?, ?, ?)")
            for row in rows {
                try writer.write { values in
                    values.add(row.0)
                    values.add(row.1)
                    values.add(row.2)
                    values.add(row.3)
                }
            }
        }
        try theirs.write { db in
            for row in rows {
                try db.execute(sql: "INSERT INTO t (\(Self.columns)) VALUES (?, ?, ?, ?)", arguments: [row.0, row.1, row.2, Data(row.3)])
            }
        }
        #expect(try dump(ours) == dump(theirs))
        #expect(try dump(ours).count == rows.count)
    }

    /// A row with one value too few would keep the row before's last value; one too many has no
    /// place. Both are refused and write nothing; the writer goes on with whole rows.
    @Test func aRowWithTooFewOrTooManyValuesIsRefused() throws {
        let queue = try table()
        try queue.write { db in
            let writer = try RowWriter(db, sql: "INSERT INTO t (\(Self.columns)) VALUES (?, ?, ?, ?)")
            func row(_ count: Int) throws {
                try writer.write { values in
                    for k in 0..<count { values.add(Int64(k)) }
                }
            }
            try row(4)
            #expect(throws: DatabaseError.self) { try row(3) }
            #expect(throws: DatabaseError.self) { try row(5) }
            try row(4)
        }
        #expect(try dump(queue) == Array(repeating: "integer0integer1integer2integer3", count: 2))
    }

    /// The writer steps the statement itself: a row SQLite refuses (here a duplicate key, and a
    /// write to a read-only store) is an error with SQLite's own words, nothing of it is written,
    /// and the writer goes on with the next row.
    @Test func aRowSQLiteRefusesIsAnErrorAndTheWriterGoesOn() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE u (k INTEGER PRIMARY KEY, v TEXT NOT NULL)")
            let writer = try RowWriter(db, sql: "INSERT INTO u (k, v) VALUES (?, ?)")
            func row(_ k: Int64, _ v: String?) throws {
                try writer.write { values in
                    values.add(k)
                    values.add(v)
                }
            }
            try row(1, "a")
            let duplicate = #expect(throws: DatabaseError.self) { try row(1, "b") }
            #expect(duplicate?.resultCode == .SQLITE_CONSTRAINT)
            #expect(duplicate?.message?.contains("UNIQUE constraint failed: u.k") == true)
            let null = #expect(throws: DatabaseError.self) { try row(2, nil) }
            #expect(null?.message?.contains("NOT NULL constraint failed: u.v") == true)
            try row(3, "c")
        }
        #expect(try queue.read { try String.fetchAll($0, sql: "SELECT k || v FROM u ORDER BY k") } == ["1a", "3c"])

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rowwriter-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("s.sqlite").path
        try DatabaseQueue(path: path).write { try $0.execute(sql: "CREATE TABLE u (k INTEGER PRIMARY KEY, v TEXT)") }
        var readOnly = Configuration()
        readOnly.readonly = true
        let refused = #expect(throws: DatabaseError.self) {
            try DatabaseQueue(path: path, configuration: readOnly).inDatabase { db in
                try RowWriter(db, sql: "INSERT INTO u (k, v) VALUES (?, ?)").write { values in
                    values.add(Int64(1))
                    values.add("a")
                }
            }
        }
        #expect(refused?.resultCode == .SQLITE_READONLY)
        #expect(try DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM u") } == 0)
    }
}
