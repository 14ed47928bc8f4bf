import Foundation
import GRDB
import RoquaBoundaries
import RoquaIO
import RoquaTestSupport
import Testing

@testable import RoquaRegions

/// Flights, days per place and explorer tiles, on generated tracks whose answers are known by
/// construction.
@Suite struct TravelTests {
    /// A file that goes back and forth between two regions within one quarter hour records two
    /// presences, not one per fix: the list is compacted as it grows.
    @Test func presenceStaysBoundedByWhatIsDistinct() {
        var recorder = TravelRecorder()
        let start = Date(timeIntervalSince1970: 1_700_000_100)
        for i in 0..<(TravelRecorder.compactAt * 5 / 2) {
            recorder.ground(Fix(coordinate: Coordinate(latitude: 41, longitude: 29), timestamp: start), region: i % 2)
        }
        #expect(recorder.presence.count < TravelRecorder.compactAt)
        #expect(Set(recorder.presence).count == 2)
    }

    static let istanbulAirport = (lat: 41.2753, lon: 28.7519), berlinAirport = (lat: 52.3667, lon: 13.5033)

    static func csv(_ rows: [(lat: Double, lon: Double, time: Date)]) -> String {
        "lat,lon,time\n" + rows.map { "\($0.lat),\($0.lon),\(TimeText.iso8601Milliseconds($0.time) ?? "")" }.joined(separator: "\n") + "\n"
    }

    /// A morning walk in İstanbul, the airport, a flight to Berlin with a fix a minute at cruise
    /// speed (over Bulgaria, Romania, Hungary, Slovakia…), then a walk at Berlin's airport.
    static func flightTrack(phoneOffInTheAir: Bool = false) -> [(lat: Double, lon: Double, time: Date)] {
        let start = Date(timeIntervalSince1970: 1_714_716_000)  // 2024-05-03T06:00:00Z
        var rows: [(lat: Double, lon: Double, time: Date)] = []
        for i in 0..<30 { rows.append((41.0082 + Double(i) * 0.0003, 28.9784 + Double(i) * 0.0003, start + Double(i) * 60)) }
        let takeOff = start + 7_200
        rows.append((istanbulAirport.lat, istanbulAirport.lon, takeOff))
        let minutes = 126
        if !phoneOffInTheAir {
            for i in 1..<minutes {
                let f = Double(i) / Double(minutes)
                rows.append(
                    (
                        istanbulAirport.lat + (berlinAirport.lat - istanbulAirport.lat) * f,
                        istanbulAirport.lon + (berlinAirport.lon - istanbulAirport.lon) * f, takeOff + Double(i) * 60
                    ))
            }
        }
        let landing = takeOff + Double(minutes) * 60
        for i in 0..<30 {
            rows.append((berlinAirport.lat + Double(i) * 0.0003, berlinAirport.lon + Double(i) * 0.0003, landing + Double(i) * 60))
        }
        return rows
    }

    static func importing(
        _ text: String, flightSpeed: Double = 250
    ) throws -> (summary: TrackImportSummary, store: RegionStore, dir: TempDirectory) {
        let dir = try TempDirectory()
        let path = dir.file("track.csv")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let store = try RegionStore(path: dir.file("regions.sqlite"))
        let importer = try TrackImporter(
            store: store, enricher: try RegionEnricher(boundaries: Bundled.path()),
            flights: FlightSettings(speedKmh: flightSpeed))
        return (try importer.importFile(path), store, dir)
    }

    static func countries(_ store: RegionStore) throws -> Set<String> {
        Set(try store.allRegions().compactMap(\.countryCode))
    }

    @Test func aFlightCountsTheEndsNotTheCountriesBelow() throws {
        let (summary, store, _) = try Self.importing(Self.csv(Self.flightTrack()))
        #expect(try Self.countries(store) == ["TR", "DE"])
        // 125 fixes at cruise, and the touchdown: reached at cruise speed from the last of them,
        // it counts as in the air too; the next, a minute later 40 m on, is the arrival.
        #expect(summary.flights.count == 1 && summary.inFlight == 126 && summary.glitches == 0)
        let flight = try #require(try store.flights().first)
        #expect(flight.fromCode == "TR" && flight.toCode == "DE" && flight.fixes == 126)
        #expect(abs(flight.km - 1_693) < 5, "\(flight.km)")
        // The rule is what keeps them out: with a flight speed above the plane's (1,000 km/h),
        // the same track lights the countries it flew over.
        let (_, flownOver, _) = try Self.importing(Self.csv(Self.flightTrack()), flightSpeed: 1_000)
        let below = try Self.countries(flownOver)
        #expect(below.isSuperset(of: ["TR", "DE", "BG", "RO", "HU"]), "\(below)")
        // Days and tiles count no fix in the air.
        #expect(try store.days(year: 2024, level: .country, zone: TimeZone(identifier: "UTC")!).units.map(\.code).sorted() == ["DE", "TR"])
        let tiles = try store.visitedTiles(zoom: 14)
        #expect(tiles.allSatisfy { $0.x < 8_900 || $0.x > 8_600 } && tiles.count < 12, "\(tiles.count)")
    }

    @Test func aPhoneOffInTheAirStillMakesAFlightAndCountsBothEnds() throws {
        let (summary, store, _) = try Self.importing(Self.csv(Self.flightTrack(phoneOffInTheAir: true)))
        #expect(summary.flights.count == 1 && summary.inFlight == 0)
        #expect(try Self.countries(store) == ["TR", "DE"])
    }

    @Test func aGlitchLightsNothing() throws {
        let t = Date(timeIntervalSince1970: 1_714_716_000)
        // A fix in Bulgaria, 330 km off, a minute between two in İstanbul 30 m apart.
        let rows = [(41.0300, 29.0300, t), (42.7000, 25.5000, t + 60), (41.0302, 29.0302, t + 120)]
        let (summary, store, _) = try Self.importing(Self.csv(rows.map { (lat: $0.0, lon: $0.1, time: $0.2) }))
        #expect(summary.glitches == 1 && summary.flights.isEmpty)
        #expect(try Self.countries(store) == ["TR"] && store.allRegions().count == 1)
        #expect(try store.visitedTiles(zoom: 17).count == 1)
    }

    /// Tiles a hand (or another program) wrote with values that are not integers are passed
    /// over, not counted as tile 0 or rounded: the store's other tiles count as before.
    @Test func tilesThatAreNotIntegersArePassedOver() throws {
        let (_, store, directory) = try Self.importing(
            Self.csv([(lat: 41.0300, lon: 29.0300, time: Date(timeIntervalSince1970: 1_714_716_000))]))
        defer { withExtendedLifetime(directory) {} }
        let good = try store.visitedTiles(zoom: 17)
        #expect(good.count == 1)
        try DatabaseQueue(path: store.path).write { db in
            try db.execute(sql: "INSERT INTO tiles (x, y) VALUES ('abc', 5), (7, 'north'), (X'0102', 3), (2.5, 9)")
        }
        #expect(try store.visitedTiles(zoom: 17) == good)
        #expect(try store.visitedTiles(zoom: 14).count == 1)
    }

    /// Quarter-hours a hand wrote that are not integers are passed over by every query of
    /// `presence` (days per place, days abroad, first and last time on the ground).
    @Test func presenceThatIsNotAnIntegerIsPassedOver() throws {
        let (_, store, directory) = try Self.importing(
            Self.csv([(lat: 41.0300, lon: 29.0300, time: Date(timeIntervalSince1970: 1_714_716_000))]))
        defer { withExtendedLifetime(directory) {} }
        let utc = TimeZone(identifier: "UTC")!
        func figures() throws -> [String] {
            let abroad = try store.read { db in try RegionStore.daysAbroad(db, zone: utc) }
            return [
                "\(try store.days(year: 1970, level: .country, zone: utc).units)",
                "\(try store.days(year: 2024, level: .country, zone: utc).units)",
                "\(abroad)", "\(String(describing: try store.firstOnTheGround()))", "\(String(describing: try store.lastOnTheGround()))",
            ]
        }
        let before = try figures()
        try DatabaseQueue(path: store.path).write { db in
            try db.execute(
                sql: """
                    INSERT INTO presence VALUES (3.7, 'JP', '', ''), ('abc', 'DE', '', ''), (X'00', 'FR', '', '')
                    """)
        }
        #expect(try figures() == before)
    }

    /// A year in Europe/Berlin's calendar: fixes at 00:10 and 23:50 local each day, in one
    /// city (a stay) or two (the day of a move, which counts for both), moving between İstanbul
    /// and Berlin; DST days and the year's edges included. The truth is known by construction.
    @Test func daysPerCountryMatchTheCalendarOfTheChosenZone() throws {
        let zone = try #require(TimeZone(identifier: "Europe/Berlin"))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let istanbul = (lat: 41.0082, lon: 28.9784), berlin = (lat: 52.5200, lon: 13.4050)
        // Stays: İstanbul to day 89 (March 30), moving on March 31 (DST begins), Berlin to October 26, moving
        // on October 27 (DST ends), İstanbul to the end of the year, and into 2025.
        var rows: [(lat: Double, lon: Double, time: Date)] = []
        var truth: [String: Set<Int>] = ["TR": [], "DE": []]
        for day in 0..<368 {
            let date = try #require(calendar.date(from: DateComponents(year: 2024, month: 1, day: 1 + day)))
            let morning = date + 600, evening = try #require(calendar.date(bySettingHour: 23, minute: 50, second: 0, of: date))
            let month = calendar.component(.month, from: date), dayOfMonth = calendar.component(.day, from: date)
            let (am, pm): ((lat: Double, lon: Double), (lat: Double, lon: Double)) =
                switch (month, dayOfMonth) {
                case (3, 31): (istanbul, berlin)
                case (10, 27): (berlin, istanbul)
                case (4...9, _), (10, 1...26): (berlin, berlin)
                default: (istanbul, istanbul)
                }
            rows.append((am.lat, am.lon, morning))
            rows.append((pm.lat, pm.lon, evening))
            guard calendar.component(.year, from: date) == 2024 else { continue }
            truth[am.lat == berlin.lat ? "DE" : "TR", default: []].insert(day)
            truth[pm.lat == berlin.lat ? "DE" : "TR", default: []].insert(day)
        }
        let (_, store, _) = try Self.importing(Self.csv(rows))
        let report = try store.days(year: 2024, level: .country, zone: zone)
        let expected = truth.map { DaysReport.Unit(code: $0.key, name: $0.key == "TR" ? "Türkiye" : "Germany", days: $0.value.count) }
            .sorted { ($1.days, $0.code) < ($0.days, $1.code) }
        #expect(report.units == expected, "\(report.units) vs \(expected)")
        // In UTC the 00:10 fixes fall on the day before: the counts differ (the zone matters).
        #expect(try store.days(year: 2024, level: .country, zone: TimeZone(identifier: "UTC")!).units != report.units)
        let provinces = try store.days(year: 2024, level: .province, zone: zone)
        #expect(provinces.units.map(\.code).sorted() == ["DE-BE", "TR-34"], "\(provinces.units)")
    }

    @Test func tileFiguresFollowTheDefinitions() {
        // A 4×4 block at (10…13, 20…23) plus a row of 5 touching it, and a lone tile.
        var visited = Set<Tile>()
        for x in 10...13 { for y in 20...23 { visited.insert(Tile(x: x, y: y)) } }
        for x in 9...13 { visited.insert(Tile(x: x, y: 24)) }
        visited.insert(Tile(x: 40, y: 40))
        let stats = TileStats(zoom: 14, visited: visited)
        #expect(stats.tiles == 22)
        #expect(stats.maxSquare == 4 && stats.square == TileStats.Square(x: 10, y: 20, size: 4))
        // Cluster tiles: those with all four neighbours visited — (11…12, 21…23).
        #expect(stats.maxCluster == 6 && stats.cluster.count == 6)
        #expect(TileStats(zoom: 14, visited: []).maxSquare == 0)
        // The tile of a known point (zoom 14): Kadıköy's pier.
        #expect(Tile(latitude: 40.9910, longitude: 29.0230, zoom: 14) == Tile(x: 9512, y: 6143))
    }

    /// A store written before flights existed: its in-flight regions are moved out of the counts
    /// on upgrade, a flight is found, and the change is noted.
    @Test func anOlderStoreIsReEvaluatedOnceOnUpgrade() throws {
        let dir = try TempDirectory()
        let path = dir.file("old.sqlite")
        let queue = try DatabaseQueue(path: path)
        try RegionSchema.migrator.migrate(queue, upTo: RegionSchema.devices)
        let rows = Self.flightTrack()
        try queue.write { db in
            for (index, row) in rows.enumerated() where index % 5 == 0 || index < 31 || index >= rows.count - 30 {
                let time = TimeText.iso8601Milliseconds(row.time) ?? ""
                let country = row.lon < 14 ? "DE" : row.lon > 28 ? "TR" : "BG"
                try db.execute(
                    sql: """
                        INSERT INTO visited_regions (latitude, longitude, radius, timestamp_start, timestamp_end, geohash, last_visit, country_code)
                        VALUES (?, ?, 150, ?, ?, 'x', ?, ?)
                        """, arguments: [row.lat, row.lon, time, time, time, country])
            }
        }
        try queue.close()
        let store = try RegionStore(path: path)
        #expect(try Self.countries(store) == ["TR", "DE"])
        let moved = try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM flight_regions") ?? 0 }
        // The 25 regions made in the air, and the touchdown's (reached at cruise speed).
        #expect(moved == 26, "\(moved)")
        #expect(try store.flights().count == 1)
        #expect(try store.upgradeNotes().first?.message.contains("\(moved) region(s) taken in flight") == true)
    }

    /// A hostile file of nothing but jumps is one long "flight": its fixes are counted, but the
    /// ones kept in memory (and stored as its path) stay bounded.
    @Test func aFlightOfEndlessJumpsStaysBoundedInMemory() {
        var filter = FlightFilter()
        var flights: [Flight] = []
        let count = 100_000, start = Date(timeIntervalSince1970: 1_714_716_000)
        for i in 0..<count {
            // 0.02° (~1.7 km) east a second, round and round the 40th parallel: always above the flight speed.
            let longitude = (Double(i) * 0.02).truncatingRemainder(dividingBy: 360) - 180
            let fix = Fix(coordinate: Coordinate(latitude: 40, longitude: longitude), timestamp: start + Double(i))
            filter.push(fix) { if case let .flight(flight) = $0 { flights.append(flight) } }
        }
        for decision in filter.finish() { if case let .flight(flight) = decision { flights.append(flight) } }
        // The first fix is the departure (on the ground: nothing before it); every other is in the air.
        #expect(flights.count == 1 && flights[0].fixCount == count - 1 && flights[0].departure?.timestamp == start)
        #expect(flights[0].fixes.count <= 2 * FlightFilter.keptFixes, "\(flights[0].fixes.count)")
        #expect(flights[0].fixes.first?.timestamp == start + 1 && flights[0].fixes.last?.timestamp == start + Double(count - 1))
    }
}
