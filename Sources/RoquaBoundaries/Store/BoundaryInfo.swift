import GRDB

/// What `roqua info` shows: what the DB holds and where it came from.
public struct BoundaryInfo: Codable, Sendable {
    public struct CountryCounts: Codable, Sendable {
        public var code: String
        public var name: String
        public var provinces: Int
        public var districts: Int
    }

    /// A province that has districts, with their count (e.g. TR-34 İstanbul: 39).
    public struct ProvinceCounts: Codable, Sendable {
        public var code: String
        public var name: String
        public var country: String
        public var districts: Int
    }

    public struct Source: Codable, Sendable {
        public var layer: String
        public var level: String
        public var file: String
        public var features: Int
        public var encoding: String
        public var shpSha256: String
        public var description: String
        public var licence: String
    }

    public var path: String
    public var schemaVersion: Int
    public var roquaVersion: String
    public var importedAt: String
    public var levels: [String: Int]
    public var pieces: Int
    public var countries: [CountryCounts]
    public var provincesWithDistricts: [ProvinceCounts]
    public var sources: [Source]
}

extension BoundaryDatabase {
    public func info() throws -> BoundaryInfo {
        try read { db in
            let meta = Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT key, value FROM meta")
                .map { ($0["key"] as String, $0["value"] as String) })
            var levels: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT level, COUNT(*) AS n FROM boundaries GROUP BY level") {
                levels[AdminLevel(rawValue: row["level"])?.description ?? "level-\(row["level"] as Int)"] = row["n"]
            }
            let countries = try Row.fetchAll(db, sql: """
                SELECT c.code, c.name,
                  (SELECT COUNT(*) FROM boundaries p WHERE p.level = 1 AND p.country_code = c.code) AS provinces,
                  (SELECT COUNT(*) FROM boundaries d WHERE d.level = 2 AND d.country_code = c.code) AS districts
                FROM boundaries c WHERE c.level = 0 ORDER BY c.code
                """).map {
                BoundaryInfo.CountryCounts(code: $0["code"], name: $0["name"], provinces: $0["provinces"], districts: $0["districts"])
            }
            let provinces = try Row.fetchAll(db, sql: """
                SELECT p.code, p.name, p.country_code, COUNT(*) AS districts
                FROM boundaries d JOIN boundaries p ON d.parent_id = p.id WHERE d.level = 2
                GROUP BY p.id ORDER BY p.code
                """).map {
                BoundaryInfo.ProvinceCounts(code: $0["code"], name: $0["name"], country: $0["country_code"], districts: $0["districts"])
            }
            let sources = try Row.fetchAll(db, sql: "SELECT * FROM sources ORDER BY id").map {
                BoundaryInfo.Source(layer: $0["layer"], level: AdminLevel(rawValue: $0["level"])?.description ?? "?",
                                    file: $0["file"], features: $0["features"], encoding: $0["encoding"],
                                    shpSha256: $0["shp_sha256"], description: $0["description"], licence: $0["licence"])
            }
            return BoundaryInfo(
                path: path, schemaVersion: Int(meta["schema_version"] ?? "") ?? 0, roquaVersion: meta["roqua_version"] ?? "?",
                importedAt: meta["imported_at"] ?? "?", levels: levels,
                pieces: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pieces") ?? 0,
                countries: countries, provincesWithDistricts: provinces, sources: sources)
        }
    }
}
