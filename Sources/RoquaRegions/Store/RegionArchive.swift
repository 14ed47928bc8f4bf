import Foundation
import GRDB
import RoquaIO

/// The whole store as one document: `roqua export` writes it, `roqua restore` reads it back.
/// JSON and GeoJSON carry every column of every row (ids included), the regions and imports and
/// each component's archived tables, so export → restore → export gives the same bytes; GPX is
/// for other tools and is not restorable.
public enum ArchiveFormat: String, CaseIterable, Sendable {
    case json, geojson, gpx
}

/// Why an export cannot be restored; each case names the file.
public enum ArchiveError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The file cannot be read or is not a Roqua export.
    case unreadable(file: String, reason: String)
    /// One entry of a section is invalid; `index` is 0-based, messages show it 1-based.
    case badRow(file: String, section: String, index: Int, reason: String)
    /// The file is a GPX export, which is for other tools.
    case notRestorable(file: String)

    /// The file the error is about.
    public var file: String {
        switch self {
        case let .unreadable(file, _), let .badRow(file, _, _, _), let .notRestorable(file): file
        }
    }

    /// One line naming the file (and entry) and what is wrong.
    public var description: String {
        switch self {
        case let .unreadable(file, reason): "\(file): not a Roqua export: \(reason)"
        case let .badRow(file, section, index, reason): "\(file): \(section) entry \(index + 1): \(reason)"
        case let .notRestorable(file): "\(file): GPX exports cannot be restored; restore a JSON or GeoJSON export"
        }
    }
}

extension ArchiveError: InputFileError {
    public func renaming(_ path: String, as name: String) -> ArchiveError {
        let file = InputFileName.renamed(file, from: path, to: name)
        return switch self {
        case let .unreadable(_, reason): .unreadable(file: file, reason: reason)
        case let .badRow(_, section, index, reason): .badRow(file: file, section: section, index: index, reason: reason)
        case .notRestorable: .notRestorable(file: file)
        }
    }
}

/// One row of the imports table, every column as stored.
struct ImportRow: Codable, Equatable, FetchableRecord, PersistableRecord {
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

/// The document: fixed sections plus one per archived component table, all at the top level.
package struct Archive: Codable {
    static let formatName = "roqua-regions"
    var format = formatName
    var version = 1
    var regions: [VisitedRegion]
    var imports: [ImportRow]
    /// Component tables by their archive key (`achievement_unlocks`); absent keys read as empty.
    var tables: [String: [[String: ArchiveValue]]] = [:]

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
    private static let fixedKeys: Set<String> = ["format", "version", "regions", "imports", "type", "features", "roqua"]

    init(regions: [VisitedRegion], imports: [ImportRow], tables: [String: [[String: ArchiveValue]]]) {
        self.regions = regions
        self.imports = imports
        self.tables = tables
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        format = try c.decode(String.self, forKey: Key("format"))
        version = try c.decode(Int.self, forKey: Key("version"))
        regions = try c.decodeIfPresent([VisitedRegion].self, forKey: Key("regions")) ?? []
        imports = try c.decode([ImportRow].self, forKey: Key("imports"))
        for key in c.allKeys where !Self.fixedKeys.contains(key.stringValue) {
            tables[key.stringValue] = try c.decode([[String: ArchiveValue]].self, forKey: key)
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(format, forKey: Key("format"))
        try c.encode(version, forKey: Key("version"))
        try c.encode(regions, forKey: Key("regions"))
        try c.encode(imports, forKey: Key("imports"))
        for (key, rows) in tables { try c.encode(rows, forKey: Key(key)) }
    }
}

extension RegionStore {
    func archive() throws -> Archive {
        try read { db in
            let regions = try readableRegions(db)
            var tables: [String: [[String: ArchiveValue]]] = [:]
            for table in components.flatMap(\.archivedTables) {
                tables[table.key] = try Row.fetchAll(db, sql: "SELECT * FROM \(table.table) ORDER BY \(table.order)").map { row in
                    Dictionary(uniqueKeysWithValues: row.columnNames.map { ($0, ArchiveValue.fromDatabaseValue(row[$0]) ?? .null) })
                }
            }
            return Archive(
                regions: regions, imports: try ImportRow.fetchAll(db, sql: "SELECT * FROM imports ORDER BY imported_at, checksum"),
                tables: tables)
        }
    }

    /// The store as a document in `format`.
    /// - Throws: `RegionStoreError` when the store cannot be read; `StoreTimeError` or an
    ///   `EncodingError` when a value cannot be written.
    public func export(_ format: ArchiveFormat) throws -> Data {
        let archive = try archive()
        switch format {
        case .json: return try ArchiveCoding.encoder.encode(archive)
        case .geojson: return try ArchiveCoding.geoJSON(archive)
        case .gpx: return Data(try ArchiveCoding.gpx(archive).utf8)
        }
    }

    /// `file` read and every row checked, as `restore` does before it touches a store (a caller
    /// may check first, so that a bad file does not even create one).
    /// - Throws: `ArchiveError` naming the file and the row.
    @discardableResult
    package static func readArchive(_ file: String, components: [StoreComponent]) throws -> Archive {
        let archive = try ArchiveCoding.read(file)
        try ArchiveCoding.validate(archive, file: file, tables: components.flatMap(\.archivedTables))
        return archive
    }

    /// Replaces the store's content with `file`'s, in one transaction: regions, imports and every
    /// component's archived tables (tables the file lacks end up empty, so nothing stale is left).
    /// An export holds no kept fixes: the store's are removed, and its imports are restored as
    /// made before the history (importing those files again keeps their fixes, counting nothing twice).
    /// An unreadable file or a bad row changes nothing; a non-empty store is refused unless `replace`.
    /// - Throws: `ArchiveError` naming the file and the row; `RegionStoreError.notEmpty`.
    @discardableResult
    public func restore(from file: String, replace: Bool = false) throws -> Int {
        try restore(Self.readArchive(file, components: components), from: file, replace: replace)
    }

    /// `restore(from:replace:)` of an archive `readArchive` has read and checked already (a
    /// million regions' export is 0.5 GB of JSON: read once, not twice).
    @discardableResult
    package func restore(_ archive: Archive, from file: String, replace: Bool = false) throws -> Int {
        let tables = components.flatMap(\.archivedTables)
        return try write { db in
            let existing = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM visited_regions") ?? 0
            let fixes = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM fix_blocks") ?? 0
            guard existing + fixes == 0 || replace else { throw RegionStoreError.notEmpty(path: path, regions: existing) }
            try db.execute(
                sql: "DELETE FROM visited_regions; DELETE FROM places; DELETE FROM imports; DELETE FROM fix_blocks; DELETE FROM fix_sources"
            )
            try db.execute(sql: "DELETE FROM sqlite_sequence WHERE name = 'visited_regions'")
            var writer = try RegionWriter(db)
            for region in archive.regions { _ = try writer.insert(region, keepingID: true, db) }
            for entry in archive.imports { try entry.insert(db) }
            for table in tables {
                try db.execute(sql: "DELETE FROM \(table.table)")
                let known = Set(try db.columns(in: table.table).map(\.name))
                for (index, row) in (archive.tables[table.key] ?? []).enumerated() {
                    if let unknown = row.keys.sorted().first(where: { !known.contains($0) }) {
                        throw ArchiveError.badRow(file: file, section: table.key, index: index, reason: "unknown column '\(unknown)'")
                    }
                    let columns = row.keys.sorted()
                    try db.execute(
                        sql:
                            "INSERT INTO \(table.table) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))",
                        arguments: StatementArguments(columns.map { row[$0]! }))
                }
            }
            return archive.regions.count
        }
    }
}
