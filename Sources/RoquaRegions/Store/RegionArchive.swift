import Foundation
import GRDB

/// The whole store as one document: `roqua export` writes it, `roqua restore` reads it back.
/// JSON and GeoJSON carry every column of every row (ids included), so export → restore →
/// export gives the same bytes; GPX is for other tools and is not restorable.
public enum ArchiveFormat: String, CaseIterable, Sendable {
    case json, geojson, gpx
}

public enum ArchiveError: Error, CustomStringConvertible, Equatable {
    case unreadable(file: String, reason: String)
    case badRegion(file: String, index: Int, reason: String)
    case notRestorable(file: String)

    public var description: String {
        switch self {
        case let .unreadable(file, reason): "\(file): not a Roqua export: \(reason)"
        case let .badRegion(file, index, reason): "\(file): region \(index + 1): \(reason)"
        case let .notRestorable(file): "\(file): GPX exports cannot be restored; restore a JSON or GeoJSON export"
        }
    }
}

/// One row of each table, every column, as it is stored.
/// Column names are the table's, so GRDB maps rows both ways with no code.
struct ArchivedRegion: Codable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "visited_regions"
    var id: Int64
    var latitude: Double
    var longitude: Double
    var radius: Int
    var timestamp_start: String
    var timestamp_end: String?
    var city: String?
    var district: String?
    var country: String?
    var geohash: String
    var country_code: String?
    var province_code: String?
    var district_code: String?
    var visit_count: Int
    var last_visit: String
    var enriched_with: String?
}

struct ArchivedImport: Codable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "imports"
    var checksum: String
    var file: String
    var format: String
    var imported_at: String
    var fixes_read: Int
    var fixes_dropped: Int
    var new_regions: Int
    var revisits: Int
}

struct ArchivedUnlock: Codable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "achievement_unlocks"
    var id: String
    var unlocked_at: String
    var xp: Int
}

struct Archive: Codable {
    static let formatName = "roqua-regions"
    var format = formatName
    var version = 1
    var regions: [ArchivedRegion]
    var imports: [ArchivedImport]
    /// Absent in exports made before achievements existed.
    var achievement_unlocks: [ArchivedUnlock]? = []
}

extension RegionStore {
    func archive() throws -> Archive {
        try read { db in
            Archive(regions: try ArchivedRegion.fetchAll(db, sql: "SELECT * FROM visited_regions ORDER BY id"),
                    imports: try ArchivedImport.fetchAll(db, sql: "SELECT * FROM imports ORDER BY imported_at, checksum"),
                    achievement_unlocks: try ArchivedUnlock.fetchAll(db, sql: "SELECT * FROM achievement_unlocks ORDER BY unlocked_at, id"))
        }
    }

    /// The store as a document in `format`.
    public func export(_ format: ArchiveFormat) throws -> Data {
        let archive = try archive()
        switch format {
        case .json: return try ArchiveCoding.encoder.encode(archive)
        case .geojson: return try ArchiveCoding.geoJSON(archive)
        case .gpx: return Data(ArchiveCoding.gpx(archive).utf8)
        }
    }

    /// Replaces the store's content with `file`'s, in one transaction. An unreadable file or a
    /// bad row changes nothing; a non-empty store is refused unless `replace`.
    @discardableResult
    public func restore(from file: String, replace: Bool = false) throws -> Int {
        let archive = try ArchiveCoding.read(file)
        try ArchiveCoding.validate(archive, file: file)
        return try write { db in
            let existing = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM visited_regions") ?? 0
            guard existing == 0 || replace else { throw RegionStoreError.notEmpty(path: path, regions: existing) }
            try db.execute(sql: "DELETE FROM visited_regions; DELETE FROM imports; DELETE FROM achievement_unlocks")
            try db.execute(sql: "DELETE FROM sqlite_sequence WHERE name = 'visited_regions'")
            for region in archive.regions { try region.insert(db) }
            for entry in archive.imports { try entry.insert(db) }
            for unlock in archive.achievement_unlocks ?? [] { try unlock.insert(db) }
            return archive.regions.count
        }
    }
}
