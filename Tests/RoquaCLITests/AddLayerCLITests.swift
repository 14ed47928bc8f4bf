import Foundation
import GRDB
import RoquaBoundaries
import RoquaTestSupport
import Testing

/// `roqua import --add`: a user's own layer, in one command, no manifest.
@Suite struct AddLayerCLITests {
    let roqua = ProductsDirectory.product("roqua")

    /// Web Mercator, computed independently of PROJ.
    static func mercator(_ ring: Ring) -> Ring { WebMercator.project(ring) }

    /// A base dataset (the standard fixture's country and provinces), a data home, and a user's
    /// ward layer: Web Mercator with no .prj, Shift-JIS names marked only by LDID 19, no parent field.
    struct Setup {
        let directory: TempDirectory
        var base: String { directory.file("base") }
        var wards: String { directory.file("user/wards.shp") }
        var out: String { directory.file("b.sqlite") }
        var environment: [String: String] {
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_DATA_HOME"] = directory.file("xdg")
            return environment
        }

        init(outsideUnit: Bool = false) throws {
            directory = try TempDirectory()
            var fixture = AdminFixture.standard()
            fixture.layers.removeAll { $0.file == "districts.shp" }
            try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
            try fixture.write(in: base)
            try FileManager.default.createDirectory(atPath: directory.file("user"), withIntermediateDirectories: true)
            let shinjuku: [UInt8] = [144, 86, 143, 104, 139, 230]  // 新宿区 in Shift-JIS
            let records = [
                FixtureRecord(.polygon([mercator(Shapes.square(x: 1, y: 1, size: 3))]), ["JCODE": "13104", "WARD_JA": .bytes(shinjuku)]),
                FixtureRecord(
                    .polygon([mercator(Shapes.square(x: outsideUnit ? 20 : 6, y: 1, size: 3))]),
                    ["JCODE": "13101", "WARD_JA": "Chiyoda"]),
            ]
            try FixtureWriter.write(
                base: String(wards.dropLast(4)), fields: ["JCODE", "WARD_JA"], records: records,
                codePage: "LDID/19", projection: nil)
        }

        func run(_ arguments: [String]) throws -> CommandResult {
            try CommandRunner.run(
                ProductsDirectory.product("roqua"), ["import", "--from", base, "--out", out] + arguments,
                environment: environment)
        }

        func units() throws -> [String: [String]] {
            try DatabaseQueue(path: out).read { db in
                Dictionary(
                    uniqueKeysWithValues: try Row.fetchAll(
                        db,
                        sql: """
                            SELECT b.code, b.name, COALESCE(p.code, '') AS parent FROM boundaries b LEFT JOIN boundaries p ON p.id = b.parent_id
                            """
                    ).map { ($0["code"] as String, [$0["name"] as String, $0["parent"] as String]) })
            }
        }
    }

    @Test func aProjectedShiftJISLayerWithoutParentsIsAddedInOneCommand() throws {
        let s = try Setup()
        #expect(try s.run([]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: s.out))
        let dry = try s.run([
            "--add", s.wards, "--level", "district", "--code", "JCODE", "--name", "WARD_JA", "--crs", "EPSG:3857", "--dry-run",
        ])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(
            dry.stdout.contains(
                "Would add wards as districts: 2 features, code JCODE, name WARD_JA, CRS WGS 84 / Pseudo-Mercator, "
                    + "encoding CP932, extent 1.0000,1.0000 – 9.0000,4.0000, under 2 provinces (inferred)"), "\(dry.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: s.out)) == before, "--dry-run writes nothing")
        let countries = try s.run([
            "--add", s.wards, "--level", "country", "--code", "JCODE", "--name", "WARD_JA", "--crs", "EPSG:3857",
            "--dry-run",
        ])
        #expect(countries.stdout.contains("Would add wards as countries: 2 features"), "\(countries.stdout) \(countries.stderr)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: s.directory.file("xdg/roqua/layers"))) ?? []).isEmpty)
        let added = try s.run(["--add", s.wards, "--level", "district", "--code", "JCODE", "--name", "WARD_JA", "--crs", "EPSG:3857"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("Adding wards as districts: code JCODE, name WARD_JA, parents inferred"), "\(added.stdout)")
        let units = try s.units()
        #expect(units["13104"] == ["新宿区", "P1"] && units["13101"] == ["Chiyoda", "P2"], "\(units)")
        // Provenance: where it came from, when, its CRS, code page and fields.
        let info = try CommandRunner.run(roqua, ["info", "--boundaries", s.out], environment: s.environment)
        #expect(info.stdout.contains("wards.shp (district, 2 features, CP932, from WGS 84 / Pseudo-Mercator)"), "\(info.stdout)")
        #expect(info.stdout.contains("added with roqua import --add from \(s.wards) on 20"), "\(info.stdout)")
        #expect(info.stdout.contains("fields: code JCODE, name WARD_JA, parent inferred"), "\(info.stdout)")
        // Kept for every later import: a plain rebuild still has the wards.
        #expect(try s.run([]).status == 0)
        #expect(try s.units()["13104"] == ["新宿区", "P1"])
        // Added twice: refused without --replace, fine with it.
        let again = try s.run(["--add", s.wards, "--level", "district", "--code", "JCODE", "--name", "WARD_JA", "--crs", "EPSG:3857"])
        #expect(again.status != 0 && again.stderr.contains("--replace"), "\(again.stderr)")
        #expect(
            try s.run([
                "--add", s.wards, "--level", "district", "--code", "JCODE", "--name", "WARD_JA", "--crs", "EPSG:3857",
                "--replace",
            ]).status == 0)
        // Taken out again: the districts are gone.
        let removed = try s.run(["--remove-layer", "wards"])
        #expect(removed.status == 0 && removed.stdout.contains("Removed wards"), "\(removed.stderr)")
        #expect(try s.units()["13104"] == nil)
        let unknown = try s.run(["--remove-layer", "wards"])
        #expect(unknown.status != 0 && unknown.stderr.contains("no added layer named wards"), "\(unknown.stderr)")
    }

    /// Into the user's own database (no --out): regions stored before are named again, so a walk
    /// imported before the districts existed counts in them.
    @Test func storedRegionsAreNamedAgainFromTheAddedLayer() throws {
        let s = try Setup()
        var environment = s.environment
        environment["ROQUA_BOUNDARIES"] = s.out
        environment["ROQUA_STORE"] = s.directory.file("regions.sqlite")
        func roqua(_ arguments: [String]) throws -> CommandResult {
            try CommandRunner.run(ProductsDirectory.product("roqua"), arguments, environment: environment)
        }
        #expect(try roqua(["import", "--from", s.base]).status == 0)
        try "lat,lon,timestamp\n2.5,2.5,2024-05-01T10:00:00Z\n".write(
            toFile: s.directory.file("walk.csv"), atomically: true, encoding: .utf8)
        let walk = try roqua(["track", "import", s.directory.file("walk.csv")])
        #expect(walk.status == 0, "\(walk.stderr)")
        #expect(try roqua(["regions", "list"]).stdout.contains("West, Testland"))
        let added = try roqua([
            "import", "--from", s.base, "--add", s.wards, "--level", "district", "--code", "JCODE",
            "--name", "WARD_JA", "--crs", "EPSG:3857",
        ])
        #expect(
            added.status == 0 && added.stdout.contains("Named 1 stored region(s) again from the new boundaries; 1 changed"),
            "\(added.stdout) \(added.stderr)")
        let listed = try roqua(["regions", "list"]).stdout
        #expect(listed.contains("新宿区, West, Testland"), "\(listed)")
    }

    /// A geoBoundaries-style GeoJSON: `shapeName`/`shapeID` guessed, the legacy `crs` member read,
    /// polygons and multipolygons with GeoJSON's ring orientation.
    @Test func aGeoJSONFeatureCollectionIsAddedWithItsFieldsGuessed() throws {
        let s = try Setup()
        func ring(_ x: Double, _ y: Double, _ size: Double) -> String {
            let m = Self.mercator(Ring(xs: [x, x + size, x + size, x, x], ys: [y, y, y + size, y + size, y]))  // counter-clockwise
            return "[" + zip(m.xs, m.ys).map { "[\($0),\($1)]" }.joined(separator: ",") + "]"
        }
        let geojson = """
            {"type":"FeatureCollection","crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::3857"}},"features":[
             {"type":"Feature","properties":{"shapeName":"Shinjuku","shapeID":"JPN-ADM2-1","shapeGroup":"JPN","population":346235},
              "geometry":{"type":"Polygon","coordinates":[\(ring(1, 1, 3))]}},
             {"type":"Feature","properties":{"shapeName":"Ogasawara","shapeID":"JPN-ADM2-2","shapeGroup":"JPN"},
              "geometry":{"type":"MultiPolygon","coordinates":[[\(ring(6, 1, 1))],[\(ring(8, 2, 1))]]}}]}
            """
        let path = s.directory.file("user/adm2.geojson")
        try geojson.write(toFile: path, atomically: true, encoding: .utf8)
        let added = try s.run(["--add", path, "--level", "district"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("Adding adm2 as districts: code shapeID, name shapeName, parents inferred"), "\(added.stdout)")
        let units = try s.units()
        #expect(units["JPN-ADM2-1"] == ["Shinjuku", "P1"] && units["JPN-ADM2-2"] == ["Ogasawara", "P2"], "\(units)")
        // A point is no boundary: named, nothing kept.
        try geojson.replacingOccurrences(
            of: #"{"type":"Polygon","coordinates":[\#(ring(1, 1, 3))]}"#,
            with: #"{"type":"Point","coordinates":[1,1]}"#
        )
        .write(toFile: s.directory.file("user/points.geojson"), atomically: true, encoding: .utf8)
        let point = try s.run(["--add", s.directory.file("user/points.geojson"), "--level", "district"])
        #expect(point.status != 0 && point.stderr.contains("points.geojson: feature 1 is a Point"), "\(point.stderr)")
    }

    /// A GeoJSON in metres without a CRS: refused naming the user's file (not the converted copy)
    /// and the flag that fixes it; with `--crs`, a dry run reads the converted copy and says
    /// what the layer would be, adding nothing.
    @Test func aProjectedGeoJSONIsNamedAndCanBeDryRun() throws {
        let s = try Setup()
        let m = Self.mercator(Ring(xs: [1, 4, 4, 1, 1], ys: [1, 1, 4, 4, 1]))
        let ring = "[" + zip(m.xs, m.ys).map { "[\($0),\($1)]" }.joined(separator: ",") + "]"
        let path = s.directory.file("user/kare.geojson")
        try """
        {"type":"FeatureCollection","features":[{"type":"Feature","properties":{"KOD":"K1","AD":"Kare"},
         "geometry":{"type":"Polygon","coordinates":[\(ring)]}}]}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let refused = try s.run(["--add", path, "--level", "district", "--code", "KOD", "--name", "AD"])
        #expect(
            refused.status != 0 && refused.stderr.contains("\(path): coordinates are not longitude/latitude degrees"), "\(refused.stderr)")
        #expect(
            refused.stderr.contains("(--crs EPSG:NNNN)") && !refused.stderr.contains("roqua-add-") && !refused.stderr.contains("manifest"),
            "\(refused.stderr)")
        let dry = try s.run(["--add", path, "--level", "district", "--code", "KOD", "--name", "AD", "--crs", "EPSG:3857", "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(
            dry.stdout.contains("Would add kare as districts: 1 feature, code KOD, name AD, CRS WGS 84 / Pseudo-Mercator"), "\(dry.stdout)")
        #expect(dry.stdout.contains("under 1 province (inferred)") && dry.stdout.contains("Nothing written (--dry-run)."), "\(dry.stdout)")
        #expect(!FileManager.default.fileExists(atPath: s.out), "a dry run wrote the database")
        let layers = (try? FileManager.default.contentsOfDirectory(atPath: s.directory.file("xdg/roqua/layers"))) ?? []
        #expect(layers.isEmpty, "a dry run left \(layers)")
    }

    /// Zipped as agencies publish them (in a folder, with a macOS resource fork beside it).
    @Test func aZippedShapefileIsAdded() throws {
        let s = try Setup()
        let zip = s.directory.file("user/wards.zip")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
                for ext in ('shp', 'shx', 'dbf'): z.write(sys.argv[2] + '.' + ext, 'Wards/wards.' + ext)
                z.writestr('__MACOSX/Wards/._wards.shp', b'junk')
            """, zip, String(s.wards.dropLast(4)),
        ]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let added = try s.run(["--add", zip, "--level", "district", "--code", "JCODE", "--name", "WARD_JA", "--crs", "EPSG:3857"])
        #expect(added.status == 0 && added.stdout.contains("Adding wards as districts"), "\(added.stdout) \(added.stderr)")
        #expect(try s.units()["13104"] == ["新宿区", "P1"])
    }

    @Test func aGeoPackageFeatureTableIsAdded() throws {
        let s = try Setup()
        let path = s.directory.file("user/municipalities.gpkg")
        try GeoPackageFixture.write(path)
        let added = try s.run(["--add", path, "--level", "district"])
        #expect(
            added.status == 0 && added.stdout.contains("Adding municipalities as districts: code GID_2, name NAME_2"),
            "\(added.stdout) \(added.stderr)")
        let units = try s.units()
        #expect(units["JPN.1.1_1"] == ["Shinjuku", "P1"] && units["JPN.1.2_1"] == ["Chiyoda", "P2"], "\(units)")
        // Several feature tables (as GADM's ADM_0…ADM_5): the user chooses one, by a name that is there.
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "INSERT INTO gpkg_contents VALUES ('ADM_1', 'features', 'ADM_1', 3857)")
        }
        let several = try s.run(["--add", path, "--level", "district", "--replace"])
        #expect(
            several.status != 0 && several.stderr.contains("2 feature tables (ADM_1, municipalities); choose one with --table NAME"),
            "\(several.stderr)")
        let missing = try s.run(["--add", path, "--level", "district", "--replace", "--table", "ADM_3"])
        #expect(missing.status != 0 && missing.stderr.contains("no feature table ADM_3"), "\(missing.stderr)")
        let chosen = try s.run(["--add", path, "--level", "district", "--replace", "--table", "municipalities"])
        #expect(chosen.status == 0 && chosen.stdout.contains("Adding municipalities as districts"), "\(chosen.stdout) \(chosen.stderr)")
        #expect(try s.units()["JPN.1.1_1"] == ["Shinjuku", "P1"])
        // A file that is no GeoPackage is named.
        try "not sqlite".write(toFile: s.directory.file("user/fake.gpkg"), atomically: true, encoding: .utf8)
        let fake = try s.run(["--add", s.directory.file("user/fake.gpkg"), "--level", "district"])
        #expect(fake.status != 0 && fake.stderr.contains("fake.gpkg"), "\(fake.stderr)")
    }

    @Test func collidingCodesAreRefusedOrPrefixed() throws {
        let s = try Setup()
        let arguments = ["--level", "district", "--code", "JCODE", "--name", "WARD_JA", "--crs", "EPSG:3857"]
        #expect(try s.run(["--add", s.wards] + arguments).status == 0)
        for ext in ["shp", "shx", "dbf"] {
            try FileManager.default.copyItem(atPath: String(s.wards.dropLast(3)) + ext, toPath: s.directory.file("user/older.\(ext)"))
        }
        let clash = try s.run(["--add", s.directory.file("user/older.shp")] + arguments)
        #expect(
            clash.status != 0 && clash.stderr.contains("repeats code '13104'") && clash.stderr.contains("--code-prefix"),
            "\(clash.stderr)")
        let prefixed = try s.run(["--add", s.directory.file("user/older.shp"), "--code-prefix", "OLD-"] + arguments)
        #expect(prefixed.status == 0, "\(prefixed.stderr)")
        let units = try s.units()
        #expect(units["13104"] == ["新宿区", "P1"] && units["OLD-13104"] == ["新宿区", "P1"], "\(units)")
        let stray = try s.run(["--code-prefix", "X-"])
        #expect(stray.status != 0 && stray.stderr.contains("--code-prefix goes with --add FILE"), "\(stray.stderr)")
    }

    /// A process killed while adding leaves `layers/NAME.adding`: not a layer; adding again works.
    @Test func aLayerLeftHalfAddedIsNotALayer() throws {
        let s = try Setup()
        let arguments = ["--add", s.wards, "--level", "district", "--code", "JCODE", "--name", "WARD_JA", "--crs", "EPSG:3857"]
        #expect(try s.run(arguments).status == 0)
        let layers = s.directory.file("xdg/roqua/layers")
        try FileManager.default.moveItem(atPath: layers + "/wards", toPath: layers + "/wards.adding")
        #expect(try s.run([]).status == 0)
        #expect(try s.units()["13104"] == nil, "a half-added layer is not imported")
        let again = try s.run(arguments)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try s.units()["13104"] == ["新宿区", "P1"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: layers) == ["wards"])
    }

    @Test func aBrokenLayerFailsNamingTheProblemAndChangesNothing() throws {
        let s = try Setup(outsideUnit: true)
        #expect(try s.run([]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: s.out))
        // No CRS: metres refused with the hint an --add can follow (no manifest to name it in).
        let noCRS = try s.run(["--add", s.wards, "--level", "district", "--code", "JCODE", "--name", "WARD_JA"])
        #expect(noCRS.status != 0 && noCRS.stderr.contains("wards.shp") && noCRS.stderr.contains("(--crs EPSG:NNNN)"), "\(noCRS.stderr)")
        #expect(!noCRS.stderr.contains("manifest"), "\(noCRS.stderr)")
        // A unit outside every province: listed, nothing written, nothing kept.
        let orphan = try s.run(["--add", s.wards, "--level", "district", "--code", "JCODE", "--name", "WARD_JA", "--crs", "EPSG:3857"])
        #expect(orphan.status != 0 && orphan.stderr.contains("record 2 (13101 Chiyoda)"), "\(orphan.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: s.out)) == before)
        let layers = (try? FileManager.default.contentsOfDirectory(atPath: s.directory.file("xdg/roqua/layers"))) ?? []
        #expect(layers.isEmpty, "\(layers)")
        // A field that is not there, and no obvious code field: named.
        let noField = try s.run(["--add", s.wards, "--level", "district", "--code", "GID_2", "--crs", "EPSG:3857"])
        #expect(noField.status != 0 && noField.stderr.contains("no field GID_2") && noField.stderr.contains("JCODE"), "\(noField.stderr)")
        // No fields named: JCODE is the obvious code; no name field, so the codes are the names, and said.
        let guessed = try s.run(["--add", s.wards, "--level", "district", "--crs", "EPSG:3857"])
        #expect(guessed.stdout.contains("code JCODE, name JCODE (no name field: the codes are the names"), "\(guessed.stdout)")
        #expect(
            guessed.status != 0 && guessed.stderr.contains("record 2 (13101 13101)") && guessed.stderr.contains("--allow-orphans"),
            "\(guessed.stderr)")
        // --allow-orphans keeps a unit under its country, but this one lies in none either.
        let nowhere = try s.run(["--add", s.wards, "--level", "district", "--crs", "EPSG:3857", "--allow-orphans"])
        #expect(nowhere.status != 0 && nowhere.stderr.contains("record 2 (13101 13101)"), "\(nowhere.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: s.out)) == before)
    }
}
