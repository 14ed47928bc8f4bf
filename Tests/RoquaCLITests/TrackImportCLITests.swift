import Foundation
import RoquaTestSupport
import Testing

/// `roqua track import` over many files, folders and archives, as a user runs it.
@Suite struct TrackImportCLITests {
    static let fixtures = Repository.path("Tests/Fixtures/tracks")

    @Test func oneBadFileDoesNotStopTheOthers() throws {
        let directory = try TempDirectory()
        let roqua = ProductsDirectory.product("roqua")
        let common = ["--store", directory.file("regions.sqlite"), "--boundaries", try Bundled.path()]
        try Data([14, 0x20, 0, 0, 9, 0, 0, 0] + Array(".FIT".utf8) + [0, 0, 1, 2]).write(
            to: URL(fileURLWithPath: directory.file("bad.fit")))
        try Trip.csv.write(toFile: directory.file("trip.csv"), atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(
            roqua,
            [
                "track", "import", Self.fixtures + "/cerknicko-jezero.gpx", directory.file("bad.fit"),
                directory.file("trip.csv"),
            ] + common)
        #expect(result.status == 1)
        #expect(result.stdout.contains("cerknicko-jezero.gpx (gpx): 297 fixes read, 6 untimed skipped"), "\(result.stdout)")
        #expect(result.stdout.contains("trip.csv (csv):"), "\(result.stdout)")
        #expect(result.stdout.contains("3 files: 2 imported"), "\(result.stdout)")
        #expect(result.stderr.contains("error: \(directory.file("bad.fit")): at byte"), "\(result.stderr)")
        #expect(!result.stderr.contains("\u{1B}["), "no progress line outside a terminal")
    }

    /// `--json`: per file what was read, skipped (a glitch costs one point) and found; failures apart.
    @Test func jsonSaysWhatEachFileGaveAndCost() throws {
        let directory = try TempDirectory()
        let roqua = ProductsDirectory.product("roqua")
        let common = ["--store", directory.file("regions.sqlite"), "--boundaries", try Bundled.path()]
        try "lat,lon,time\n40.9879,29.0281,2024-05-01T07:00:00Z\n41,abc,2024-05-01T07:01:00Z\n41.0430,29.0070,2024-05-01T08:00:00Z\n"
            .write(toFile: directory.file("day.csv"), atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(
            roqua, ["track", "import", directory.file("day.csv"), directory.file("missing.gpx"), "--json"] + common)
        #expect(result.status == 1)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let file = try #require((document["files"] as? [[String: Any]])?.first)
        #expect(file["fixes_read"] as? Int == 2 && file["skipped"] as? Int == 1 && file["skipped_lines"] as? [Int] == [3])
        #expect(file["skipped_by_reason"] as? [String: Int] == ["invalid coordinate": 1] && file["new_regions"] as? Int == 2)
        #expect((file["first_districts"] as? [[String: String]])?.map { $0["name"] ?? "" } == ["Kadıköy", "Beşiktaş"])
        let failed = try #require(document["failed"] as? [[String: String]])
        #expect(failed.count == 1 && failed[0]["file"] == directory.file("missing.gpx"), "\(failed)")
        #expect(failed[0]["error"]?.contains("missing.gpx") == true, "\(failed)")
        // The history took both fixes; the unlocks are titled as the text prints them.
        #expect(file["fixes_kept"] as? Int == 2)
        let unlocked = try #require(file["unlocked"] as? [[String: Any]])
        let text = try #require(file["text"] as? String)
        #expect(!unlocked.isEmpty, "\(file)")
        for unlock in unlocked {
            let title = try #require(unlock["title"] as? [String: String])
            let line = "unlocked: \(title["en"] ?? "") / \(title["tr"] ?? "") (+\(unlock["xp"] as? Int ?? -1) XP)"
            #expect(unlock["id"] is String && text.contains(line), "\(line) in \(text)")
        }
        // Without --json the same lines are printed, into a store of its own.
        let plain = try CommandRunner.run(
            roqua,
            ["track", "import", directory.file("day.csv"), "--store", directory.file("other.sqlite"), "--boundaries", try Bundled.path()])
        #expect(plain.status == 0 && plain.stdout.contains(text), "\(plain.stdout)")
    }

    @Test func foldersAndArchivesAreWalked() throws {
        let directory = try TempDirectory()
        let export = try directory.subdirectory("export")
        try FileManager.default.copyItem(atPath: Self.fixtures + "/strava-export.zip", toPath: export + "/strava.zip")
        try #"{"settings": {"deviceId": 1}}"#.write(toFile: export + "/Settings.json", atomically: true, encoding: .utf8)
        let roqua = ProductsDirectory.product("roqua")
        let common = ["--store", directory.file("regions.sqlite"), "--boundaries", try Bundled.path()]
        let result = try CommandRunner.run(roqua, ["track", "import", export] + common)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("strava.zip:activities/1.fit (fit): 21 fixes read"), "\(result.stdout)")
        #expect(result.stdout.contains("strava.zip:activities/3.gpx.gz (gpx): 297 fixes read"), "\(result.stdout)")
        #expect(result.stdout.contains("Settings.json: passed over, not a track file"), "\(result.stdout)")
        #expect(
            result.stdout.contains("5 files: 3 imported (324 fixes), 2 not track files, 0 failed; 1 other file passed over"),
            "\(result.stdout)")
        let again = try CommandRunner.run(roqua, ["track", "import", export] + common)
        #expect(again.status == 0 && again.stdout.contains("3 imported before"), "\(again.stdout)")
    }

    @Test func assumeTimeImportsARouteAndIsValidated() throws {
        let directory = try TempDirectory()
        let roqua = ProductsDirectory.product("roqua")
        let common = ["--store", directory.file("regions.sqlite"), "--boundaries", try Bundled.path()]
        let route = Self.fixtures + "/route.gpx"
        let refused = try CommandRunner.run(roqua, ["track", "import", route] + common)
        #expect(refused.status == 1 && refused.stderr.contains("no timestamps: 55 point(s)"), "\(refused.stderr)")
        let walked = try CommandRunner.run(roqua, ["track", "import", route, "--assume-time", "2024-05-01T10:00:00Z"] + common)
        #expect(walked.status == 0, "\(walked.stderr)")
        #expect(walked.stdout.contains("55 fixes read (55 untimed, given --assume-time)"), "\(walked.stdout)")
        for bad in ["yesterday", "2150-01-01T00:00:00Z"] {
            let result = try CommandRunner.run(roqua, ["track", "import", route, "--assume-time", bad] + common)
            #expect(result.status != 0 && result.stderr.contains("--assume-time"), "\(result.stderr)")
        }
    }
}
