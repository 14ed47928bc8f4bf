import Foundation
import RoquaTestSupport
import Testing

/// Photos as history, as a user imports them: a camera folder (JPEG, HEIC, AVIF, PNG, Takeout
/// sidecars; one damaged), the commute of `scripts/examples/commute.csv` with a photo taken on the
/// ferry, the timeline and `roqua photos`.
@Suite struct PhotoCLITests {
    let roqua = ProductsDirectory.product("roqua")

    struct Imported: Decodable {
        struct File: Decodable {
            struct Photos: Decodable {
                var read: Int
                var located: Int
                var skipped: [String: Int]
                var problems: [String]
            }
            var format: String
            var fixesKept: Int
            var photos: Photos?
        }
        var files: [File]
    }

    struct Atlas: Decodable {
        struct Row: Decodable {
            var code: String
            var photos: Int
            var partsWithPhotos: Int
            var parts: Int
        }
        var photos: Int
        var units: [Row]
    }

    struct Day: Decodable {
        struct Photo: Decodable {
            var path: String
            var time: Date
        }
        struct Entry: Decodable {
            var type: String
            var mode: String?
            var photos: [Photo]
        }
        var entries: [Entry]
        var photos: [Photo]
    }

    /// The fixtures in `Camera/` (eight photos, one of them taken at work in Galata on 2024-05-06
    /// at 09:30 UTC, two Takeout sidecars alone); in `Camera/2024/` a truncated JPEG and the
    /// sidecar of a photo taken on the ferry on 2024-05-06 at 08:15 (its photo left out of the
    /// export): 12 to read.
    func camera(_ bench: HistoryCLITests.Bench) throws -> String {
        let folder = try bench.directory.subdirectory("Camera")
        let fixtures = Repository.path("Tests/RoquaPhotosTests/Fixtures")
        // The pictures of the thumbnail tests (`sideways*`) stay out: the counts below are of the rest.
        for name in try FileManager.default.contentsOfDirectory(atPath: fixtures) where !name.hasPrefix("sideways") {
            try FileManager.default.copyItem(atPath: fixtures + "/" + name, toPath: folder + "/" + name)
        }
        let year = try bench.directory.subdirectory("Camera/2024")
        let ferry = """
            {"title": "ferry.jpg", "photoTakenTime": {"timestamp": "1714972500"},
             "geoData": {"latitude": 41.0105, "longitude": 29.0003, "altitude": 0.0}}
            """
        try ferry.write(toFile: year + "/ferry.jpg.supplemental-metadata.json", atomically: true, encoding: .utf8)
        let whole = try Data(contentsOf: URL(fileURLWithPath: fixtures + "/gps-full.jpg"))
        try whole.prefix(40).write(to: URL(fileURLWithPath: year + "/broken.jpg"))
        return folder
    }

    @Test func aCameraFolderBecomesHistory() throws {
        let bench = HistoryCLITests.Bench(directory: try TempDirectory("roqua-photos"), roqua: roqua)
        let boundaries = ["--boundaries", try Bundled.path()]
        _ = try bench.ok(["track", "import", Repository.path("scripts/examples/commute.csv")] + boundaries)
        let folder = try camera(bench)

        let first = try bench.decoded(Imported.self, ["track", "import", folder] + boundaries)
        let batch = try #require(first.files.first { $0.format == "photos" }?.photos)
        #expect(batch.read == 12)
        #expect(batch.skipped["local time without a zone"] == 1 && batch.skipped["no position"] == 1, "\(batch.skipped)")
        #expect(batch.skipped["damaged metadata", default: 0] + batch.skipped["unreadable", default: 0] == 1)
        #expect(batch.problems.count == 1 && batch.problems[0].contains("broken.jpg"), "\(batch.problems)")
        #expect(batch.located == 9)
        #expect(first.files.first { $0.format == "photos" }?.fixesKept == 9)

        // The zone places the photo with a local time only; the rest was kept before.
        let again = try bench.ok(["track", "import", folder, "--time-zone", "Europe/Istanbul"] + boundaries)
        #expect(again.contains("12 photo(s) read, 10 with a place and a time"), "\(again)")
        #expect(again.contains("1 kept, 9 kept before"), "\(again)")
        let third = try bench.ok(["track", "import", folder, "--time-zone", "Europe/Istanbul"] + boundaries)
        #expect(third.contains("imported before (the same photos); nothing added"), "\(third)")

        // The photo on the ferry belongs to the boat move; the photo makes no move of its own.
        let day = try bench.decoded(Day.self, ["timeline", "2024-05-06"] + boundaries)
        let boat = try #require(day.entries.first { $0.mode == "boat" })
        #expect(boat.photos.map(\.path) == ["2024/ferry.jpg"])
        #expect(day.entries.filter { $0.type == "move" }.count == 6 && day.entries.count == 9)
        #expect(try bench.ok(["timeline", "2024-05-06"] + boundaries).contains("boat 5.1 km · 1 photo(s)"))
        // A day with only a photo has no entry, and says so.
        let london = try bench.decoded(Day.self, ["timeline", "2021-05-06", "--time-zone", "UTC"] + boundaries)
        #expect(london.entries.isEmpty && london.photos.map(\.path) == ["IMG_1234.jpg"])

        let atlas = try bench.decoded(Atlas.self, ["photos"] + boundaries)
        #expect(atlas.photos == 10)
        let turkey = try #require(atlas.units.first { $0.code == "TR" })
        #expect(turkey.photos >= 1 && turkey.partsWithPhotos == 1 && turkey.parts == 81)
        let istanbul = try bench.decoded(Atlas.self, ["photos", "--unit", "İstanbul"] + boundaries)
        #expect(istanbul.units.first?.code == "TR-34" && istanbul.units.first?.parts == 39)
        #expect(try bench.ok(["photos", "--unit", "TR-34"] + boundaries).contains("İstanbul: 2 photos in 2 of 39 districts"))
        let unknown = try bench.run(["photos", "--unit", "Atlantis"] + boundaries)
        #expect(unknown.status != 0)
    }
}
