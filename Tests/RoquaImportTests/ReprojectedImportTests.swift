import Foundation
import GRDB
import RoquaBoundaries
import RoquaImport
import RoquaTestSupport
import Testing

/// Layers in another CRS than WGS 84 are reprojected with PROJ while they are read: from their
/// `.prj`, or from the CRS the manifest names for them.
@Suite struct ReprojectedImportTests {
    static func mercator(_ ring: Ring) -> Ring { WebMercator.project(ring) }

    static let mercatorWKT = WebMercator.esriWKT

    static func boxes(_ path: String) throws -> [String: [Double]] {
        try BoundaryDatabase(path: path).read { db in
            Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT code, min_x, min_y, max_x, max_y FROM boundaries").map {
                    ($0["code"] as String, [$0["min_x"], $0["min_y"], $0["max_x"], $0["max_y"]] as [Double])
                })
        }
    }

    @Test func aMercatorLayerImportsAsTheSameShapesInDegrees() throws {
        let source = try TempDirectory(), out = try TempDirectory()
        var fixture = AdminFixture.standard()
        for file in ["countries.shp", "provinces.shp", "districts.shp"] {
            fixture[file].units = fixture[file].units.map { unit in
                var unit = unit
                if case .polygon(let rings) = unit.shape { unit.shape = .polygon(rings.map(Self.mercator)) }
                return unit
            }
        }
        // The districts say it in their .prj (ESRI WKT); the others have none, and the manifest names it.
        fixture["districts.shp"].projection = .custom(Self.mercatorWKT)
        for file in ["countries.shp", "provinces.shp"] {
            fixture[file].projection = nil
            fixture[file].manifestCRS = "EPSG:3857"
        }
        try fixture.write(in: source.path)
        _ = try BoundaryImporter.run(BoundaryImportOptions(sources: [source.path], output: out.file("b.sqlite")))
        let boxes = try Self.boxes(out.file("b.sqlite"))
        let expected: [String: [Double]] = [
            "XX": [0, 0, 10, 10], "P1": [0, 0, 5, 10], "P2": [5, 0, 10, 10],
            "D1": [1, 1, 4, 4], "D2": [1, 6, 4, 9], "D3": [6, 1, 9, 4],
        ]
        for (code, box) in expected {
            let stored = try #require(boxes[code], "\(code) missing")
            #expect(zip(stored, box).allSatisfy { abs($0 - $1) < 1e-7 }, "\(code): \(stored)")
        }
        let sources = try BoundaryDatabase(path: out.file("b.sqlite")).info().sources
        #expect(sources.count == 3)
    }

    @Test func metresWithoutACRSAreRefusedWithTheHint() throws {
        let s = try Scenario { fixture in
            fixture["districts.shp"].projection = nil
            fixture["districts.shp"].units[0].shape = .polygon([Shapes.square(x: 500_000, y: 4_500_000, size: 1000)])
        }
        let error = try s.failure(ShapefileError.self)
        #expect(error.description.contains("districts.shp") && error.description.contains("--crs EPSG:NNNN"), "\(error)")
        try expectUntouched(s.existing)
    }

    @Test func aPrjPROJCannotReadIsNamed() throws {
        let s = try Scenario { $0["provinces.shp"].projection = .custom(#"PROJCS["broken",GEOGCS["nothing"#) }
        let error = try s.failure(ShapefileError.self)
        guard case let .badCRS(file, reason) = error else {
            Issue.record("expected badCRS, got \(error)")
            return
        }
        #expect(file == s.path("provinces.shp", "prj") && reason.contains("CRS"), "\(reason)")
        try expectUntouched(s.existing)
    }
}

/// A layer whose file names no parent: each unit's parent is the unit of the level above that
/// holds a point inside it.
@Suite struct ParentInferenceTests {
    static func parents(_ path: String) throws -> [String: String] {
        try BoundaryDatabase(path: path).read { db in
            Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(
                    db,
                    sql: """
                        SELECT b.code, p.code AS parent FROM boundaries b JOIN boundaries p ON p.id = b.parent_id
                        """
                ).map { ($0["code"] as String, $0["parent"] as String) })
        }
    }

    @Test func parentsAreInferredFromWhereTheUnitsLie() throws {
        let source = try TempDirectory(), out = try TempDirectory()
        var fixture = AdminFixture.standard()
        fixture["districts.shp"].parentInManifest = false
        fixture["provinces.shp"].parentInManifest = false
        // The file's own parent values are wrong: they are not read.
        fixture["districts.shp"].units[2].parent = .text("P1")
        try fixture.write(in: source.path)
        _ = try BoundaryImporter.run(BoundaryImportOptions(sources: [source.path], output: out.file("b.sqlite")))
        #expect(try Self.parents(out.file("b.sqlite")) == ["P1": "XX", "P2": "XX", "D1": "P1", "D2": "P1", "D3": "P2"])
    }

    @Test func unitsOutsideEveryParentAreListedAndNothingIsWritten() throws {
        let s = try Scenario { fixture in
            fixture["districts.shp"].parentInManifest = false
            fixture["districts.shp"].units[1].shape = .polygon([Shapes.square(x: 20, y: 20, size: 1)])
        }
        let error = try s.failure(BoundaryImportError.self)
        guard case let .orphans(file, level, records) = error else {
            Issue.record("expected orphans, got \(error)")
            return
        }
        #expect(file == s.path("districts.shp") && level == .province && records == ["record 2 (D2 Beta)"])
        #expect(error.description.contains("no parent can be inferred"))
        try expectUntouched(s.existing)
    }
}

/// A unit on a border belongs to the parent holding its largest part; one outside every parent is
/// kept under its country when the layer allows orphans.
@Suite struct ParentOverlapTests {
    @Test func aUnitAcrossABorderGoesWhereMostOfItLies() throws {
        let source = try TempDirectory(), out = try TempDirectory()
        var fixture = AdminFixture.standard()
        fixture["districts.shp"].parentInManifest = false
        // A "C": its bar in P1 (x 4…5, where its point on surface falls), its two arms mostly in P2
        // (8 units of area in P1, 16 in P2).
        let c = Ring(xs: [4, 4, 9, 9, 5, 5, 9, 9, 4], ys: [1, 9, 9, 7, 7, 3, 3, 1, 1])
        fixture["districts.shp"].units[0].shape = .polygon([c])
        try fixture.write(in: source.path)
        _ = try BoundaryImporter.run(BoundaryImportOptions(sources: [source.path], output: out.file("b.sqlite")))
        #expect(try ParentInferenceTests.parents(out.file("b.sqlite"))["D1"] == "P2")
    }

    @Test func orphansAreKeptUnderTheirCountryWhenAllowed() throws {
        let source = try TempDirectory(), out = try TempDirectory()
        var fixture = AdminFixture.standard()
        // P2 now covers only the lower half of the east: D4 (6…9, 6…9) lies in the country, in no province.
        fixture["provinces.shp"].units[1].shape = .polygon([Shapes.rectangle(minX: 5, minY: 0, maxX: 10, maxY: 5)])
        fixture["districts.shp"].parentInManifest = false
        fixture["districts.shp"].units.append(
            FixtureUnit(
                code: "D4", name: "Delta", parent: "P2",
                rings: [Shapes.square(x: 6, y: 6, size: 3)]))
        try fixture.write(in: source.path)
        #expect(throws: BoundaryImportError.self) {
            try BoundaryImporter.run(BoundaryImportOptions(sources: [source.path], output: out.file("refused.sqlite")))
        }
        fixture["districts.shp"].allowOrphans = true
        try fixture.write(in: source.path)
        var warnings: [String] = []
        _ = try BoundaryImporter.run(BoundaryImportOptions(sources: [source.path], output: out.file("b.sqlite"))) { event in
            if case let .warning(text) = event { warnings.append(text) }
        }
        #expect(try ParentInferenceTests.parents(out.file("b.sqlite"))["D4"] == "XX")
        #expect(warnings.contains { $0.contains("record 4 (D4 Delta)") && $0.contains("kept under XX") }, "\(warnings)")
    }
}

/// Parents settled by codes that nest under them (`ParentConsensus`), and left alone where they do not.
@Suite struct ParentConsensusTests {
    typealias Candidate = ParentConsensus.Candidate

    /// Ten Tokyo wards, ten Saitama towns; `odd` (a Saitama town on the border) lies mostly in
    /// the coarse layer's Tokyo.
    static func wards(odd: [Candidate]) -> (codes: [String], candidates: [[Candidate]]) {
        let codes = (1...10).map { "131\(String(format: "%02d", $0))" } + (1...10).map { "112\(String(format: "%02d", $0))" }
        var candidates = codes.map { [Candidate(parent: $0.hasPrefix("13") ? "JP-13" : "JP-11", share: 1)] }
        candidates[19] = odd
        return (codes, candidates)
    }

    @Test func aBorderUnitTakesTheParentItsCodeShares() {
        let (codes, candidates) = Self.wards(odd: [Candidate(parent: "JP-13", share: 0.7), Candidate(parent: "JP-11", share: 0.3)])
        let outcome = ParentConsensus.settle(codes: codes, candidates: candidates)
        #expect(outcome.parents[19] == "JP-11" && outcome.settledByCode == [19] && outcome.prefixLength == 2)
        #expect(outcome.parents[0] == "JP-13" && outcome.parents[10] == "JP-11")
        // Lying wholly in the coarse Tokyo but within reach of Saitama (a candidate with no area): still settled.
        let near = Self.wards(odd: [Candidate(parent: "JP-13", share: 1), Candidate(parent: "JP-11", share: 0)])
        #expect(ParentConsensus.settle(codes: near.codes, candidates: near.candidates).parents[19] == "JP-11")
    }

    @Test func aUnitFarFromItsGroupsParentKeepsItsOwn() {
        let (codes, candidates) = Self.wards(odd: [Candidate(parent: "JP-13", share: 1)])
        let outcome = ParentConsensus.settle(codes: codes, candidates: candidates)
        #expect(outcome.parents[19] == "JP-13" && outcome.settledByCode.isEmpty)
    }

    @Test func codesThatDoNotNestChangeNothing() {
        // Sequential ids across two provinces, alternating: no prefix groups them by parent.
        let codes = (1...20).map { String(format: "%03d", $0) }
        var candidates = codes.indices.map { [Candidate(parent: $0 % 2 == 0 ? "A" : "B", share: 1)] }
        candidates[3] = [Candidate(parent: "A", share: 0.6), Candidate(parent: "B", share: 0.4)]
        let outcome = ParentConsensus.settle(codes: codes, candidates: candidates)
        #expect(outcome.prefixLength == nil && outcome.settledByCode.isEmpty)
        #expect(outcome.parents == candidates.map { $0.first?.parent })
        // One parent for (nearly) all: nothing to learn from the codes, a minority unit keeps its own.
        let single = (0..<20).map {
            [Candidate(parent: $0 == 5 ? "B" : "A", share: 1)] + ($0 == 5 ? [Candidate(parent: "A", share: 0)] : [])
        }
        let alone = ParentConsensus.settle(codes: codes, candidates: single)
        #expect(alone.parents[5] == "B" && alone.settledByCode.isEmpty)
    }

    @Test func aUnitWithNoParentNearStaysAnOrphan() {
        var (codes, candidates) = Self.wards(odd: [])
        codes[19] = "11210"
        #expect(ParentConsensus.settle(codes: codes, candidates: candidates).parents[19] == nil)
        candidates[19] = [Candidate(parent: "JP-11", share: 0)]
        #expect(
            ParentConsensus.settle(codes: codes, candidates: candidates).parents[19] == "JP-11",
            "near its group's parent, with no area in any: settled")
    }
}

@Suite struct AddedLayerFieldTests {
    @Test func obviousFieldsAreGuessedAndNamedOnesChecked() throws {
        var request = AddedLayers.Request(file: "adm2.shp", level: .district)
        let geoBoundaries = try AddedLayers.fields(request, available: ["shapeName", "shapeISO", "shapeID", "shapeGroup", "shapeType"])
        #expect(geoBoundaries.code == "shapeID" && geoBoundaries.name == "shapeName")
        let gadm = try AddedLayers.fields(request, available: ["GID_0", "NAME_0", "GID_1", "NAME_1", "GID_2", "NAME_2"])
        #expect(gadm.code == "GID_2" && gadm.name == "NAME_2", "the deepest level")
        let counties = try AddedLayers.fields(request, available: ["AREA", "NAME", "FIPS", "CNTY_ID"])
        #expect(counties.code == "FIPS" && counties.name == "NAME")
        request.code = "cnty_id"
        request.parent = "STATE"
        #expect(throws: AddedLayers.Failure.self) { try AddedLayers.fields(request, available: ["NAME", "CNTY_ID"]) }
        request.parent = nil
        #expect(try AddedLayers.fields(request, available: ["NAME", "CNTY_ID"]).code == "CNTY_ID", "case-insensitive")
        // Fields named like these are taken too (libpysal's Tokyo and Georgia examples), and a file with no
        // name field gets its codes as names.
        let plain = AddedLayers.Request(file: "tokyomet262.shp", level: .district)
        let tokyo = try AddedLayers.fields(plain, available: ["GEOCODE", "AREANAME", "AreaID"])
        #expect(tokyo.code == "GEOCODE" && tokyo.name == "AREANAME")
        let georgia = try AddedLayers.fields(plain, available: ["AREA", "PERIMETER", "G_UTM_", "G_UTM_ID", "TotPop90", "AreaKey"])
        #expect(georgia.code == "AreaKey" && georgia.name == "AreaKey")
        #expect(throws: AddedLayers.Failure.self) { try AddedLayers.fields(plain, available: ["AREA", "PERIMETER"]) }
    }
}
