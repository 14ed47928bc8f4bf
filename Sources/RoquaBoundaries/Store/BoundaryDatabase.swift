import Foundation
import GRDB

/// Why a file cannot be opened as a boundary DB; each case names the path.
public enum BoundaryDatabaseError: Error, CustomStringConvertible, Equatable, Sendable {
    /// No file at `path`.
    case missing(path: String)
    /// The file is not an SQLite boundary DB (no schema version, or SQLite refused it); `reason` says which.
    case notABoundaryDatabase(path: String, reason: String)
    /// The DB has schema version `found`; this build reads only `supported`.
    case unsupportedSchema(path: String, found: Int, supported: Int)

    /// One line naming the path and what to do (import, or pass `--boundaries`).
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
    /// The DB file's path, as given.
    public let path: String
    let queue: DatabaseQueue

    /// Opens the boundary DB at `path` read-only and checks its schema version.
    ///
    /// - Throws: `BoundaryDatabaseError.missing` when there is no file; `.notABoundaryDatabase` when
    ///   SQLite cannot read it or it records no schema version; `.unsupportedSchema` when its schema
    ///   version is not `BoundarySchema.version`.
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

    /// Runs `body` in a read transaction on the DB's serial queue and returns its result.
    ///
    /// - Throws: What `body` throws, or GRDB's `DatabaseError` when SQLite fails.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try queue.read(body)
    }
}
