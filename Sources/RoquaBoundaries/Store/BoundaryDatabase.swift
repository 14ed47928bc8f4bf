import Foundation
import GRDB

public enum BoundaryDatabaseError: Error, CustomStringConvertible, Equatable, Sendable {
    case missing(path: String)
    case notABoundaryDatabase(path: String, reason: String)
    case unsupportedSchema(path: String, found: Int, supported: Int)

    public var description: String {
        switch self {
        case let .missing(path):
            "\(path): no boundary database here; build it with `roqua import` (or pass --boundaries PATH)"
        case let .notABoundaryDatabase(path, reason):
            "\(path): not a Roqua boundary database (\(reason))"
        case let .unsupportedSchema(path, found, supported):
            "\(path): schema version \(found), this Roqua reads version \(supported); rebuild it with `roqua import`"
        }
    }
}

/// A boundary DB opened read-only.
public final class BoundaryDatabase: Sendable {
    public let path: String
    let queue: DatabaseQueue

    public init(path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { throw BoundaryDatabaseError.missing(path: path) }
        self.path = path
        var config = Configuration()
        config.readonly = true
        do {
            queue = try DatabaseQueue(path: path, configuration: config)
            let version = try queue.read { db in
                try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'schema_version'")
            }
            guard let version, let number = Int(version) else {
                throw BoundaryDatabaseError.notABoundaryDatabase(path: path, reason: "no schema version")
            }
            guard number == BoundarySchema.version else {
                throw BoundaryDatabaseError.unsupportedSchema(path: path, found: number, supported: BoundarySchema.version)
            }
        } catch let error as BoundaryDatabaseError {
            throw error
        } catch let error as DatabaseError {
            throw BoundaryDatabaseError.notABoundaryDatabase(path: path, reason: error.message ?? "\(error.resultCode)")
        }
    }

    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try queue.read(body)
    }
}
