import Foundation
import GRDB
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

    /// A fix the import's accuracy setting drops (200 m, 700 m off, in the middle of the day at
    /// the office) derives nothing: no phantom move, the same nine entries.
    @Test func aFixBeyondTheAccuracySettingSplitsNothing() throws {
        let bench = HistoryCLITests.Bench(directory: try TempDirectory("roqua-timeline"), roqua: roqua)
        let file = bench.directory.file("commute.csv")
        let commute = try String(contentsOfFile: Repository.path("scripts/examples/commute.csv"), encoding: .utf8)
        try (commute + "41.030000,28.980000,2024-05-06T09:00:00Z,200\n").write(toFile: file, atomically: true, encoding: .utf8)
        let boundaries = ["--boundaries", try Bundled.path()]
        _ = try bench.ok(["track", "import", file] + boundaries)
        let day = try bench.decoded(Timeline.self, ["timeline", "2024-05-06"] + boundaries)
        #expect(day.entries.map(\.type) == ["stay", "move", "move", "move", "stay", "move", "move", "move", "stay"])
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
        // The zone as asked, not Foundation's name for it ("GMT").
        #expect(try bench.decoded(Timeline.self, ["timeline", "2024-05-06", "--time-zone", "UTC"] + boundaries).timeZone == "UTC")
        // A span of days: both commuting days, whole.
        let span = try bench.decoded(Timeline.self, ["timeline", "2024-05-05", "--to", "2024-05-07"] + boundaries)
        #expect(span.entries.filter { $0.type == "stay" }.count == 5)
        let backwards = try bench.run(["timeline", "2024-05-07", "--to", "2024-05-05"] + boundaries)
        #expect(backwards.status != 0 && backwards.stderr.contains("--to must not be before the day"))
        let minutes = try bench.run(["timeline", "2024-05-06", "--stay-minutes", "0"] + boundaries)
        #expect(minutes.status != 0)
        #expect(minutes.stderr.contains("--stay-minutes"))
    }

    /// The kept timeline is read by position: a row edited by hand (a mode no Roqua writes, an
    /// entry without its times, a stay without its centre, a move without its length) is refused
    /// naming what is wrong, never read as something else (0°, 0 km).
    @Test func aDamagedKeptTimelineIsRefusedByName() throws {
        let bench = try filled()
        let boundaries = ["--boundaries", try Bundled.path()]
        let (move, stay) = try DatabaseQueue(path: bench.store).read { db in
            (
                try #require(try Int64.fetchOne(db, sql: "SELECT MIN(start_ms) FROM timeline_entries WHERE mode IS NOT NULL")),
                try #require(try Int64.fetchOne(db, sql: "SELECT MIN(start_ms) FROM timeline_entries WHERE mode IS NULL"))
            )
        }
        // Each edit on its own, undone after: (the row, the edit, the undo, what is said).
        let cases: [(Int64, String, String, String)] = [
            (move, "mode = 'hovercraft'", "mode = 'walk'", "an unknown mode \"hovercraft\" at \(move)"),
            (move, "end_ms = 'soon'", "end_ms = start_ms + 60000", "an entry without a start and end near \(move)"),
            (move, "meters = NULL", "meters = 500", "a move without its length at \(move)"),
            (stay, "latitude = NULL", "latitude = 41.0", "a stay without its centre or fix count at \(stay)"),
            (stay, "fixes = 'many'", "fixes = 10", "a stay without its centre or fix count at \(stay)"),
        ]
        for (row, edit, undo, message) in cases {
            try DatabaseQueue(path: bench.store).write { db in
                try db.execute(sql: "UPDATE timeline_entries SET \(edit) WHERE start_ms = ?", arguments: [row])
            }
            for command in [["timeline", "2024-05-06"], ["places"]] {
                let refused = try bench.run(command + boundaries)
                #expect(refused.status != 0 && refused.stderr.contains("the kept timeline has " + message), "\(edit): \(refused.stderr)")
            }
            try DatabaseQueue(path: bench.store).write { db in
                try db.execute(sql: "UPDATE timeline_entries SET \(undo) WHERE start_ms = ?", arguments: [row])
            }
        }
        #expect(try bench.run(["timeline", "2024-05-06"] + boundaries).status == 0)
    }

    struct TripRow: Decodable {
        var start: Date
        var end: Date
        var nights: Int
        var countries: [String]
        var provinces: [String]
        var distanceKm: Double
        var destination: Names?
    }

    struct Names: Decodable {
        var country: Unit?
        var province: Unit?
    }

    struct Year: Decodable {
        struct New: Decodable {
            var countries: [String]
            var provinces: [String]
            var districts: [String]
        }
        var year: Int
        var new: New
        var daysAbroad: Int
        var distanceKm: [String: Double]
        var topPlaces: [TopPlace]
        var trips: [TripRow]
    }

    struct TopPlace: Decodable {
        var placeId: Int
        var label: String?
        var hours: Double
    }

    /// Four months of a phone (PhoneHistory): weekdays between home in Kadıköy and work, and
    /// trips of 2–5 nights to Ankara, İzmir, Athens or Sofia (the phone jumps there at midnight).
    @Test func tripsAndTheYearInReview() throws {
        let bench = HistoryCLITests.Bench(directory: try TempDirectory("roqua-trips"), roqua: roqua)
        let file = bench.directory.file("phone.csv")
        try PhoneHistory.csv(seed: 3, days: 120).write(toFile: file, atomically: true, encoding: .utf8)
        let boundaries = ["--boundaries", try Bundled.path()]
        _ = try bench.ok(["track", "import", file] + boundaries)
        // The phone jumps at UTC midnight: in UTC, 03:00 falls mid-night, never on the jump.
        let utc = boundaries + ["--time-zone", "UTC"]

        let trips = try bench.decoded([TripRow].self, ["trips"] + utc)
        #expect(trips.count >= 2)
        let known: [String: String] = ["TR-06": "TR", "TR-35": "TR", "GR-I": "GR", "BG-22": "BG"]
        for trip in trips {
            #expect((2...5).contains(trip.nights), "\(trip)")
            #expect(trip.end > trip.start)
            #expect(trip.countries.count == 1 && trip.provinces.count == 1, "\(trip)")
            #expect(trip.destination?.country?.code == trip.countries.first)
            if let province = trip.provinces.first, let country = known[province] { #expect(trip.countries == [country]) }
        }
        #expect(Set(trips.flatMap(\.countries)).isSubset(of: ["TR", "GR", "BG"]))

        let year = try bench.decoded(Year.self, ["year", "2022"] + utc)
        #expect(year.year == 2022)
        #expect(year.new.countries.contains("TR"))
        #expect(year.new.provinces.contains("TR-34"))
        #expect(year.trips.count == trips.count)
        #expect(Set(year.distanceKm.keys) == ["walk", "cycle", "road", "rail", "boat", "flight", "unknown"])
        #expect(year.topPlaces.first?.label == "home")
        let abroad = trips.filter { $0.countries != ["TR"] }
        let nightsAbroad = abroad.reduce(0) { $0 + $1.nights }
        #expect(year.daysAbroad >= nightsAbroad && year.daysAbroad <= nightsAbroad + abroad.count, "\(year.daysAbroad)")
        #expect(try bench.decoded(Year.self, ["year", "2021"] + utc).trips.isEmpty)

        let text = try bench.ok(["year", "2022"] + utc)
        #expect(text.hasPrefix("2022 in review\n"))
        #expect(text.contains("trips: \(trips.count)"))
        let farYear = try bench.run(["year", "99999999999"] + utc)
        #expect(farYear.status != 0 && farYear.stderr.contains("YEAR must be a year from 1 to 9999"))
        let noYear = try bench.run(["trips", "--year", "0"] + utc)
        #expect(noYear.status != 0 && noYear.stderr.contains("--year must be a year from 1 to 9999"))
    }

    /// Eleven weeks of a phone cut into four files, imported out of order, each import
    /// segmenting again only from just before its earliest fix.
    func phoneInParts(_ bench: HistoryCLITests.Bench, order: [Int]) throws -> [String] {
        let lines = PhoneHistory.csv(seed: 5, days: 77).split(separator: "\n").map(String.init)
        let body = lines.dropFirst()
        let size = (body.count + 3) / 4
        return try order.map { part in
            let file = bench.directory.file("part\(part).csv")
            let chunk = body.dropFirst(part * size).prefix(size)
            try ([lines[0]] + chunk).joined(separator: "\n").appending("\n").write(toFile: file, atomically: true, encoding: .utf8)
            return file
        }
    }

    @Test func theKeptTimelineIsWhatSegmentingEverythingAtOnceGives() throws {
        let boundaries = ["--boundaries", try Bundled.path()]
        let whole = HistoryCLITests.Bench(directory: try TempDirectory("roqua-timeline-whole"), roqua: roqua)
        let file = whole.directory.file("phone.csv")
        try PhoneHistory.csv(seed: 5, days: 77).write(toFile: file, atomically: true, encoding: .utf8)
        _ = try whole.ok(["track", "import", file] + boundaries)
        let parts = HistoryCLITests.Bench(directory: try TempDirectory("roqua-timeline-parts"), roqua: roqua)
        for file in try phoneInParts(parts, order: [2, 0, 3, 1]) { _ = try parts.ok(["track", "import", file] + boundaries) }

        let span = ["timeline", "2022-01-01", "--to", "2022-03-20", "--json"] + boundaries
        let expected = try whole.ok(span)
        #expect(try whole.decoded(Timeline.self, ["timeline", "2022-01-01", "--to", "2022-03-20"] + boundaries).entries.count > 150)
        #expect(try parts.ok(span) == expected)
        #expect(try parts.ok(["places", "--json"] + boundaries) == (try whole.ok(["places", "--json"] + boundaries)))
        // Segmenting now with the same thresholds, and a rebuild, give the kept entries again.
        _ = try parts.ok(["rebuild"] + boundaries)
        #expect(try parts.ok(span) == expected)
    }

    @Test func aRebuildRemembersTheStayThresholds() throws {
        let boundaries = ["--boundaries", try Bundled.path()]
        let bench = HistoryCLITests.Bench(directory: try TempDirectory("roqua-timeline-rebuild"), roqua: roqua)
        for file in try phoneInParts(bench, order: [0, 1]) { _ = try bench.ok(["track", "import", file] + boundaries) }
        // January: well inside the first two parts, so the third changes none of it.
        let span = ["timeline", "2022-01-01", "--to", "2022-01-31", "--json"] + boundaries
        // A stay of 1.5 km takes in the first and last minutes of each commute.
        let standard = try bench.ok(span)
        let wide = try bench.ok(span + ["--stay-meters", "1500"])
        #expect(wide != standard)

        let rebuilt = try bench.ok(["rebuild", "--stay-meters", "1500"] + boundaries)
        #expect(rebuilt.contains("stays of 5 min within 1500 m"), "\(rebuilt)")
        #expect(try bench.ok(span) == wide)
        // Later imports keep to them.
        for file in try phoneInParts(bench, order: [2]) { _ = try bench.ok(["track", "import", file] + boundaries) }
        let later = ["timeline", "2022-02-15", "--to", "2022-03-05", "--json"] + boundaries
        #expect(try bench.ok(later) == (try bench.ok(later + ["--stay-meters", "1500"])))

        _ = try bench.ok(["rebuild", "--stay-meters", "100"] + boundaries)
        #expect(try bench.ok(span) == standard)
        let far = try bench.run(["rebuild", "--stay-meters", "5000"] + boundaries)
        #expect(far.status != 0 && far.stderr.contains("--stay-meters"), "\(far.stderr)")
    }

    /// A forgotten day shows nothing: no stay bridges it, though the phone was at home on both sides.
    @Test func aForgottenDayIsBridgedByNoStay() throws {
        let boundaries = ["--boundaries", try Bundled.path()]
        let bench = HistoryCLITests.Bench(directory: try TempDirectory("roqua-timeline-forget"), roqua: roqua)
        for file in try phoneInParts(bench, order: [0]) { _ = try bench.ok(["track", "import", file] + boundaries) }
        // 2022-01-08 is a Saturday at home: one stay from Friday evening to Monday morning.
        let saturday = ["timeline", "2022-01-08"] + boundaries
        let before = try bench.decoded(Timeline.self, saturday)
        #expect(before.entries.count == 1 && before.entries.first?.type == "stay", "\(before.entries)")
        _ = try bench.ok(["forget", "--from", "2022-01-08", "--to", "2022-01-09", "--yes"] + boundaries)
        #expect(try bench.decoded(Timeline.self, saturday).entries.isEmpty)
        let midnight = try #require(ISO8601DateFormatter().date(from: "2022-01-07T21:00:00Z"))
        let friday = try bench.decoded(Timeline.self, ["timeline", "2022-01-07"] + boundaries)
        #expect(try #require(friday.entries.last).end < midnight)
        let sunday = try bench.decoded(Timeline.self, ["timeline", "2022-01-09"] + boundaries)
        #expect(try #require(sunday.entries.first).start >= midnight.addingTimeInterval(86_400))
        // Segmented now, with other thresholds, the day stays empty too.
        #expect(try bench.decoded(Timeline.self, saturday + ["--stay-minutes", "20"]).entries.isEmpty)
    }
}
