import Foundation
import RoquaTestSupport
import Testing

/// `roqua timeline DAY` and `roqua places` as a user runs them, on two commuting days with a known
/// truth (`scripts/examples/commute.csv`, see `make-commute.py`): nights at home in Kadıköy with
/// the phone off, a walk to the pier, three minutes there, the ferry across the Bosphorus to
/// Karaköy (08:10–08:22), a walk up to work in Galata (Beyoğlu, 08:28–17:30), and back.
@Suite struct TimelineCLITests {
    let roqua = ProductsDirectory.product("roqua")

    struct Timeline: Decodable {
        var date: String
        var timeZone: String
        var entries: [Entry]
    }

    struct Unit: Decodable {
        var code: String
        var name: String
    }

    struct Entry: Decodable {
        var type: String
        var start: Date
        var end: Date
        var label: String?
        var placeId: Int?
        var district: Unit?
        var mode: String?
        var distanceKm: Double?
        var fromPlaceId: Int?
        var toPlaceId: Int?
    }

    struct PlaceRow: Decodable {
        var placeId: Int
        var label: String?
        var stays: Int
        var hours: Double
        var district: Unit?
    }

    func filled() throws -> HistoryCLITests.Bench {
        let bench = HistoryCLITests.Bench(directory: try TempDirectory("roqua-timeline"), roqua: roqua)
        _ = try bench.ok(["track", "import", Repository.path("scripts/examples/commute.csv"), "--boundaries", try Bundled.path()])
        return bench
    }

    /// Minutes between two instants.
    func minutes(_ a: Date, _ b: Date) -> Double { abs(a.timeIntervalSince(b)) / 60 }

    func local(_ day: Int, _ hour: Int, _ minute: Int) -> Date {
        Date(timeIntervalSince1970: 1_714_856_400 + Double(day * 86_400 + hour * 3_600 + minute * 60))
    }

    @Test func aCommutingDayIsHomeFerryWalkWorkAndBack() throws {
        let bench = try filled()
        let boundaries = ["--boundaries", try Bundled.path()]
        let day = try bench.decoded(Timeline.self, ["timeline", "2024-05-06"] + boundaries)
        #expect(day.date == "2024-05-06")
        #expect(day.timeZone == "Europe/Istanbul")
        let entries = day.entries
        for (a, b) in zip(entries, entries.dropFirst()) { #expect(a.end <= b.start, "entries overlap") }

        // The night with the phone off is one stay at home, whole: from the evening before.
        let night = try #require(entries.first)
        #expect(night.type == "stay")
        #expect(night.label == "home")
        #expect(night.district?.name == "Kadıköy")
        #expect(minutes(night.start, local(0, 20, 0)) <= 3)
        #expect(minutes(night.end, local(1, 8, 0)) <= 3)

        let stays = entries.filter { $0.type == "stay" }
        let office = try #require(stays.first { $0.district?.name == "Beyoğlu" })
        #expect(minutes(office.start, local(1, 8, 28)) <= 3)
        #expect(minutes(office.end, local(1, 17, 30)) <= 3)
        // Three minutes at the pier is no stay: home, work, home.
        #expect(stays.count == 3)

        // The ferry is a boat move of its own between home and work, with the walks apart.
        let morning = entries.filter { $0.type == "move" && $0.start < office.start }
        let ferry = try #require(morning.first { $0.mode == "boat" })
        #expect(minutes(ferry.start, local(1, 8, 10)) <= 3)
        #expect(minutes(ferry.end, local(1, 8, 22)) <= 3)
        #expect((3...7).contains(ferry.distanceKm ?? 0))
        #expect(morning.allSatisfy { $0.fromPlaceId == night.placeId && $0.toPlaceId == office.placeId })
        #expect(morning.contains { $0.mode == "walk" && $0.start >= ferry.end })

        // The text: one readable line per entry.
        let text = try bench.ok(["timeline", "2024-05-06"] + boundaries)
        #expect(text.contains("2024-05-05 20:0"))
        #expect(text.contains("home · Kadıköy"))
        #expect(text.contains(" boat "))
        #expect(text.split(separator: "\n").count == entries.count)
    }

    @Test func placesAreRankedByHoursAndHomeIsLabelled() throws {
        let bench = try filled()
        let places = try bench.decoded([PlaceRow].self, ["places", "--boundaries", try Bundled.path()])
        let home = try #require(places.first)
        #expect(home.label == "home")
        #expect(home.district?.name == "Kadıköy")
        #expect(home.hours > 30)
        #expect(places.contains { $0.district?.name == "Beyoğlu" && $0.hours > 16 })
        #expect(zip(places, places.dropFirst()).allSatisfy { $0.hours >= $1.hours })
    }

    @Test func aDayWithoutFixesAndBadInput() throws {
        let bench = try filled()
        let boundaries = ["--boundaries", try Bundled.path()]
        let empty = try bench.decoded(Timeline.self, ["timeline", "2023-01-01"] + boundaries)
        #expect(empty.entries.isEmpty)
        #expect(try bench.ok(["timeline", "2023-01-01"] + boundaries).contains("No fixes kept on 2023-01-01."))

        let impossible = try bench.run(["timeline", "2024-02-30"] + boundaries)
        #expect(impossible.status != 0)
        #expect(impossible.stderr.contains("\"2024-02-30\" is not a day"))
        let zone = try bench.run(["timeline", "2024-05-06", "--time-zone", "Mars/Olympus"] + boundaries)
        #expect(zone.status != 0)
        #expect(zone.stderr.contains("unknown time zone \"Mars/Olympus\""))
        let minutes = try bench.run(["timeline", "2024-05-06", "--stay-minutes", "0"] + boundaries)
        #expect(minutes.status != 0)
        #expect(minutes.stderr.contains("--stay-minutes"))
    }
}
