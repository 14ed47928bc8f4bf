import Foundation
import RoquaBoundaries
import RoquaRegions
import RoquaTestSupport
import Testing

@testable import RoquaAchievements

/// Five ordinary days out — a walk, a bike ride, a drive, a train, a flight — each imported alone
/// into a fresh store through the real importer (clustering, flight filter, naming) with the
/// bundled catalog: which achievements each unlocks, which it must not, and on which day.
@Suite struct RealisticTrackTests {
    /// A track along `waypoints` (lat, lon), each leg at its speed (`speeds`, km/h; the last one
    /// for the legs beyond), one fix every `every` seconds from `start`.
    static func gpx(_ waypoints: [(Double, Double)], speeds: [Double], every: Double, start: Date) -> (text: String, end: Date) {
        var fixes: [(Double, Double, Date)] = []
        var time = start
        for (leg, (a, b)) in zip(waypoints, waypoints.dropFirst()).enumerated() {
            let kmh = speeds[min(leg, speeds.count - 1)]
            let step = kmh / 3.6 * every
            let length = Geodesy.haversineMeters(Coordinate(latitude: a.0, longitude: a.1), Coordinate(latitude: b.0, longitude: b.1))
            let steps = max(1, Int((length / step).rounded()))
            for i in 0..<steps {
                let f = Double(i) / Double(steps)
                fixes.append((a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f, time))
                time += length / Double(steps) / (kmh / 3.6)
            }
        }
        if let last = waypoints.last { fixes.append((last.0, last.1, time)) }
        let formatter = ISO8601DateFormatter()
        let points = fixes.map { "<trkpt lat=\"\($0.0)\" lon=\"\($0.1)\"><time>\(formatter.string(from: $0.2))</time></trkpt>" }
        return (
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            \(points.joined(separator: "\n"))
            </trkseg></trk></gpx>
            """, time
        )
    }

    struct Outcome {
        var unlocks: [AchievementUnlock]
        var regions: [VisitedRegion]
        var flights: Int
        var start: Date
        var end: Date
        var ids: Set<String> { Set(unlocks.map(\.id)) }
    }

    /// Imports the track into a fresh store, as `roqua track import` does, and evaluates the board.
    static func run(_ waypoints: [(Double, Double)], kmh: Double..., every: Double, start: String) throws -> Outcome {
        let setup = try AchievementTrackerTests.Setup(timeZone: TimeZone(identifier: "Europe/Istanbul")!)
        let begin = try #require(ISO8601DateFormatter().date(from: start))
        let track = gpx(waypoints, speeds: kmh, every: every, start: begin)
        let path = setup.directory.file("track.gpx")
        try track.text.write(toFile: path, atomically: true, encoding: .utf8)
        _ = try setup.run(path)
        let board = try setup.tracker.board(store: setup.store)
        #expect(board.newUnlocks.isEmpty, "the import stored every unlock")
        return Outcome(
            unlocks: board.unlocks, regions: try setup.store.allRegions(), flights: try setup.store.flights().count,
            start: begin, end: track.end)
    }

    static let speedBadges: Set<String> = ["sprint_15min", "speed_explorer", "speed_explorer_20"]

    /// Every unlock is dated inside the track, not on the day the test runs.
    static func expectDatedInside(_ outcome: Outcome) {
        for unlock in outcome.unlocks {
            #expect(
                unlock.unlockedAt >= outcome.start && unlock.unlockedAt <= outcome.end,
                "\(unlock.id) dated \(unlock.unlockedAt), the track ran \(outcome.start)–\(outcome.end)")
        }
    }

    /// The walk a new user tried: Kadıköy to Üsküdar, ~4 km in 54 minutes, a fix a minute.
    @Test func aWalkUnlocksNoSpeedBadge() throws {
        let walk = try Self.run(
            [(40.9903, 29.0240), (41.0010, 29.0300), (41.0150, 29.0180), (41.0255, 29.0150)],
            kmh: 4.6, every: 60, start: "2023-06-10T09:00:00Z")
        #expect(walk.ids.isDisjoint(with: Self.speedBadges), "\(walk.ids.intersection(Self.speedBadges))")
        #expect(walk.ids.contains("first_steps"))
        Self.expectDatedInside(walk)
        // First Steps (10 regions) is dated by the tenth region's entry.
        let tenth = try #require(walk.regions.map(\.timestampStart).sorted().dropFirst(9).first)
        #expect(walk.unlocks.first { $0.id == "first_steps" }?.unlockedAt == tenth)
    }

    /// Bostancı to Pendik along the coast at 18 km/h: a sprint, not a speed explorer.
    @Test func aBikeRideUnlocksTheSprintOnly() throws {
        let ride = try Self.run(
            [(40.9560, 29.0950), (40.9150, 29.1500), (40.8880, 29.1950), (40.8750, 29.2330)],
            kmh: 18, every: 10, start: "2023-06-11T08:00:00Z")
        #expect(ride.ids.intersection(Self.speedBadges) == ["sprint_15min"])
        Self.expectDatedInside(ride)
    }

    /// Kadıköy to İzmit by the motorway at 90 km/h: every speed badge.
    @Test func aDriveUnlocksEverySpeedBadge() throws {
        let drive = try Self.run(
            [(40.9900, 29.0300), (40.9200, 29.2000), (40.8200, 29.4000), (40.7650, 29.9400)],
            kmh: 90, every: 5, start: "2023-06-12T10:00:00Z")
        #expect(drive.ids.isSuperset(of: Self.speedBadges))
        Self.expectDatedInside(drive)
    }

    /// Ankara to Eskişehir on the high-speed line at 180 km/h: every speed badge, no flight.
    @Test func aTrainUnlocksEverySpeedBadge() throws {
        let train = try Self.run(
            [(39.9360, 32.8500), (39.8500, 31.9000), (39.7760, 30.5200)],
            kmh: 180, every: 10, start: "2023-06-13T11:00:00Z")
        #expect(train.ids.isSuperset(of: Self.speedBadges))
        Self.expectDatedInside(train)
    }

    /// Sabiha Gökçen to Esenboğa: a walk to the gate, taxiing at both ends, 800 km/h between.
    /// The airborne part makes no region and breaks any run of regions, so no speed badge.
    @Test func aFlightUnlocksNoSpeedBadge() throws {
        let flight = try Self.run(
            [
                (40.8960, 29.3060), (40.8985, 29.3092), (40.9050, 29.3200), (40.1280, 32.9950),
                (40.1240, 33.0050), (40.1220, 33.0080),
            ],
            kmh: 5, 20, 800, 20, 5, every: 30, start: "2023-06-14T12:00:00Z")
        #expect(flight.ids.isDisjoint(with: Self.speedBadges), "\(flight.ids.intersection(Self.speedBadges))")
        #expect(flight.flights == 1)
        Self.expectDatedInside(flight)
    }
}
