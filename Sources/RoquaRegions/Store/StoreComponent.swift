import GRDB

/// A module's own tables in the region store (the achievements keep their unlocks there): the
/// migrations that create and change them, and which of them travel with the regions in exports.
/// The store runs its own migrations first, then each component's in the order given; GRDB skips
/// the ones already applied and tolerates ids it does not know, so a store opened by a command
/// that does not use a component keeps that component's tables untouched.
public struct StoreComponent: Sendable {
    /// One named schema change, run once per store.
    public struct Migration: Sendable {
        /// The id GRDB records once the migration has run; never reuse or rename one.
        public var identifier: String
        /// Changes the schema inside the migration's transaction.
        public var migrate: @Sendable (Database) throws -> Void

        /// Creates a migration with a permanent `identifier`.
        public init(_ identifier: String, migrate: @escaping @Sendable (Database) throws -> Void) {
            self.identifier = identifier
            self.migrate = migrate
        }
    }

    /// A table exported under `key` with every column of every row, restored in one transaction.
    public struct ArchivedTable: Sendable {
        /// The key the table's rows are exported under.
        public var key: String
        /// The SQL table's name.
        public var table: String
        /// SQL `ORDER BY` terms, so exports are byte-identical for the same content.
        public var order: String
        /// Checks one row before anything is written; throws a message naming what is wrong.
        public var validate: @Sendable ([String: ArchiveValue]) throws(ArchiveRowProblem) -> Void

        /// Creates an archived table: exported under `key`, ordered by `order`, each restored row checked by `validate`.
        public init(
            key: String, table: String, order: String,
            validate: @escaping @Sendable ([String: ArchiveValue]) throws(ArchiveRowProblem) -> Void
        ) {
            self.key = key
            self.table = table
            self.order = order
            self.validate = validate
        }
    }

    /// The component's name, for messages.
    public var name: String
    /// The component's migrations, in the order they run.
    public var migrations: [Migration]
    /// The component's tables that exports carry and restores replace.
    public var archivedTables: [ArchivedTable]
    /// The component's tables derived from the regions, emptied when everything is derived again
    /// from the kept fixes (a rebuild, a forget) for the component to fill anew.
    public var derivedTables: [String]

    /// Creates a component; by default none of its tables travel with exports or are derived.
    public init(name: String, migrations: [Migration], archivedTables: [ArchivedTable] = [], derivedTables: [String] = []) {
        self.name = name
        self.migrations = migrations
        self.archivedTables = archivedTables
        self.derivedTables = derivedTables
    }
}

/// What is wrong with one row of an archived table.
public struct ArchiveRowProblem: Error, Sendable {
    /// What is wrong with the row, naming the column.
    public var message: String
    /// Creates a problem with `message`.
    public init(_ message: String) { self.message = message }
}

/// One column value of an archived row, as JSON carries it.
public enum ArchiveValue: Codable, Equatable, Sendable, DatabaseValueConvertible {
    /// SQL `NULL`, JSON `null`.
    case null
    /// A 64-bit integer.
    case integer(Int64)
    /// A floating-point number.
    case real(Double)
    /// Text.
    case text(String)

    /// Decodes `null`, an integer, a number or a string, tried in that order.
    ///
    /// - Throws: `DecodingError` when the value is none of them (an array or object).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let i = try? c.decode(Int64.self) {
            self = .integer(i)
        } else if let d = try? c.decode(Double.self) {
            self = .real(d)
        } else {
            self = .text(try c.decode(String.self))
        }
    }

    /// Encodes the value as its JSON counterpart.
    ///
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case let .integer(i): try c.encode(i)
        case let .real(d): try c.encode(d)
        case let .text(s): try c.encode(s)
        }
    }

    /// The value as SQLite stores it.
    public var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case let .integer(i): i.databaseValue
        case let .real(d): d.databaseValue
        case let .text(s): s.databaseValue
        }
    }

    /// The value of a database column; `nil` for a blob, which archives do not carry.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> ArchiveValue? {
        switch value.storage {
        case .null: .null
        case let .int64(i): .integer(i)
        case let .double(d): .real(d)
        case let .string(s): .text(s)
        case .blob: nil
        }
    }

    /// The string of a `.text` value, else `nil`.
    public var text: String? { if case let .text(s) = self { s } else { nil } }
    /// The integer of an `.integer` value, else `nil`.
    public var integer: Int64? { if case let .integer(i) = self { i } else { nil } }
}
