import GRDB

/// What `roqua info` shows: what the DB holds and where it came from.
public struct BoundaryInfo: Codable, Sendable {
    /// A country with the number of provinces and districts the DB holds for it.
    public struct CountryCounts: Codable, Sendable {
        /// The country's code.
        public var code: String
        /// The country's local name.
        public var name: String
        /// Provinces of the country in the DB.
        public var provinces: Int
        /// Districts of the country in the DB.
        public var districts: Int
    }

    /// A province that has districts, with their count (e.g. TR-34 İstanbul: 39).
    public struct ProvinceCounts: Codable, Sendable {
        /// The province's code.
        public var code: String
        /// The province's local name.
        public var name: String
        /// The code of the province's country.
        public var country: String
        /// Districts whose parent is this province.
        public var districts: Int
    }

    /// One imported shapefile layer, as recorded at import time.
    public struct Source: Codable, Sendable {
        /// The layer's name in the manifest.
        public var layer: String
        /// The level the layer was imported at, as a word (`?` if the DB holds an unknown number).
        public var level: String
        /// The shapefile's file name (no directory).
        public var file: String
        /// Records imported from the layer.
        public var features: Int
        /// The text encoding the DBF was read with.
        public var encoding: String
        /// SHA-256 of the `.shp` file, lower-case hex.
        public var shpSha256: String
        /// The source the manifest gave for the layer (where the data came from).
        public var description: String
        /// The data's licence, as the manifest gave it.
        public var licence: String
        /// The CRS the layer was reprojected from (nil: WGS 84, or a DB that does not record it).
        public var crs: String?
        /// The fields read, e.g. `code GEOCODE, name AREANAME, parent inferred`.
        public var fields: String?
        /// When a user added the layer (`roqua import --add`), ISO 8601.
        public var addedAt: String?
    }

    /// The DB file's path.
    public var path: String
    /// The DB's schema version (0 if the DB records none).
    public var schemaVersion: Int
    /// The Roqua version that imported the DB (`?` if unknown).
    public var roquaVersion: String
    /// When the DB was imported, ISO 8601 text (`?` if unknown).
    public var importedAt: String
    /// Units per level, keyed by the level's word.
    public var levels: [String: Int]
    /// Indexed polygon pieces.
    public var pieces: Int
    /// Every country with its counts, in code order.
    public var countries: [CountryCounts]
    /// Every province that has districts, in code order.
    public var provincesWithDistricts: [ProvinceCounts]
    /// The imported layers, in import order.
    public var sources: [Source]
    /// The populated places answers name their locality from, when the DB has any.
    public var localities: Localities?

    /// The DB's populated places and where they came from.
    public struct Localities: Codable, Sendable {
        /// Places imported.
        public var count: Int
        /// The source the manifest gave (GeoNames, via which package).
        public var description: String
        /// The places' licence and the attribution it asks for.
        public var licence: String
        /// SHA-256 of the imported file, lower-case hex.
        public var sha256: String
    }
}

extension BoundaryDatabase {
    /// Reads what `roqua info` shows: metadata, counts per level and country, and the source layers.
    ///
    /// - Throws: GRDB's `DatabaseError` when a table cannot be read (a DB that is not a boundary DB).
    public func info() throws -> BoundaryInfo {
        try read { db in
            let meta = Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT key, value FROM meta")
                    .map { ($0["key"] as String, $0["value"] as String) })
            var levels: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT level, COUNT(*) AS n FROM boundaries GROUP BY level") {
                levels[AdminLevel(rawValue: row["level"])?.description ?? "level-\(row["level"] as Int)"] = row["n"]
            }
            let countries = try Row.fetchAll(
                db,
                sql: """
                    SELECT c.code, c.name,
                      (SELECT COUNT(*) FROM boundaries p WHERE p.level = 1 AND p.country_code = c.code) AS provinces,
                      (SELECT COUNT(*) FROM boundaries d WHERE d.level = 2 AND d.country_code = c.code) AS districts
                    FROM boundaries c WHERE c.level = 0 ORDER BY c.code
                    """
            ).map {
                BoundaryInfo.CountryCounts(code: $0["code"], name: $0["name"], provinces: $0["provinces"], districts: $0["districts"])
            }
            let provinces = try Row.fetchAll(
                db,
                sql: """
                    SELECT p.code, p.name, p.country_code, COUNT(*) AS districts
                    FROM boundaries d JOIN boundaries p ON d.parent_id = p.id WHERE d.level = 2
                    GROUP BY p.id ORDER BY p.code
                    """
            ).map {
                BoundaryInfo.ProvinceCounts(code: $0["code"], name: $0["name"], country: $0["country_code"], districts: $0["districts"])
            }
            let sources = try Row.fetchAll(db, sql: "SELECT * FROM sources ORDER BY id").map {
                BoundaryInfo.Source(
                    layer: $0["layer"], level: AdminLevel(rawValue: $0["level"])?.description ?? "?",
                    file: $0["file"], features: $0["features"], encoding: $0["encoding"],
                    shpSha256: $0["shp_sha256"], description: $0["description"], licence: $0["licence"],
                    crs: $0["crs"], fields: $0["fields"], addedAt: $0["added_at"])
            }
            return BoundaryInfo(
                path: path, schemaVersion: Int(meta["schema_version"] ?? "") ?? 0, roquaVersion: meta["roqua_version"] ?? "?",
                importedAt: meta["imported_at"] ?? "?", levels: levels,
                pieces: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pieces") ?? 0,
                countries: countries, provincesWithDistricts: provinces, sources: sources,
                localities: meta["localities_source"].map {
                    BoundaryInfo.Localities(
                        count: Int(meta["localities_count"] ?? "") ?? 0, description: $0,
                        licence: meta["localities_licence"] ?? "?", sha256: meta["localities_sha256"] ?? "?")
                })
        }
    }
}
