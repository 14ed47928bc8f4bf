import Foundation
import GRDB
import RoquaBoundaries
import RoquaTestSupport
import Testing

/// The bundled dataset, imported by the real importer: counts, names, hierarchy and index.
@Suite struct BundledDataTests {
    @Test func countsPerLevelAndCountry() throws {
        let info = try Bundled.database().info()
        #expect(info.schemaVersion == 3)
        #expect(try #require(info.levels["country"]) >= 240)
        #expect(info.levels["district"] == 973)
        let turkiye = try #require(info.countries.first { $0.code == "TR" })
        #expect(turkiye.name == "Türkiye")
        #expect(turkiye.provinces == 81)
        #expect(turkiye.districts == 973)
        #expect(info.sources.count == 4)
        #expect(info.sources.allSatisfy { $0.shpSha256.count == 64 && !$0.licence.isEmpty })
    }

    @Test func istanbulHasItsThirtyNineDistrictsWithProperNames() throws {
        let names = try Bundled.database().read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT d.name FROM boundaries d JOIN boundaries p ON d.parent_id = p.id
                    WHERE p.code = 'TR-34' AND d.level = 2 ORDER BY d.name
                    """)
        }
        #expect(names.count == 39)
        for expected in ["Kadıköy", "Şişli", "Eyüpsultan", "Ataşehir", "Beşiktaş", "Üsküdar", "Adalar", "Çatalca"] {
            #expect(names.contains(expected), "missing \(expected)")
        }
        #expect(names.allSatisfy { $0 != $0.uppercased() }, "names must not be upper case")
    }

    @Test func provinceCodesAndNames() throws {
        let provinces = try Bundled.database().read { db in
            try Row.fetchAll(db, sql: "SELECT code, name FROM boundaries WHERE level = 1 AND country_code = 'TR' ORDER BY code")
        }
        #expect(provinces.map { $0["code"] as String } == (1...81).map { String(format: "TR-%02d", $0) })
        let names = Dictionary(uniqueKeysWithValues: provinces.map { ($0["code"] as String, $0["name"] as String) })
        #expect(names["TR-34"] == "İstanbul")
        #expect(names["TR-39"] == "Kırklareli")
        #expect(names["TR-63"] == "Şanlıurfa")
    }

    @Test func everyUnitHasAFullChainUpToItsCountry() throws {
        let broken = try Bundled.database().read { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM boundaries b LEFT JOIN boundaries p ON b.parent_id = p.id
                    LEFT JOIN boundaries c ON p.parent_id = c.id
                    WHERE (b.level = 2 AND (p.level IS NOT 1 OR c.level IS NOT 0 OR c.code != b.country_code))
                       OR (b.level = 1 AND (p.level IS NOT 0 OR p.code != b.country_code))
                       OR (b.level = 0 AND b.parent_id IS NOT NULL)
                    """)
        }
        #expect(broken == 0)
    }

    @Test func everyIndexBoxHoldsItsPiece() throws {
        let context = GEOSContext()
        let rows = try Bundled.database().read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT p.geometry, r.min_x, r.min_y, r.max_x, r.max_y FROM pieces p JOIN piece_index r ON r.id = p.id
                    """)
        }
        #expect(rows.count > 5000)
        var outside = 0
        for row in rows {
            let geometry = try context.geometry(wkb: row["geometry"])
            let box = BoundingBox(minX: row["min_x"], minY: row["min_y"], maxX: row["max_x"], maxY: row["max_y"])
            if !box.contains(try geometry.bounds()) { outside += 1 }
        }
        #expect(outside == 0)
    }

    @Test func piecesOfEachBoundaryAddUpToIt() throws {
        let context = GEOSContext()
        for code in ["TR-34", "TUR034023", "TR", "RU", "ID"] {
            let whole = try Bundled.geometry(code, in: context)
            let pieces = try Bundled.database().read { db in
                try Data.fetchAll(
                    db, sql: "SELECT p.geometry FROM pieces p JOIN boundaries b ON b.id = p.boundary_id WHERE b.code = ?",
                    arguments: [code])
            }
            let area = try pieces.reduce(0.0) { $0 + (try context.geometry(wkb: $1).area()) }
            #expect(abs(area - (try whole.area())) <= 1e-9 * max(1, try whole.area()), "\(code)")
        }
    }

    @Test func everyDistrictLiesWithinItsProvince() throws {
        let context = GEOSContext()
        let pairs = try Bundled.database().read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT d.code, d.geometry AS district, p.geometry AS province
                    FROM boundaries d JOIN boundaries p ON d.parent_id = p.id WHERE d.level = 2
                    """)
        }
        #expect(pairs.count == 973)
        var provinces: [Data: PreparedGeometry] = [:]
        var outside: [String] = []
        for row in pairs {
            let provinceWKB: Data = row["province"]
            if provinces[provinceWKB] == nil {
                provinces[provinceWKB] = try context.geometry(wkb: provinceWKB).prepared()
            }
            let district = try context.geometry(wkb: row["district"])
            // Dissolving re-nodes shared edges; allow a sliver of 1e-9 of the district's area.
            if try !provinces[provinceWKB]!.geometry.covers(district) {
                let leftover = try district.difference(provinces[provinceWKB]!.geometry).area()
                if leftover > 1e-9 * (try district.area()) { outside.append(row["code"]) }
            }
        }
        #expect(outside.isEmpty, "outside their province: \(outside)")
    }

    @Test func provenanceAndMeta() throws {
        let meta = try Bundled.database().read { db in
            try Row.fetchAll(db, sql: "SELECT key, value FROM meta").reduce(into: [String: String]()) { $0[$1["key"]] = $1["value"] }
        }
        #expect(meta["schema_version"] == "3")
        #expect(meta["roqua_version"] == Roqua.version)
        #expect(meta["imported_at"]?.hasPrefix("20") == true)
        let files = try Bundled.database().info().sources.map(\.file)
        #expect(files == ["countries.shp", "provinces.shp", "tr_provinces.shp", "tr_districts.shp"])
    }
}
