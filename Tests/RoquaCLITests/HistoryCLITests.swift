import Foundation
import GRDB
import RoquaAchievements
import RoquaRegions
import RoquaTestSupport
import Testing

/// The kept history through the CLI as a user runs it: `history`, `backup` / `restore`,
/// `forget`, `rebuild`, on real track files and a generated multi-year phone history.
@Suite struct HistoryCLITests {
    let roqua = ProductsDirectory.product("roqua")

    /// A store and the paths of one test, every command in a fixed zone.
    struct Bench {
        let directory: TempDirectory
        let roqua: String

        var store: String { directory.file("regions.sqlite") }

        func run(_ arguments: [String], store: String? = nil) throws -> CommandResult {
            var environment = ProcessInfo.processInfo.environment
            environment["TZ"] = "Europe/Istanbul"
            environment["TMPDIR"] = try directory.subdirectory("tmp")
            return try CommandRunner.run(roqua, arguments + ["--store", store ?? self.store], environment: environment)
        }

        /// `arguments` must succeed; its standard output.
        func ok(_ arguments: [String], store: String? = nil) throws -> String {
            let result = try run(arguments, store: store)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return result.stdout
        }

        /// `roqua COMMAND --json` decoded as the type the command prints.
        func decoded<T: Decodable>(_ type: T.Type, _ arguments: [String], store: String? = nil) throws -> T {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode(type, from: Data(try ok(arguments + ["--json"], store: store).utf8))
        }

        /// What every query answers, as a user would compare them.
        func answers(store: String? = nil, years: [Int] = [2022, 2023, 2024]) throws -> [String: String] {
            let boundaries = ["--boundaries", try Bundled.path()]
            // Each query, and whether it reads the boundary DB.
            var queries: [String: ([String], Bool)] = [
                "stats": (["stats", "--json"], true), "tiles": (["stats", "tiles", "--json"], false),
                "achievements": (["achievements", "--all", "--json"], true), "history": (["history", "--json"], false),
                "regions": (["regions", "--json"], false), "profile": (["profile"], true),
            ]
            for year in years { queries["days \(year)"] = (["stats", "days", "--year", "\(year)", "--json"], false) }
            return try queries.mapValues { try ok($0.0 + ($0.1 ? boundaries : []), store: store) }
        }
    }

    func bench() throws -> Bench { Bench(directory: try TempDirectory("roqua-history"), roqua: roqua) }

    /// Real track files, and three years of a phone, imported.
    func filled(_ bench: Bench) throws -> Bench {
        try PhoneHistory.csv(seed: 1, days: 3 * 365).write(toFile: bench.directory.file("phone.csv"), atomically: true, encoding: .utf8)
        let tracks = ["cerknicko-jezero.gpx.gz", "garmin-edge-820-bike.fit", "garmin-fenix-5-run.fit", "sample.tcx", "strava-export.zip"]
        _ = try bench.ok(
            ["track", "import"] + tracks.map { Repository.path("Tests/Fixtures/tracks/\($0)") }
                + [
                    Repository.path("scripts/examples/istanbul-day.gpx"), bench.directory.file("phone.csv"), "--boundaries",
                    try Bundled.path(),
                ])
        return bench
    }

    @Test func aBackupBringsBackEveryAnswerByteForByte() throws {
        let bench = try filled(try bench())
        let before = try bench.answers()
        let history = try #require(try JSONSerialization.jsonObject(with: Data(before["history"]!.utf8)) as? [String: Any])
        #expect((history["fixes"] as? Int ?? 0) > 100_000 && (history["sources"] as? [Any])?.count ?? 0 >= 6, "\(history)")
        let backup = bench.directory.file("all.roqua-backup")
        let said = try bench.ok(["backup", backup])
        #expect(said.hasPrefix("Backed up") && said.contains(backup))
        var info = stat()
        #expect(stat(backup, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let restored = bench.directory.file("restored.sqlite")
        #expect(try bench.ok(["restore", backup], store: restored).hasPrefix("Restored"))
        #expect(try bench.answers(store: restored) == before)
        // Nothing personal left behind in the temporary directory.
        #expect(try FileManager.default.contentsOfDirectory(atPath: bench.directory.file("tmp")).isEmpty)
        // Into a store that holds something: refused without --replace, and the store unchanged.
        let refused = try bench.run(["restore", backup])
        #expect(refused.status != 0 && refused.stderr.contains("--replace"))
        #expect(try bench.answers() == before)
        #expect(try bench.ok(["restore", backup, "--replace"]).hasPrefix("Restored"))
        #expect(try bench.answers() == before)
    }

    @Test func damagedOrAlteredBackupsAreRefusedAndChangeNothing() throws {
        let bench = try bench()
        _ = try bench.ok(["track", "import", Repository.path("scripts/examples/istanbul-day.gpx"), "--boundaries", try Bundled.path()])
        let backup = bench.directory.file("good.backup")
        _ = try bench.ok(["backup", backup])
        let good = try [UInt8](Data(contentsOf: URL(fileURLWithPath: backup)))
        let header = Array("ROQUA-BACKUP 1\n".utf8)
        func signed(_ body: [UInt8]) -> [UInt8] { body + SHA256Digest.of(body) }
        var bomb = header
        bomb += try Gzip.compress([UInt8](repeating: 0, count: 96 << 20))
        let cases: [(String, [UInt8], String)] = [
            ("cut short", Array(good.prefix(good.count - 40)), "checksum does not match"),
            (
                "one bit flipped",
                {
                    var b = good
                    b[good.count / 2] ^= 1
                    return b
                }(), "checksum does not match"
            ),
            (
                "its digest altered",
                {
                    var b = good
                    b[good.count - 1] ^= 1
                    return b
                }(), "checksum does not match"
            ),
            ("another header", Array("ROQUA-BACKUP 9\n".utf8) + good.dropFirst(15), "header"),
            ("empty", [], "not a Roqua export"),
            ("a bomb with a valid digest", signed(bomb), "expands to more than"),
            ("gzip of no database, validly signed", signed(header + (try Gzip.compress(Array("hello".utf8)))), "not a readable database"),
            ("no gzip at all, validly signed", signed(header + Array("not gzip".utf8)), "not a Roqua backup"),
        ]
        let answers = try bench.answers(years: [2024])
        for (what, bytes, reason) in cases {
            let path = bench.directory.file("bad.backup")
            #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            let fresh = bench.directory.file("fresh-\(what.count).sqlite")
            for (store, replace) in [(bench.store, ["--replace"]), (fresh, [])] {
                let result = try bench.run(["restore", path] + replace, store: store)
                #expect(result.status != 0 && result.stderr.contains(reason), "\(what): \(result.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: fresh), "\(what): a store was made")
            #expect(try bench.answers(years: [2024]) == answers, "\(what)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: bench.directory.file("tmp")).isEmpty)
    }

    /// Forgetting a trip: its country leaves `stats`, its fixes the history, and no byte of its
    /// regions stays in the store's files or in a backup made after.
    @Test func forgetRemovesATripFromEveryAnswerAndFromTheFile() throws {
        let bench = try bench()
        try Trip.csv.write(toFile: bench.directory.file("trip.csv"), atomically: true, encoding: .utf8)
        let boundaries = ["--boundaries", try Bundled.path()]
        _ = try bench.ok(["track", "import", bench.directory.file("trip.csv")] + boundaries)
        #expect(try bench.ok(["stats"] + boundaries).contains("Greece"))
        let athens = try #require(try RegionStore(path: bench.store).allRegions().first { $0.countryCode == "GR" })
        // Athens was day 11 (2024-05-11 10:00 UTC): forget that Istanbul day, without --yes refused off a terminal.
        let unasked = try bench.run(["forget", "--from", "2024-05-11", "--to", "2024-05-12"] + boundaries)
        #expect(unasked.status != 0 && unasked.stderr.contains("--yes"))
        // That day read back by `history --from --to` (a day given as --to included): one fix, then none.
        let day = ["history", "--from", "2024-05-11", "--to", "2024-05-11"]
        #expect(try bench.decoded(HistorySummary.self, day).fixes == 1)
        #expect(try bench.run(["history", "--from", "2024-05-11"]).stderr.contains("give both --from and --to"))
        let said = try bench.ok(["forget", "--from", "2024-05-11", "--to", "2024-05-12", "--yes"] + boundaries)
        #expect(try bench.ok(day) == "No fixes kept in that span.\n")
        #expect(said.contains("Forgot 1 fixes") && said.contains("12 → 11 regions"), "\(said)")
        let stats = try bench.ok(["stats"] + boundaries)
        #expect(!stats.contains("Greece") && stats.contains("Bulgaria") && stats.contains("Türkiye"), "\(stats)")
        #expect(try bench.decoded(HistorySummary.self, ["history"]).fixes == 11)
        let files = ["", "-wal"].compactMap { FileManager.default.contents(atPath: bench.store + $0) }.reduce(Data(), +)
        #expect(files.range(of: Data(athens.geohash.utf8)) == nil, "the forgotten region's geohash is still in the file")
        #expect(files.range(of: Data("Athens".utf8)) == nil)
        let backup = bench.directory.file("after.backup")
        _ = try bench.ok(["backup", backup])
        let restored = bench.directory.file("restored.sqlite")
        _ = try bench.ok(["restore", backup], store: restored)
        #expect(!(try bench.ok(["stats"] + boundaries, store: restored)).contains("Greece"))
        // A bad span is an error naming it; a time with an offset is taken as given.
        #expect(
            try bench.run(["forget", "--from", "2024-05-13", "--to", "2024-05-12", "--yes"] + boundaries).stderr.contains(
                "--to must be after"))
        #expect(
            try bench.run(["forget", "--from", "2024-13-01", "--to", "2024-05-12", "--yes"] + boundaries).stderr.contains("is not a date"))
        let sofia = try bench.ok(["forget", "--from", "2024-05-12T10:00:00Z", "--to", "2024-05-12T10:00:01Z", "--yes"] + boundaries)
        #expect(sofia.contains("Forgot 1 fixes"), "\(sofia)")
    }

    /// A larger clustering radius gives fewer regions, back again gives the same answers, and a
    /// rebuild with the settings it was made with changes nothing.
    @Test func rebuildRegroupsAndComesBackToTheSameAnswers() throws {
        let bench = try filled(try bench())
        let boundaries = ["--boundaries", try Bundled.path()]
        _ = try bench.ok(["rebuild"] + boundaries)
        let first = try bench.answers()
        #expect(try bench.answers() == first)
        let wide = try bench.ok(["rebuild", "--clustering-radius", "2000"] + boundaries)
        let fewer = try RegionStore(path: bench.store).regionCount()
        let lines = wide.split(separator: "\n")
        #expect(lines.first?.contains("regions") == true && lines.count >= 2 && lines[1].contains("clustering radius 2000 m"), "\(wide)")
        _ = try bench.ok(["rebuild", "--clustering-radius", "150"] + boundaries)
        #expect(try RegionStore(path: bench.store).regionCount() > fewer && fewer > 0)
        #expect(try bench.answers() == first)
        _ = try bench.ok(["rebuild"] + boundaries)
        #expect(try bench.answers() == first)
        // Remembered: the next import uses it, and `rebuild` alone keeps it.
        _ = try bench.ok(["rebuild", "--accuracy", "10", "--min-distance", "300", "--exploration-radius", "100"] + boundaries)
        let settings = try RegionStore(path: bench.store).derivedWith()
        #expect(
            settings.clustering.maxAccuracy == 10 && settings.clustering.minDistance == 300 && settings.clustering.explorationRadius == 100)
        #expect(try RegionStore(path: bench.store).allRegions().allSatisfy { $0.radius == 100 })
        #expect(try bench.run(["rebuild", "--clustering-radius", "5"] + boundaries).stderr.contains("radius 5 m is outside"))
    }

    /// A store from before the history (its v7 migration undone): the first command keeps a
    /// private copy of it as it was beside it and says so, then upgrades it; the next says nothing.
    @Test func anUpgradeKeepsACopyOfTheStoreAsItWas() throws {
        let bench = try bench()
        let boundaries = ["--boundaries", try Bundled.path()]
        _ = try bench.ok(["track", "import", Repository.path("scripts/examples/istanbul-day.gpx")] + boundaries)
        try DatabaseQueue(path: bench.store).writeWithoutTransaction { db in
            try db.execute(
                sql: """
                    DROP TABLE fix_blocks; DROP TABLE fix_sources; DROP TABLE settings;
                    ALTER TABLE imports DROP COLUMN fixes_kept;
                    DELETE FROM grdb_migrations WHERE identifier = 'v7: kept fixes';
                    PRAGMA wal_checkpoint(TRUNCATE);
                    """)
        }
        let regions = try DatabaseQueue(path: bench.store).read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM visited_regions") }
        let copy = bench.store + ".before-upgrade"
        let first = try bench.run(["history"])
        #expect(first.status == 0 && first.stderr.contains("a copy of it as it was is kept at \(copy)"), "\(first.stderr)")
        #expect(first.stdout.contains("1 file(s) were imported before the store kept fixes"), "\(first.stdout)")
        let mode = try FileManager.default.attributesOfItem(atPath: copy)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let (kept, copied) = try DatabaseQueue(path: copy).read { db in
            (try db.tableExists("fix_blocks"), try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM visited_regions"))
        }
        #expect(!kept && copied == regions)
        let second = try bench.run(["history"])
        #expect(second.status == 0 && second.stderr.isEmpty, "\(second.stderr)")
        #expect(!FileManager.default.fileExists(atPath: copy + "-2"))
    }

    /// Many fixes in one second (a file whose points share one time): each position kept once,
    /// however many share the second, and repeats of them dropped.
    @Test func manyFixesInOneSecondAreKeptOnceEach() throws {
        let bench = try bench()
        let positions = (0..<40).map { String(format: "%.5f,%.5f", 41.0 + Double($0) * 0.0001, 29.0) }
        let rows = (positions + positions.prefix(5)).map { "\($0),2024-05-01T10:00:00Z" }
        try (["lat,lon,time"] + rows).joined(separator: "\n").write(
            toFile: bench.directory.file("second.csv"), atomically: true, encoding: .utf8)
        let answer = try bench.decoded(
            TrackImportRunAnswer.self, ["track", "import", bench.directory.file("second.csv"), "--boundaries", try Bundled.path()])
        #expect(answer.files.map(\.fixesKept) == [40] && answer.files.map(\.fixesRead) == [45], "\(answer)")
        #expect(try RegionStore(path: bench.store).history().fixes == 40)
    }

    /// The same fixes from two files are kept and counted once, whichever comes first.
    @Test func overlappingFilesCountNothingTwice() throws {
        let bench = try self.bench(), alone = try self.bench()
        let csv = PhoneHistory.csv(seed: 2, days: 30)
        let lines = csv.split(separator: "\n")
        try (lines.prefix(lines.count / 2).joined(separator: "\n") + "\n").write(
            toFile: bench.directory.file("first-half.csv"),
            atomically: true, encoding: .utf8)
        try csv.write(toFile: bench.directory.file("all.csv"), atomically: true, encoding: .utf8)
        let boundaries = ["--boundaries", try Bundled.path()]
        _ = try bench.ok(["track", "import", bench.directory.file("first-half.csv")] + boundaries)
        let second = try bench.ok(["track", "import", bench.directory.file("all.csv")] + boundaries)
        #expect(second.contains("duplicates"), "\(second)")
        _ = try alone.ok(["track", "import", bench.directory.file("all.csv")] + boundaries)
        let history = { (b: Bench) in try RegionStore(path: b.store).history().fixes }
        #expect(try history(bench) == history(alone) && history(alone) == lines.count - 1)
        let visits = { (b: Bench) in try RegionStore(path: b.store).allRegions().map(\.visitCount).reduce(0, +) }
        #expect(try visits(bench) == visits(alone))
    }

    /// A store from before the history: `history` says so, a rebuild refuses to drop its
    /// regions, and importing the same file again keeps its fixes without counting anything twice.
    @Test func storesFromBeforeTheHistoryAreFilledByImportingAgain() throws {
        let bench = try bench()
        let boundaries = ["--boundaries", try Bundled.path()]
        let file = Repository.path("scripts/examples/istanbul-day.gpx")
        _ = try bench.ok(["track", "import", file] + boundaries)
        let regions = try RegionStore(path: bench.store).allRegions()
        try DatabaseQueue(path: bench.store).write { db in
            try db.execute(sql: "DELETE FROM fix_blocks; DELETE FROM fix_sources; UPDATE imports SET fixes_kept = NULL")
        }
        #expect(try bench.ok(["history"]).contains("1 file(s) were imported before the store kept fixes"))
        let refused = try bench.run(["rebuild"] + boundaries)
        #expect(refused.status != 0 && refused.stderr.contains("--discard-unkept"), "\(refused.stderr)")
        #expect(try RegionStore(path: bench.store).allRegions() == regions)
        let again = try bench.ok(["track", "import", file] + boundaries)
        #expect(again.contains("its 48 fixes are kept now, nothing counted again"), "\(again)")
        #expect(try RegionStore(path: bench.store).allRegions() == regions)
        #expect(try RegionStore(path: bench.store).history().fixes == 48)
        _ = try bench.ok(["rebuild"] + boundaries)
        #expect(try RegionStore(path: bench.store).regionCount() == regions.count)
    }
}
