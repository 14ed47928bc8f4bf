import GRDB

/// A module's own tables in the region store (the achievements keep their unlocks there): the
/// migrations that create and change them, and which of them travel with the regions in exports.
/// The store runs its own migrations first, then each component's in the order given; GRDB skips
/// the ones already applied and tolerates ids it does not know, so a store opened by a command
/// that does not use a component keeps that component's tables untouched.
public struct StoreComponent: Sendable {
    public struct Migration: Sendable {
        public var identifier: String
        public var migrate: @Sendable (Database) throws -> Void

        public init(_ identifier: String, migrate: @escaping @Sendable (Database) throws -> Void) {
            self.identifier = identifier
            self.migrate = migrate
        }
    }

    /// A table exported under `key` with every column of every row, restored in one transaction.
    public struct ArchivedTable: Sendable {
        public var key: String
        public var table: String
        /// SQL `ORDER BY` terms, so exports are byte-identical for the same content.
        public var order: String
        /// Checks one row before anything is written; throws a message naming what is wrong.
        public var validate: @Sendable ([String: ArchiveValue]) throws(ArchiveRowProblem) -> Void

        public init(key: String, table: String, order: String,
                    validate: @escaping @Sendable ([String: ArchiveValue]) throws(ArchiveRowProblem) -> Void) {
            self.key = key
            self.table = table
            self.order = order
            self.validate = validate
        }
    }

    public var name: String
    public var migrations: [Migration]
    public var archivedTables: [ArchivedTable]

    public init(name: String, migrations: [Migration], archivedTables: [ArchivedTable] = []) {
        self.name = name
        self.migrations = migrations
        self.archivedTables = archivedTables
    }
}

/// What is wrong with one row of an archived table.
public struct ArchiveRowProblem: Error, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

/// One column value of an archived row, as JSON carries it.
public enum ArchiveValue: Codable, Equatable, Sendable, DatabaseValueConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null } else if let i = try? c.decode(Int64.self) { self = .integer(i) } else if let d = try? c.decode(Double.self) {
            self = .real(d)
        } else {
            self = .text(try c.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case let .integer(i): try c.encode(i)
        case let .real(d): try c.encode(d)
        case let .text(s): try c.encode(s)
        }
    }

    public var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case let .integer(i): i.databaseValue
        case let .real(d): d.databaseValue
        case let .text(s): s.databaseValue
        }
    }

    public static func fromDatabaseValue(_ value: DatabaseValue) -> ArchiveValue? {
        switch value.storage {
        case .null: .null
        case let .int64(i): .integer(i)
        case let .double(d): .real(d)
        case let .string(s): .text(s)
        case .blob: nil
        }
    }

    public var text: String? { if case let .text(s) = self { s } else { nil } }
    public var integer: Int64? { if case let .integer(i) = self { i } else { nil } }
}
