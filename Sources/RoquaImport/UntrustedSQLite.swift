import Foundation
import GRDB
import GRDBSQLite

/// A SQLite file from outside (a GeoPackage) opened so that reading it runs none of the SQL it
/// holds: a view, a virtual table or a computed column runs what the file says on every read (a
/// recursive view grew past 400 MB in 8 s, a `randomblob` one 2.4 GB in 10 s). Only base tables
/// and their stored columns are read, read-only, with functions the schema names distrusted
/// (`trusted_schema = OFF`) and every value at most `valueBytes` long (`SQLITE_LIMIT_LENGTH`).
enum UntrustedSQLite {
    static func open(_ path: String, valueBytes: Int) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.prepareDatabase { db in
            _ = sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_LENGTH, Int32(clamping: valueBytes))
            try db.execute(sql: "PRAGMA trusted_schema = OFF")
        }
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    /// What `name` is when it is not a plain table ("a view", "a virtual table", "missing"); nil
    /// for a base table.
    static func notABaseTable(_ db: Database, _ name: String) throws -> String? {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT type, sql FROM sqlite_master WHERE name = ? COLLATE NOCASE AND type IN ('table', 'view')",
                arguments: [name])
        else { return "missing" }
        let type: String? = row["type"], sql: String? = row["sql"]
        if type == "view" { return "a view" }
        if sql?.uppercased().hasPrefix("CREATE VIRTUAL") ?? false { return "a virtual table" }
        return nil
    }

    /// The columns of base table `name` that hold their values (not computed on reading:
    /// `GENERATED … VIRTUAL`), in order.
    static func storedColumns(_ db: Database, _ name: String) throws -> [String] {
        try Row.fetchAll(db, sql: "SELECT name, hidden FROM pragma_table_xinfo(?)", arguments: [name]).compactMap { row in
            let hidden: Int = row["hidden"] ?? 0
            return hidden == 0 || hidden == 3 ? row["name"] : nil
        }
    }

    /// `name` as an SQL identifier.
    static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
