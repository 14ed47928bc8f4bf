import Foundation
import GRDB
import RoquaIO

/// The kept fixes in the region store: blocks of up to `FixBlock.capacity` fixes of one source
/// (a file's name, or `live/DEVICE (APP)`), each in time order, indexed by the time span it
/// covers. Every query of the history and every re-derivation reads them from here.
package enum FixHistory {
    /// The tables, created by the store's migration `RegionSchema.history`.
    static func createTables(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE fix_sources (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE,
                    fixes INTEGER NOT NULL DEFAULT 0,
                    first_ms INTEGER,
                    last_ms INTEGER,
                    -- Live sources: every fix at or before this time has been derived; later ones
                    -- wait for the next post to settle them (a fast fix needs the one after it).
                    decided_ms INTEGER
                );
                CREATE TABLE fix_blocks (
                    id INTEGER PRIMARY KEY,
                    source INTEGER NOT NULL REFERENCES fix_sources(id),
                    start_ms INTEGER NOT NULL,
                    end_ms INTEGER NOT NULL,
                    count INTEGER NOT NULL,
                    data BLOB NOT NULL
                );
                CREATE INDEX fix_blocks_span ON fix_blocks(start_ms, end_ms);
                CREATE INDEX fix_blocks_source ON fix_blocks(source, start_ms);
                CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
                ALTER TABLE imports ADD COLUMN fixes_kept INTEGER;
                """)
    }

    /// One stored block's place and span.
    struct BlockRow {
        var id: Int64
        var source: Int64
        var start: Int64
        var end: Int64
    }

    /// The id of source `name`, made when missing.
    static func sourceID(_ name: String, _ db: Database) throws -> Int64 {
        if let id = try Int64.fetchOne(db, sql: "SELECT id FROM fix_sources WHERE name = ?", arguments: [name]) { return id }
        try db.execute(sql: "INSERT INTO fix_sources (name) VALUES (?)", arguments: [name])
        return db.lastInsertedRowID
    }

    /// Writes `fixes` (in time order, at most `FixBlock.capacity`) as one block of `source`;
    /// `encoded` is their `FixBlock.encode`, when made already.
    static func insertBlock(_ fixes: ArraySlice<KeptFix>, source: Int64, encoded: [UInt8]? = nil, _ db: Database) throws -> Int64 {
        guard let first = fixes.first, let last = fixes.last else { return 0 }
        try db.execute(
            sql: "INSERT INTO fix_blocks (source, start_ms, end_ms, count, data) VALUES (?, ?, ?, ?, ?)",
            arguments: [source, first.time, last.time, fixes.count, Data(encoded ?? FixBlock.encode(fixes))])
        let id = db.lastInsertedRowID
        try db.execute(
            sql: """
                UPDATE fix_sources SET fixes = fixes + :count, first_ms = MIN(COALESCE(first_ms, :first), :first),
                                       last_ms = MAX(COALESCE(last_ms, :last), :last)
                WHERE id = :source
                """, arguments: ["count": fixes.count, "first": first.time, "last": last.time, "source": source])
        return id
    }

    /// The blocks whose span meets `[from, through]` (milliseconds, both included), oldest first.
    /// `longest`: no block spans more (bounds the index range scanned).
    /// `tracksOnly`: leave out the blocks of photos.
    static func blocks(from: Int64, through: Int64, longest: Int64, tracksOnly: Bool = false, _ db: Database) throws -> [BlockRow] {
        let photos = tracksOnly ? "AND source NOT IN (SELECT id FROM fix_sources WHERE photo = 1)" : ""
        return try Row.fetchAll(
            db,
            sql: """
                SELECT id, source, start_ms, end_ms FROM fix_blocks
                WHERE start_ms BETWEEN ? AND ? AND end_ms >= ? \(photos) ORDER BY start_ms, id
                """, arguments: [from &- longest, through, from]
        ).map {
            BlockRow(id: $0[0], source: $0[1], start: $0[2], end: $0[3])
        }
    }

    /// The longest span of a stored block, milliseconds.
    static func longestSpan(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT MAX(end_ms - start_ms) FROM fix_blocks") ?? 0
    }

    /// A block's fixes.
    /// - Throws: `FixBlock.Damaged` for bytes that are not a block.
    static func fixes(ofBlock id: Int64, _ db: Database) throws -> [KeptFix] {
        guard let data = try Data.fetchOne(db, sql: "SELECT data FROM fix_blocks WHERE id = ?", arguments: [id]) else { return [] }
        return try FixBlock.decode(Array(data))
    }

    /// Where a live source goes on: the last fix its posts settled (`decided_ms`), and the fixes
    /// kept after it, not settled yet; nil for a source never settled.
    static func continuation(of name: String, _ db: Database) throws -> (settled: KeptFix, waiting: [KeptFix])? {
        guard let row = try Row.fetchOne(db, sql: "SELECT id, decided_ms, last_ms FROM fix_sources WHERE name = ?", arguments: [name]),
            let decided = row["decided_ms"] as Int64?, let last = row["last_ms"] as Int64?
        else { return nil }
        let source: Int64 = row["id"]
        var fixes: [KeptFix] = []
        for block in try blocks(from: decided, through: last, longest: try longestSpan(db), db) where block.source == source {
            fixes += try self.fixes(ofBlock: block.id, db).filter { $0.time >= decided }
        }
        fixes = fixes.inTimeOrder()
        guard let settled = fixes.last(where: { $0.time == decided }) else { return nil }
        return (settled, fixes.filter { $0.time > decided })
    }

    /// Notes that a live source's fixes up to `time` are settled.
    static func settled(_ name: String, until time: Int64, _ db: Database) throws {
        try db.execute(
            sql: "UPDATE fix_sources SET decided_ms = MAX(COALESCE(decided_ms, ?1), ?1) WHERE name = ?2", arguments: [time, name])
    }

    /// Every kept fix taken in `[from, to)` (milliseconds), of every source (of tracks only, not
    /// photos, when `tracksOnly`), in time order.
    package static func fixes(from: Int64, to: Int64, tracksOnly: Bool = false, _ db: Database) throws -> [KeptFix] {
        guard to > from else { return [] }
        var found: [KeptFix] = []
        for block in try blocks(from: from, through: to - 1, longest: try longestSpan(db), tracksOnly: tracksOnly, db) {
            found += try fixes(ofBlock: block.id, db).filter { $0.time >= from && $0.time < to }
        }
        return found.inTimeOrder()
    }
}
