import Foundation
import GRDB
import RoquaAchievements
import RoquaIO
import RoquaRegions
import RoquaTestSupport
import Testing

/// The store under hostile use: rows it cannot read, files that are not stores, values out of range.
@Suite struct StoreHardeningTests {
    let roqua = ProductsDirectory.product("roqua")

    func common(_ directory: TempDirectory) throws -> [String] {
        ["--store", directory.file("regions.sqlite"), "--boundaries", try Bundled.path()]
    }

    func run(_ arguments: [String]) throws -> CommandResult { try CommandRunner.run(roqua, arguments) }

    /// A row whose time does not parse (written by hand or an old version) is skipped with a
    /// warning by every verb, and `regions repair` removes it.
    @Test func oneUnreadableRowDoesNotPoisonTheStore() throws {
        let directory = try TempDirectory()
        let common = try common(directory)
        try Trip.csv.write(toFile: directory.file("trip.csv"), atomically: true, encoding: .utf8)
        #expect(try run(["track", "import", directory.file("trip.csv")] + common).status == 0)
        let regionStore = try RegionStore(path: directory.file("regions.sqlite"))
        let imported = try regionStore.regionCount()
        #expect(imported > 1)
        try regionStore.write { db in
            try db.execute(
                sql: """
                    INSERT INTO visited_regions (latitude, longitude, radius, start_ms, geohash, last_visit_ms, place_id)
                    VALUES (41, 29, 150, -999999999999999, 'sxk9', -999999999999999, (SELECT MIN(id) FROM places)),
                           (41.1, 29.1, 300000, 1704067200000, 'sxk9', 1704067200000, (SELECT MIN(id) FROM places))
                    """)
        }
        let store = ["--store", directory.file("regions.sqlite")]
        for verb in [
            ["regions"] + store, ["export"] + store, ["stats"] + common, ["achievements"] + common, ["profile"] + common,
            ["map", "--unit", "istanbul", "--out", directory.file("m.svg")] + common,
        ] {
            let result = try run(verb)
            #expect(result.status == 0, "\(verb): \(result.stderr)")
            #expect(
                result.stderr.contains("2 stored region(s) cannot be read") && result.stderr.contains("roqua regions repair"),
                "\(verb): \(result.stderr)")
        }
        try "lat,lon,timestamp\n39.92,32.85,2024-06-01T10:00:00Z\n".write(
            toFile: directory.file("more.csv"), atomically: true, encoding: .utf8)
        let more = try run(["track", "import", directory.file("more.csv")] + common)
        #expect(more.status == 0 && more.stdout.contains("1 new region"), "\(more.stdout)\(more.stderr)")

        let repair = try run(["regions", "repair"] + store)
        #expect(repair.status == 0 && repair.stdout.contains("2 unreadable region(s) removed"), "\(repair.stdout)")
        #expect(
            repair.stdout.contains("start_ms -999999999999999 is outside the years 0000–9999") && repair.stdout.contains("radius 300000 m"))
        let after = try run(["stats"] + common)
        #expect(after.status == 0 && after.stderr.isEmpty, "\(after.stderr)")
        let final = try regionStore.regionCount()
        #expect(final == imported + 1, "imported \(imported), now \(final)")
    }

    @Test func storeTimesAreProlepticGregorianAndRefuseWhatCannotBeReadBack() throws {
        let year1 = try #require(StoreTime.date("0001-01-01T00:00:00.000Z"))
        #expect(try StoreTime.text(year1) == "0001-01-01T00:00:00.000Z")
        #expect(year1.timeIntervalSince1970 == -62_135_596_800)
        #expect(try StoreTime.text(Date(timeIntervalSince1970: 253_402_300_799.999)) == "9999-12-31T23:59:59.999Z")
        for seconds in [-99_999_999_999.0, 1e19, .infinity, .nan] {
            #expect(throws: StoreTimeError.self) { try StoreTime.text(Date(timeIntervalSince1970: seconds)) }
        }
    }

    /// `--store` naming another SQLite file (the boundary DB, say) is refused before any table is added.
    @Test func aDatabaseThatIsNotARegionStoreIsRefused() throws {
        let boundaries = try Bundled.path()
        let before = try SHA256.hex(ofFile: boundaries)
        for verb in [["regions"], ["track", "import", "/dev/null", "--boundaries", boundaries], ["stats", "--boundaries", boundaries]] {
            let result = try run(verb + ["--store", boundaries])
            #expect(result.status == 1, "\(verb)")
            #expect(result.stderr.contains("not a Roqua region store"), "\(result.stderr)")
        }
        #expect(try SHA256.hex(ofFile: boundaries) == before)
    }

    /// Every numeric option has a range; nothing out of it reaches the store.
    @Test func optionsOutOfRangeAreRefusedBeforeAnythingIsWritten() throws {
        let directory = try TempDirectory()
        let common = try common(directory)
        try Trip.csv.write(toFile: directory.file("trip.csv"), atomically: true, encoding: .utf8)
        let cases: [([String], String)] = [
            (["--accuracy", "nan"], "accuracy threshold nan m"), (["--accuracy", "inf"], "accuracy threshold inf m"),
            (["--radius", "300000"], "radius 300000 m is outside 10…5000 m"), (["--radius", "-5"], "radius -5 m"),
            (["--visit-gap", "0"], "visit gap 0.0 min"), (["--visit-gap", "1e300"], "visit gap"),
        ]
        for (options, message) in cases {
            let result = try run(["track", "import", directory.file("trip.csv")] + options + common)
            #expect(result.status == 64, "\(options)")
            #expect(result.stderr.contains(message), "\(options): \(result.stderr)")
            #expect(!result.stderr.contains("\u{2212}"))
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("regions.sqlite")))
    }

    @Test func absurdUnitNamesFailFast() throws {
        let result = try run(["stats", "--unit", String(repeating: "ab", count: 5000)] + common(TempDirectory()))
        #expect(result.status == 1 && result.stderr.contains("at most 200 characters"), "\(result.stderr)")
    }

    /// A store on read-only media can still be read and exported (a read-only tmpfs in a mount
    /// namespace; skipped, saying so, where the kernel does not allow one).
    @Test func aStoreOnReadOnlyMediaCanBeReadAndExported() throws {
        let directory = try TempDirectory()
        let common = try common(directory)
        try Trip.csv.write(toFile: directory.file("trip.csv"), atomically: true, encoding: .utf8)
        #expect(try run(["track", "import", directory.file("trip.csv")] + common).status == 0)
        let mount = try directory.subdirectory("ro")
        let script = """
            set -e
            mount -t tmpfs roqua-ro "\(mount)"
            cp "\(directory.file("regions.sqlite"))" "\(mount)/regions.sqlite"
            mount -o remount,ro "\(mount)"
            "\(roqua)" regions --store "\(mount)/regions.sqlite"
            "\(roqua)" export --store "\(mount)/regions.sqlite" --output "\(directory.file("export.json"))"
            "\(roqua)" stats --store "\(mount)/regions.sqlite" --boundaries "\(try Bundled.path())"
            """
        guard (try? CommandRunner.run("/usr/bin/unshare", ["-m", "true"]))?.status == 0 else {
            print("skipped: no mount namespace here (unshare -m refused)")
            return
        }
        let result = try CommandRunner.run("/usr/bin/unshare", ["-m", "/bin/sh", "-c", script])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("12 region(s)") && result.stdout.contains("İstanbul 8/39 districts"), "\(result.stdout)")
        #expect(try String(contentsOfFile: directory.file("export.json"), encoding: .utf8).contains("\"regions\""))
    }
}
