import Foundation
import RoquaBoundaries
import RoquaIO
import RoquaImport
import RoquaTestSupport
import Testing

@Suite struct ImportErrorTests {
    @Test func missingSHX() throws {
        let s = try Scenario()
        try FileManager.default.removeItem(atPath: s.path("districts.shp", "shx"))
        let error = try s.failure(ShapefileError.self)
        #expect(error == .missingCompanion(file: s.path("districts.shp"), missing: "districts.shx"))
        #expect(error.description.contains(s.path("districts.shp")))
        #expect(error.description.contains("districts.shx"))
        try expectUntouched(s.existing)
    }

    @Test func missingDBF() throws {
        let s = try Scenario()
        try FileManager.default.removeItem(atPath: s.path("provinces.shp", "dbf"))
        let error = try s.failure(ShapefileError.self)
        #expect(error == .missingCompanion(file: s.path("provinces.shp"), missing: "provinces.dbf"))
        #expect(error.description.contains("provinces.dbf"))
        try expectUntouched(s.existing)
    }

    /// The last record runs past the end of the cut file: found only while importing, after the
    /// temporary DB exists, so this exercises the discard path.
    @Test func truncatedSHP() throws {
        let s = try Scenario()
        try FixtureWriter.truncate(s.path("districts.shp"), by: 24)
        let error = try s.failure(ShapefileError.self)
        guard case let .unreadableRecord(file, record, _) = error else {
            Issue.record("expected unreadableRecord, got \(error)")
            return
        }
        #expect(file == s.path("districts.shp"))
        #expect(record == 3)
        #expect(error.description.contains("districts.shp"))
        #expect(error.description.contains("record 3"))
        try expectUntouched(s.existing)
    }

    @Test func truncatedSHPWithoutExistingDatabaseLeavesNothing() throws {
        let s = try Scenario()
        try FixtureWriter.truncate(s.path("districts.shp"), by: 24)
        let out = try TempDirectory("roqua-out")
        #expect(throws: ShapefileError.self) {
            try BoundaryImporter.run(BoundaryImportOptions(sources: [s.source.path], output: out.file("new.sqlite")))
        }
        #expect(try out.contents() == [])
    }

    @Test func dbfWithFewerRecordsThanSHP() throws {
        let s = try Scenario { $0["districts.shp"].dbfRecordLimit = 2 }
        let error = try s.failure(ShapefileError.self)
        #expect(error == .recordCountMismatch(file: s.path("districts.shp"), shapes: 3, records: 2))
        #expect(error.description.contains("districts.shp"))
        try expectUntouched(s.existing)
    }

    @Test(arguments: [FixtureShapeType.point, .line])
    func notPolygons(type: FixtureShapeType) throws {
        let s = try Scenario { fixture in
            fixture["districts.shp"].type = type
            for i in fixture["districts.shp"].units.indices {
                let x = Double(i) + 1.5
                fixture["districts.shp"].units[i].shape =
                    type == .point
                    ? .point(x: x, y: 2) : .line([Shapes.ring([(x, 1), (x, 3), (x + 0.5, 3)])])
            }
        }
        let error = try s.failure(ShapefileError.self)
        #expect(error == .unsupportedShapeType(file: s.path("districts.shp"), type: type == .point ? "point" : "line"))
        #expect(error.description.contains("districts.shp"))
        try expectUntouched(s.existing)
    }

    @Test func zeroByteSHP() throws {
        let s = try Scenario()
        try Data().write(to: URL(fileURLWithPath: s.path("districts.shp")))
        let error = try s.failure(ShapefileError.self)
        #expect(error == .empty(file: s.path("districts.shp")))
        #expect(error.description.contains("districts.shp"))
        try expectUntouched(s.existing)
    }

    @Test func shapefileWithZeroShapes() throws {
        let s = try Scenario { $0["districts.shp"].units = [] }
        #expect(try FileManager.default.attributesOfItem(atPath: s.path("districts.shp"))[.size] as? Int == 100)
        let error = try s.failure(ShapefileError.self)
        #expect(error == .empty(file: s.path("districts.shp")))
        try expectUntouched(s.existing)
    }

    @Test func duplicateCodeInOneLayer() throws {
        let s = try Scenario { $0["districts.shp"].units[2].code = "D1" }
        let error = try s.failure(BoundaryImportError.self)
        #expect(
            error
                == .duplicateCode(
                    file: s.path("districts.shp"), record: 3, code: "D1",
                    first: "districts.shp record 1"))
        #expect(error.description.contains("districts.shp"))
        #expect(error.description.contains("record 3"))
        try expectUntouched(s.existing)
    }

    @Test func duplicateCodeAcrossLayers() throws {
        let s = try Scenario { $0["districts.shp"].units[1].code = "P2" }
        let error = try s.failure(BoundaryImportError.self)
        #expect(
            error
                == .duplicateCode(
                    file: s.path("districts.shp"), record: 2, code: "P2",
                    first: "provinces.shp record 2"))
        try expectUntouched(s.existing)
    }

    @Test func unknownParentCode() throws {
        let s = try Scenario { $0["districts.shp"].units[1].parent = "P9" }
        let error = try s.failure(BoundaryImportError.self)
        #expect(
            error
                == .unknownParent(
                    file: s.path("districts.shp"), record: 2, code: "D2", parent: "P9",
                    level: .province))
        #expect(error.description.contains("districts.shp"))
        #expect(error.description.contains("record 2"))
        try expectUntouched(s.existing)
    }

    /// A district whose parent code is a country, not a province.
    @Test func parentAtTheWrongLevel() throws {
        let s = try Scenario { $0["districts.shp"].units[0].parent = "XX" }
        let error = try s.failure(BoundaryImportError.self)
        #expect(
            error
                == .unknownParent(
                    file: s.path("districts.shp"), record: 1, code: "D1", parent: "XX",
                    level: .province))
        try expectUntouched(s.existing)
    }

    @Test func missingName() throws {
        let s = try Scenario { $0["provinces.shp"].units[1].name = .null }
        let error = try s.failure(BoundaryImportError.self)
        #expect(error == .missingValue(file: s.path("provinces.shp"), record: 2, field: "NAME"))
        try expectUntouched(s.existing)
    }

    /// A record whose only ring is degenerate has no polygon left.
    @Test func recordWithoutArea() throws {
        let s = try Scenario {
            $0["districts.shp"].units[1].shape = .polygon([Shapes.ring([(1, 6), (2, 7), (3, 8), (1, 6)])])
        }
        let error = try s.failure(BoundaryImportError.self)
        #expect(error == .emptyGeometry(file: s.path("districts.shp"), record: 2, code: "D2"))
        try expectUntouched(s.existing)
    }

    /// A vertex far outside the header's bounds (y = 1e200 made the subdivision recurse without
    /// end) or not a number is refused naming file, record and value.
    @Test(arguments: [(1.5, 1e200), (Double.nan, 6.5), (-1e300, 6.5)])
    func vertexOutsideTheDeclaredBounds(x: Double, y: Double) throws {
        let s = try Scenario()
        try FixtureWriter.setVertex(shp: s.path("districts.shp"), record: 2, vertex: 1, x: x, y: y)
        let error = try s.failure(ShapefileError.self)
        guard case let .vertexOutOfBounds(file, record, _, _, _) = error else {
            Issue.record("expected vertexOutOfBounds, got \(error)")
            return
        }
        #expect(file == s.path("districts.shp") && record == 2)
        #expect(
            error.description.contains("record 2") && error.description.contains(x.isNaN ? "nan" : "\(y == 6.5 ? x : y)"),
            "\(error)")
        try expectUntouched(s.existing)
    }

    @Test func shapefileNotInManifest() throws {
        let s = try Scenario { $0["districts.shp"].inManifest = false }
        let shp = s.path("districts.shp")
        let error = try s.failure(ManifestError.self, sources: [s.path("countries.shp"), shp])
        guard case let .notInManifest(file, manifest) = error else {
            Issue.record("expected notInManifest, got \(error)")
            return
        }
        #expect(URL(fileURLWithPath: file).standardizedFileURL == URL(fileURLWithPath: shp).standardizedFileURL)
        #expect(manifest == s.source.file("manifest.json"))
        #expect(error.description.contains("districts.shp"))
        try expectUntouched(s.existing)
    }

    /// The output's directory cannot be created (a file is in the way): nothing is written.
    @Test func outputDirectoryCannotBeCreated() throws {
        let s = try Scenario()
        let blocker = s.existing.directory.file("blocker")
        try Data("not a directory".utf8).write(to: URL(fileURLWithPath: blocker))
        let output = (blocker as NSString).appendingPathComponent("boundaries.sqlite")
        let error = try #require(throws: OutputError.self) {
            try BoundaryImporter.run(BoundaryImportOptions(sources: [s.source.path], output: output))
        }
        #expect(error.path == output)
        #expect(try s.existing.leftovers() == ["blocker"])
        #expect(try s.existing.currentBytes() == s.existing.original)
    }

    /// The final rename fails (the output path is a directory): the built file is removed.
    @Test func outputIsADirectory() throws {
        let s = try Scenario()
        let output = try s.existing.directory.subdirectory("taken")
        let error = try #require(throws: OutputError.self) {
            try BoundaryImporter.run(BoundaryImportOptions(sources: [s.source.path], output: output))
        }
        #expect(error.path == output)
        #expect(error.description.contains(output))
        #expect(try s.existing.leftovers() == ["taken"])
        try expectUntouched(s.existing, ignoring: ["taken"])
    }

    @Test func shapefileWithNoManifestBesideIt() throws {
        let s = try Scenario()
        try FileManager.default.removeItem(atPath: s.source.file("manifest.json"))
        let error = try s.failure(ManifestError.self, sources: [s.path("countries.shp")])
        guard case let .notInManifest(file, _) = error else {
            Issue.record("expected notInManifest, got \(error)")
            return
        }
        #expect(file.hasSuffix("/countries.shp"))
        try expectUntouched(s.existing)
    }
}
