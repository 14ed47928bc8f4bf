import Foundation
import GRDB
import RoquaBoundaries

public enum RegionStoreError: Error, CustomStringConvertible, Equatable {
    case cannotOpen(path: String, reason: String)
    case notEmpty(path: String, regions: Int)

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason): "\(path): cannot open the region store: \(reason)"
        case let .notEmpty(path, regions):
            "\(path): the store already holds \(regions) regions; restore into an empty store, or pass --replace"
        }
    }
}

/// The user's visited regions: its own SQLite file in WAL mode, schema changes through GRDB
/// migrations, every import written in one transaction.
public final class RegionStore: Sendable {
    public let path: String
    let queue: DatabaseQueue

    /// `$ROQUA_STORE`, else `regions.sqlite` in Roqua's data home.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let path = environment["ROQUA_STORE"], !path.isEmpty { return path }
        return (RoquaPaths.dataHome(environment: environment) as NSString).appendingPathComponent("regions.sqlite")
    }

    public init(path: String) throws {
        self.path = path
        var config = Configuration()
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
        do {
            let directory = (path as NSString).deletingLastPathComponent
            if !directory.isEmpty {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            queue = try DatabaseQueue(path: path, configuration: config)
            try queue.writeWithoutTransaction { db in
                _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            }
            try RegionSchema.migrator.migrate(queue)
        } catch let error as DatabaseError {
            throw RegionStoreError.cannotOpen(path: path, reason: error.message ?? "\(error.resultCode)")
        } catch {
            throw RegionStoreError.cannotOpen(path: path, reason: "\(error)")
        }
    }

    public func read<T>(_ body: (Database) throws -> T) throws -> T { try queue.read(body) }
    public func write<T>(_ body: (Database) throws -> T) throws -> T { try queue.write(body) }

    public func allRegions() throws -> [VisitedRegion] {
        try read { db in try RegionRecord.fetchAll(db, sql: "SELECT * FROM visited_regions ORDER BY id").map(\.region) }
    }

    public func regionCount() throws -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM visited_regions") ?? 0 }
    }

    /// Whether a file with this content was imported before.
    public func hasImport(checksum: String) throws -> Bool {
        try read { db in try Bool.fetchOne(db, sql: "SELECT 1 FROM imports WHERE checksum = ?", arguments: [checksum]) ?? false }
    }

    /// Codes of every country, province and district any region lies in.
    public func visitedCodes() throws -> Set<String> {
        try read { db in
            Set(try String.fetchAll(db, sql: """
                SELECT country_code FROM visited_regions WHERE country_code IS NOT NULL
                UNION SELECT province_code FROM visited_regions WHERE province_code IS NOT NULL
                UNION SELECT district_code FROM visited_regions WHERE district_code IS NOT NULL
                """))
        }
    }
}
