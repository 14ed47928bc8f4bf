import Foundation
import GRDB
import RoquaBoundaries
import RoquaIO
import RoquaImport
import RoquaTestSupport
import Testing

/// The standard fixture plus: a hole in D1, a counter-clockwise-only D2, a bow-tie D4 (record 4,
/// repaired) and a 2000-vertex circle D5 (record 5), imported with 64-vertex pieces.
struct ImportedFixture {
    static let maxPieceVertices = 64
    static let circleVertices = 2000
    static let circleRadius = 1.5

    let source: TempDirectory
    let out: TempDirectory
    let fixture: AdminFixture
    let report: ImportReport
    let database: BoundaryDatabase

    init() throws {
        source = try TempDirectory("roqua-fixture")
        out = try TempDirectory("roqua-out")
        var fixture = AdminFixture.standard()
        fixture["districts.shp"].units[0].shape = .polygon([
            Shapes.square(x: 1, y: 1, size: 3), Shapes.square(x: 2, y: 2, size: 1, clockwise: false),
        ])
        fixture["districts.shp"].units[1].shape = .polygon([Shapes.square(x: 1, y: 6, size: 3, clockwise: false)])
        fixture["districts.shp"].units += [
            FixtureUnit(code: "D4", name: "Delta", parent: "P2", rings: [Shapes.bowTie(x: 6, y: 6, size: 2)]),
            FixtureUnit(
                code: "D5", name: "Epsilon", parent: "P2",
                rings: [
                    Shapes.circle(centerX: 7.5, centerY: 5, radius: Self.circleRadius, vertices: Self.circleVertices)
                ]),
        ]
        try fixture.write(in: source.path)
        self.fixture = fixture
        report = try BoundaryImporter.run(
            BoundaryImportOptions(
                sources: [source.path], output: out.file("boundaries.sqlite"),
                maxPieceVertices: Self.maxPieceVertices, maxPieceDegrees: 360))
        database = try BoundaryDatabase(path: out.file("boundaries.sqlite"))
    }

    func geometry(code: String, context: GEOSContext) throws -> Geometry {
        let wkb = try database.read { db in
            try Data.fetchOne(db, sql: "SELECT geometry FROM boundaries WHERE code = ?", arguments: [code])
        }
        return try context.geometry(wkb: try #require(wkb))
    }
}

@Suite struct ImportFixtureTests {
    let imported: ImportedFixture
    let context = GEOSContext()

    init() throws { imported = try ImportedFixture() }

    @Test func countsPerLevel() throws {
        #expect(imported.report.counts == [.country: 1, .province: 2, .district: 5])
        let levels = try imported.database.read { db in
            try Row.fetchAll(db, sql: "SELECT level, COUNT(*) AS n FROM boundaries GROUP BY level ORDER BY level")
                .map { [$0["level"] as Int, $0["n"] as Int] }
        }
        #expect(levels == [[0, 1], [1, 2], [2, 5]])
        #expect(try imported.database.info().levels == ["country": 1, "province": 2, "district": 5])
        #expect(try imported.out.contents() == ["boundaries.sqlite"])
    }

    @Test func parentLinks() throws {
        let rows = try imported.database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT b.code, b.level, b.country_code, p.code AS parent, p.level AS parent_level
                    FROM boundaries b LEFT JOIN boundaries p ON p.id = b.parent_id ORDER BY b.code
                    """)
        }
        let parents = Dictionary(uniqueKeysWithValues: rows.map { ($0["code"] as String, $0["parent"] as String?) })
        #expect(parents == ["XX": nil, "P1": "XX", "P2": "XX", "D1": "P1", "D2": "P1", "D3": "P2", "D4": "P2", "D5": "P2"])
        for row in rows {
            #expect(row["country_code"] as String == "XX")
            if let parentLevel = row["parent_level"] as Int? {
                #expect(parentLevel == (row["level"] as Int) - 1, "\(row["code"] as String)")
            }
        }
    }

    @Test func namesAndFallbacks() throws {
        let rows = try imported.database.read { db in
            try Row.fetchAll(db, sql: "SELECT code, name, name_en, name_tr FROM boundaries WHERE code IN ('XX', 'D3')")
        }
        let byCode = Dictionary(uniqueKeysWithValues: rows.map { ($0["code"] as String, $0) })
        #expect(byCode["XX"]?["name_tr"] == "Test Ülkesi")
        // NAME_EN and NAME_TR are NULL for D3: both fall back to NAME.
        #expect(byCode["D3"]?["name"] == "Gamma")
        #expect(byCode["D3"]?["name_en"] == "Gamma")
        #expect(byCode["D3"]?["name_tr"] == "Gamma")
    }

    @Test func holeIsKeptAndOrientationIsForgiven() throws {
        #expect(try imported.geometry(code: "D1", context: context).area() == 8)
        #expect(try imported.geometry(code: "D2", context: context).area() == 9)
        let warnings = imported.report.warnings.filter { $0.contains("(D2 ") }
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("districts.shp record 2") == true)
        #expect(warnings.first?.contains("counter-clockwise") == true)
    }

    @Test func bowTieIsRepairedWithAWarningNamingTheRecord() throws {
        let warnings = imported.report.warnings.filter { $0.contains("record 4") }
        #expect(warnings.count == 1)
        let warning = try #require(warnings.first)
        #expect(warning.contains("districts.shp"))
        #expect(warning.contains("D4"))
        #expect(warning.contains("invalid polygon"))
        #expect(imported.report.warnings.count == 2)
        let delta = try imported.geometry(code: "D4", context: context)
        #expect(try delta.isValid())
        // Two triangles, 0.1 and 1.6 square degrees (lobes of the 2° bow-tie).
        #expect(abs(try delta.area() - 1.7) < 1e-9)
        #expect(delta.partCount == 2)
    }

    @Test func boundaryBoxesAndVertexCounts() throws {
        let rows = try imported.database.read { db in
            try Row.fetchAll(db, sql: "SELECT code, min_x, min_y, max_x, max_y, vertex_count, geometry FROM boundaries")
        }
        for row in rows {
            let geometry = try context.geometry(wkb: row["geometry"])
            let box = try geometry.bounds()
            #expect(box == BoundingBox(minX: row["min_x"], minY: row["min_y"], maxX: row["max_x"], maxY: row["max_y"]))
            #expect(geometry.coordinateCount == row["vertex_count"] as Int)
            #expect(try geometry.isValid(), "\(row["code"] as String)")
        }
    }

    /// Every piece is in the R*Tree under its own id, with a box that holds the piece.
    @Test func rtreeBoxesContainTheirPieces() throws {
        let rows = try imported.database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT p.id, p.min_x, p.min_y, p.max_x, p.max_y, p.vertex_count, p.geometry,
                           i.min_x AS r_min_x, i.min_y AS r_min_y, i.max_x AS r_max_x, i.max_y AS r_max_y
                    FROM pieces p LEFT JOIN piece_index i ON i.id = p.id
                    """)
        }
        let indexed = try imported.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM piece_index") }
        #expect(rows.count == imported.report.pieces)
        #expect(indexed == rows.count)
        for row in rows {
            let id = row["id"] as Int64
            let geometry = try context.geometry(wkb: row["geometry"])
            let box = try geometry.bounds()
            #expect(box == BoundingBox(minX: row["min_x"], minY: row["min_y"], maxX: row["max_x"], maxY: row["max_y"]))
            #expect(geometry.coordinateCount == row["vertex_count"] as Int)
            let rtreeMinX = try #require(row["r_min_x"] as Double?, "piece \(id) is not in the R*Tree")
            let rtreeBox = BoundingBox(minX: rtreeMinX, minY: row["r_min_y"], maxX: row["r_max_x"], maxY: row["r_max_y"])
            #expect(rtreeBox.contains(box), "piece \(id): R*Tree \(rtreeBox) does not hold \(box)")
        }
    }

    @Test func bigPolygonIsSplitIntoPiecesThatTileIt() throws {
        let (vertexCounts, wkbs) = try imported.database.read { db in
            let id = try Int64.fetchOne(db, sql: "SELECT id FROM boundaries WHERE code = 'D5'")
            let wkbs = try Data.fetchAll(db, sql: "SELECT geometry FROM pieces WHERE boundary_id = ?", arguments: [id])
            let counts = try Int.fetchAll(db, sql: "SELECT vertex_count FROM pieces WHERE boundary_id = ?", arguments: [id])
            return (counts, wkbs)
        }
        let circle = try imported.geometry(code: "D5", context: context)
        #expect(circle.coordinateCount == ImportedFixture.circleVertices + 1)
        let expected = Shapes.circleArea(radius: ImportedFixture.circleRadius, vertices: ImportedFixture.circleVertices)
        let area = try circle.area()
        #expect(abs(area - expected) < 1e-9 * expected)

        #expect(vertexCounts.count >= ImportedFixture.circleVertices / ImportedFixture.maxPieceVertices)
        #expect(vertexCounts.allSatisfy { $0 <= ImportedFixture.maxPieceVertices })
        let pieces = try wkbs.map { try context.geometry(wkb: $0) }
        let summed = try pieces.reduce(0) { $0 + (try $1.area()) }
        #expect(abs(summed - area) < 1e-9 * area, "pieces add up to \(summed), the polygon is \(area)")
        // Nothing of the polygon is left once every piece is taken away, and no piece reaches
        // outside it: the pieces cover it exactly, and with the equal sum they do not overlap.
        var rest = circle
        for piece in pieces { rest = try rest.difference(piece) }
        #expect(try rest.area() < 1e-9 * area)
        let outside = try pieces.reduce(0) { $0 + (try $1.difference(circle).area()) }
        #expect(outside < 1e-9 * area)
    }

    @Test func smallPolygonsAreOnePieceEach() throws {
        let counts = try imported.database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT b.code, COUNT(p.id) AS n FROM boundaries b JOIN pieces p ON p.boundary_id = b.id
                    WHERE b.code != 'D5' GROUP BY b.code
                    """
            ).map { ($0["code"] as String, $0["n"] as Int) }
        }
        #expect(counts.count == 7)
        for (code, n) in counts { #expect(n == 1, "\(code) has \(n) pieces") }
    }

    @Test func bigSimplePolygonsAreCutIntoPiecesOfAtMostTheDegreeLimit() throws {
        let directory = try TempDirectory()
        try AdminFixture.standard().write(in: directory.path)
        let output = directory.file("b.sqlite")
        _ = try BoundaryImporter.run(BoundaryImportOptions(sources: [directory.path], output: output, maxPieceDegrees: 4))
        let context = GEOSContext()
        let pieces = try BoundaryDatabase(path: output).read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT p.geometry, p.max_x - p.min_x AS w, p.max_y - p.min_y AS h FROM pieces p
                    JOIN boundaries b ON b.id = p.boundary_id WHERE b.code = 'XX'
                    """)
        }
        // The 10° country square: cut until no piece is wider or taller than 4°, nothing lost.
        #expect(pieces.count >= 9)
        #expect(pieces.allSatisfy { ($0["w"] as Double) <= 4 && ($0["h"] as Double) <= 4 })
        let area = try pieces.reduce(0.0) { $0 + (try context.geometry(wkb: $1["geometry"]).area()) }
        #expect(abs(area - 100) < 1e-9)
    }

    @Test func provenance() throws {
        let sources = try imported.database.read { db in try Row.fetchAll(db, sql: "SELECT * FROM sources ORDER BY id") }
        #expect(sources.map { $0["layer"] as String } == ["countries", "provinces", "districts"])
        for (row, layer) in zip(sources, imported.fixture.layers) {
            let shp = layer.path(in: imported.source.path)
            #expect(row["file"] as String == layer.file)
            #expect(row["shp_sha256"] as String == (try SHA256.hex(ofFile: shp)))
            #expect(row["shx_sha256"] as String == (try SHA256.hex(ofFile: layer.path(in: imported.source.path, extension: "shx"))))
            #expect(row["dbf_sha256"] as String == (try SHA256.hex(ofFile: layer.path(in: imported.source.path, extension: "dbf"))))
            #expect(row["features"] as Int == layer.units.count)
            #expect(row["encoding"] as String == "UTF-8")
            #expect(row["description"] as String == layer.source)
            #expect(row["licence"] as String == layer.licence)
            #expect(row["level"] as Int == AdminLevel(name: layer.level)?.rawValue)
        }
        // Every boundary points back at its file and record.
        let origins = try imported.database.read { db in
            try Row.fetchAll(db, sql: "SELECT b.code, b.source_record, s.layer FROM boundaries b JOIN sources s ON s.id = b.source_id")
                .map { "\($0["layer"] as String)#\($0["source_record"] as Int) \($0["code"] as String)" }
        }
        #expect(
            Set(origins) == [
                "countries#1 XX", "provinces#1 P1", "provinces#2 P2", "districts#1 D1",
                "districts#2 D2", "districts#3 D3", "districts#4 D4", "districts#5 D5",
            ])
    }

    @Test func meta() throws {
        let meta = try imported.database.read { db in
            Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT key, value FROM meta")
                    .map { ($0["key"] as String, $0["value"] as String) })
        }
        #expect(meta["schema_version"] == "3")
        #expect(meta["piece_max_vertices"] == "\(ImportedFixture.maxPieceVertices)")
        #expect(meta["roqua_version"] == Roqua.version)
        let importedAt = try #require(meta["imported_at"])
        #expect(ISO8601DateFormatter().date(from: importedAt) != nil)
        #expect(try imported.database.info().schemaVersion == 3)
    }
}

@Suite struct ImportSourcesTests {
    /// Shapefiles given one by one, narrowest first, are found in the manifest beside them and
    /// imported widest level first.
    @Test func shapefilesAsSourcesInAnyOrder() throws {
        let source = try TempDirectory(), out = try TempDirectory()
        let fixture = AdminFixture.standard()
        try fixture.write(in: source.path)
        let files = ["districts.shp", "countries.shp", "provinces.shp"].map { fixture[$0].path(in: source.path) }
        let report = try BoundaryImporter.run(BoundaryImportOptions(sources: files, output: out.file("b.sqlite")))
        #expect(report.counts == [.country: 1, .province: 2, .district: 3])
        let layers = try BoundaryDatabase(path: out.file("b.sqlite")).info().sources.map(\.layer)
        #expect(layers == ["countries", "provinces", "districts"])
    }

    /// A successful import replaces an existing DB and leaves no temporary file.
    @Test func importReplacesAnExistingDatabase() throws {
        let existing = try ExistingDatabase()
        let source = try TempDirectory()
        var fixture = AdminFixture.standard()
        fixture["districts.shp"].units.removeLast()
        try fixture.write(in: source.path)
        _ = try BoundaryImporter.run(BoundaryImportOptions(sources: [source.path], output: existing.path))
        #expect(try existing.currentBytes() != existing.original)
        #expect(try existing.leftovers() == [])
        #expect(try BoundaryDatabase(path: existing.path).info().levels["district"] == 2)
    }
}
