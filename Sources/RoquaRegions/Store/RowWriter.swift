import GRDB
import GRDBSQLite

/// One INSERT written row after row with SQLite's own binding and stepping calls. GRDB's argument
/// arrays (a `DatabaseValue` per column, retained and released, and a copy of each string) cost
/// more than SQLite's insert itself when an import writes 100 k rows, and its checks per execution
/// half as much again. It runs inside a GRDB transaction all the same: a refused row is a
/// `DatabaseError` with SQLite's message, and the caller's transaction is rolled back as any other.
///
/// The statement is prepared for this writer alone: a cached one shared with `execute(arguments:)`
/// would have its bindings replaced behind the writer's back.
struct RowWriter {
    private let statement: Statement
    private let count: Int32

    /// A writer of `sql`, an INSERT with `?` placeholders only.
    init(_ db: Database, sql: String) throws {
        statement = try db.makeStatement(sql: sql)
        count = sqlite3_bind_parameter_count(statement.sqliteStatement)
        // Bound once through GRDB, so that `execute()` takes the bindings made below as valid.
        statement.setUncheckedArguments(StatementArguments(Array(repeating: DatabaseValue.null, count: Int(count))))
    }

    /// Writes one row whose values `bind` gives, in the placeholders' order, one for each.
    /// - Throws: `DatabaseError` when a value cannot be bound or they are not one per placeholder
    ///   (nothing is written then), or when SQLite refuses the row.
    func write(_ bind: (inout Values) -> Void) throws {
        let s = statement.sqliteStatement
        // A statement run to its end must be reset before it is bound again.
        sqlite3_reset(s)
        var values = Values(statement: s)
        bind(&values)
        if values.failure != SQLITE_OK {
            throw DatabaseError(resultCode: ResultCode(rawValue: values.failure), message: "binding a value failed", sql: statement.sql)
        }
        // Fewer values would leave the last ones of the row before in place.
        guard values.index == count + 1 else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "\(values.index - 1) values for \(count) columns", sql: statement.sql)
        }
        // Stepped here, not by GRDB's `execute()`: its checks per execution (observers, which
        // Roqua registers none of, and suspension, an iOS matter) were half the cost of the rows
        // an import writes at its end. SQLite itself still refuses what it refuses.
        let code = sqlite3_step(s)
        guard code == SQLITE_DONE else {
            let message = sqlite3_db_handle(s).flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            sqlite3_reset(s)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
    }

    /// The values of one row, bound in order.
    struct Values {
        fileprivate let statement: OpaquePointer
        fileprivate private(set) var index: Int32 = 1
        /// The first binding's error, SQLITE_OK while there is none.
        fileprivate private(set) var failure = SQLITE_OK

        fileprivate init(statement: OpaquePointer) { self.statement = statement }

        /// The next value: an integer, or NULL.
        mutating func add(_ value: Int64?) {
            next(value.map { sqlite3_bind_int64(statement, index, $0) } ?? sqlite3_bind_null(statement, index))
        }

        /// The next value: a real, or NULL.
        mutating func add(_ value: Double?) {
            next(value.map { sqlite3_bind_double(statement, index, $0) } ?? sqlite3_bind_null(statement, index))
        }

        /// The next value: a text (copied by SQLite), or NULL.
        mutating func add(_ value: String?) {
            guard var text = value else { return next(sqlite3_bind_null(statement, index)) }
            let code = text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    // An empty string's buffer may have no address; SQLite then binds an empty text.
                    sqlite3_bind_text64(
                        statement, index, chars.baseAddress ?? Self.empty, sqlite3_uint64(chars.count), Self.transient, UInt8(SQLITE_UTF8))
                }
            }
            next(code)
        }

        /// The next value: a blob (copied by SQLite).
        mutating func add(_ value: [UInt8]) {
            let code = value.withUnsafeBytes { bytes in
                // An empty array's buffer may have no address; SQLite then binds an empty blob.
                sqlite3_bind_blob64(
                    statement, index, bytes.baseAddress ?? UnsafeRawPointer(Self.empty), sqlite3_uint64(bytes.count), Self.transient)
            }
            next(code)
        }

        private mutating func next(_ code: Int32) {
            if failure == SQLITE_OK { failure = code }
            index += 1
        }

        /// A text of no characters.
        private static var empty: UnsafePointer<CChar> {
            UnsafeRawPointer(("" as StaticString).utf8Start).assumingMemoryBound(to: CChar.self)
        }

        /// SQLite's SQLITE_TRANSIENT: the text is copied before the call returns.
        private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    }
}
