import Foundation
import Testing

@testable import RoquaTimeline

/// The moves between the first and the last stay of `entries`.
func movesBetweenStays(_ entries: [TimelineEntry]) -> [Move] {
    guard let first = entries.firstIndex(where: { $0.stay != nil }), let last = entries.lastIndex(where: { $0.stay != nil }) else {
        return []
    }
    return entries[first...last].compactMap(\.move)
}

/// Moves: one mode each, red lights, ferry then walk, train, flights with and without fixes, holes.
@Suite struct MoveTests {
    let day = SyntheticDays.at(0, 0)

    @Test func redLightStopsInACarAreNotStays() {
        var b = SyntheticBuilder(seed: 5, start: day + 8 * 3600, position: SyntheticDays.home)
        b.stay(until: b.now + 1800)
        b.travel(.road, to: SyntheticDays.sabihaGokcen, kmh: 50)
        b.stay(until: b.now + 1800)
        let entries = Timeline.segment(b.fixes, isOnLand: SyntheticDays.isOnLand)
        #expect(entries.compactMap(\.stay).count == 2)
        #expect(movesBetweenStays(entries).map(\.mode) == [.road])
    }

    @Test func aFerryThenAWalkAreTwoMovesWithoutAStay() {
        var b = SyntheticBuilder(seed: 9, start: day + 8 * 3600, position: SyntheticDays.kadikoyPier.offset(north: -300, east: 300))
        b.stay(until: b.now + 1800)
        b.travel(.walk, to: SyntheticDays.kadikoyPier, kmh: 5)
        b.travel(.boat, to: SyntheticDays.karakoyPier, kmh: 25)
        b.travel(.walk, to: SyntheticDays.ferryOffice, kmh: 5)
        b.stay(until: b.now + 1800)
        let entries = Timeline.segment(b.fixes, isOnLand: SyntheticDays.isOnLand)
        #expect(entries.compactMap(\.stay).count == 2)
        let modes = movesBetweenStays(entries).map(\.mode)
        #expect(modes.suffix(2) == [.boat, .walk])
        #expect(modes.allSatisfy { $0 == .walk || $0 == .boat }, "\(movesBetweenStays(entries))")
    }

    /// A car crossing the strait on a bridge spends a minute and a half over water at boat speed:
    /// still one road move, not road-boat-road.
    @Test func aBridgeIsRoadNotBoat() {
        let middle = GeoPoint(
            latitude: (SyntheticDays.kadikoyPier.latitude + SyntheticDays.karakoyPier.latitude) / 2,
            longitude: (SyntheticDays.kadikoyPier.longitude + SyntheticDays.karakoyPier.longitude) / 2)
        // Across the ferry line (which runs 3.3 km north, 3.9 km west), 5 km to each side.
        var b = SyntheticBuilder(seed: 21, start: day + 8 * 3600, position: middle.offset(north: -3810, east: -3235))
        b.stay(until: b.now + 1800)
        b.travel(.road, to: middle.offset(north: 3810, east: 3235), kmh: 50)
        b.stay(until: b.now + 1800)
        #expect(SyntheticDays.isOnLand(middle.latitude, middle.longitude) == false)
        let entries = Timeline.segment(b.fixes, isOnLand: SyntheticDays.isOnLand)
        #expect(movesBetweenStays(entries).map(\.mode) == [.road])
    }

    /// A car leaving a stay 300 m from the strait crosses it at once (2.4 minutes over water, more
    /// when it stops at a red light on the bridge) and drives on: the water comes first in the move,
    /// with only the slow start before it, and is still the road (it was a boat and then a road move:
    /// bench_trackintel.py's year had 2.6 hours of such bridge crossings). The last minutes of a
    /// drive after its last stop can come out as a walk, as a parked car's driver walks.
    @Test func aBridgeRightAfterAStayIsRoadNotBoat() {
        let middle = GeoPoint(
            latitude: (SyntheticDays.kadikoyPier.latitude + SyntheticDays.karakoyPier.latitude) / 2,
            longitude: (SyntheticDays.kadikoyPier.longitude + SyntheticDays.karakoyPier.longitude) / 2)
        for seed in UInt64(30)..<36 {
            // 900 m from the ferry line, across it (see aBridgeIsRoadNotBoat), the water 600 m either side.
            var b = SyntheticBuilder(seed: seed, start: day + 8 * 3600, position: middle.offset(north: -686, east: -582))
            b.stay(until: b.now + 1800)
            b.travel(.road, to: middle.offset(north: 3810, east: 3235), kmh: 30)
            b.stay(until: b.now + 1800)
            let moves = movesBetweenStays(Timeline.segment(b.fixes, isOnLand: SyntheticDays.isOnLand))
            #expect(moves.first?.mode == .road && moves.first.map { $0.meters > 5_000 } == true, "seed \(seed): \(moves)")
            #expect(!moves.contains { $0.mode == .boat }, "seed \(seed): \(moves)")
        }
    }

    /// A car driven onto the ferry and off it again, with the phone asleep for nine minutes of the
    /// 5 km crossing: the fixes over water cover about 1.3 km, but from the first of them to the
    /// last the boat went 4 km in twelve minutes: a boat, not a bridge (when the hole was left out
    /// of the distance over water, 4 of these 6 were road from end to end).
    @Test func aCarFerryWithAHoleIsABoatNotABridge() {
        for seed in UInt64(60)..<66 {
            let (boat, moves) = carFerry(seed: seed, kmh: 20, hole: (3, 9))
            #expect(boat >= 8 * 60_000, "seed \(seed): \(moves)")
        }
    }

    /// A slow car ferry with the phone asleep for most of the crossing (11 of 15 minutes): what
    /// is left of the crossing on each side is too short to be a boat of its own, and the hole
    /// is slow enough for a car. The water under the hole's straight line tells.
    @Test func aCarFerryMostlyInAHoleIsABoat() {
        for seed in UInt64(70)..<76 {
            let (boat, moves) = carFerry(seed: seed, kmh: 14, hole: (2, 11))
            #expect(boat >= 11 * 60_000, "seed \(seed): \(moves)")
        }
    }

    /// A hole is a boat only when it starts or ends over water, lies mostly over water and was
    /// crossed at a boat's speed: a drive with the phone off from shore to shore, a night ashore
    /// between two shores, or a crossing faster than any boat stay unknown.
    @Test func aHoleIsABoatOnlyFromOrToWater() {
        // Water between 40.99° and 41.01° N; a hole northward along 29° E.
        let isOnLand = { (latitude: Double, _: Double) in abs(latitude - 41) > 0.01 }
        func hole(from: Double, to: Double, metresPerSecond: Double) -> MoveRun {
            let a = TimelineFix(time: 0, latitude: from, longitude: 29), b = TimelineFix(time: 0, latitude: to, longitude: 29)
            let meters = Geodesy.haversine(from, 29, to, 29)
            let track = Track([a, TimelineFix(time: Int64(meters / metresPerSecond * 1000), latitude: b.latitude, longitude: b.longitude)])
            return MoveSegmenter.gapRun(track, 0, isOnLand: isOnLand)
        }
        let ferry = hole(from: 40.995, to: 41.0105, metresPerSecond: 5)
        #expect(ferry.mode == .boat && ferry.firstWet == 0 && ferry.lastWet == 1)
        #expect(hole(from: 40.9895, to: 41.005, metresPerSecond: 5).mode == .boat)  // ends over water
        #expect(hole(from: 40.9895, to: 41.0105, metresPerSecond: 5).mode == .unknown)  // shore to shore
        #expect(hole(from: 40.995, to: 41.0105, metresPerSecond: 1).mode == .unknown)  // a night ashore
        #expect(hole(from: 40.995, to: 41.0105, metresPerSecond: 30).mode == .unknown)  // faster than a boat
        #expect(hole(from: 40.995, to: 41.05, metresPerSecond: 5).mode == .unknown)  // mostly over land
    }

    /// A drive to Kadıköy's pier, a car ferry to Karaköy at `kmh` with `hole` (minutes after it
    /// leaves, minutes long), a drive on: the milliseconds given "boat", and the moves as text.
    private func carFerry(seed: UInt64, kmh: Double, hole: (Double, Double)) -> (boat: Int64, moves: [String]) {
        var b = SyntheticBuilder(seed: seed, start: day + 8 * 3600, position: SyntheticDays.home)
        b.stay(until: b.now + 1800)
        b.travel(.road, to: SyntheticDays.kadikoyPier, kmh: 30)
        b.travel(.boat, to: SyntheticDays.karakoyPier, kmh: kmh, hole: hole)
        b.travel(.road, to: SyntheticDays.ferryOffice.offset(north: 2000, east: 0), kmh: 30)
        b.stay(until: b.now + 1800)
        let moves = movesBetweenStays(Timeline.segment(b.fixes, isOnLand: SyntheticDays.isOnLand))
        let boat = moves.filter { $0.mode == .boat }.reduce(Int64(0)) { $0 + $1.end - $1.start }
        return (boat, moves.map { "\($0.mode) \(($0.end - $0.start) / 1000) s" })
    }

    /// One fix 600 m off with a believable accuracy (28 m), in the middle of a short walk with a
    /// fix every 70 s: the walk goes on, one move (it was walk, cycle, walk).
    @Test func aFixJumpingOffAndBackDoesNotCutAWalk() {
        let start = SyntheticDays.home
        var fixes: [TimelineFix] = []
        var time = Int64(day * 1000) + 8 * 3_600_000
        func add(_ p: GeoPoint, accuracy: Double = 10) {
            fixes.append(TimelineFix(time: time, latitude: p.latitude, longitude: p.longitude, accuracy: accuracy))
        }
        for _ in 0..<20 {  // 20 minutes at home
            add(start)
            time += 60_000
        }
        for k in 1...5 {  // a 400 m walk to a café, a fix every 70 s; the third jumps 600 m south-west
            add(
                k == 3 ? start.offset(north: -420, east: 240 - 430) : start.offset(north: 0, east: 80 * Double(k)),
                accuracy: k == 3 ? 28 : 10)
            time += 70_000
        }
        let end = start.offset(north: 0, east: 480)
        for _ in 0..<20 {
            add(end)
            time += 60_000
        }
        let entries = Timeline.segment(fixes, isOnLand: SyntheticDays.isOnLand)
        #expect(entries.compactMap(\.stay).count == 2)
        #expect(movesBetweenStays(entries).map(\.mode) == [.walk])
    }

    @Test func aHighSpeedTrainIsRail() {
        var b = SyntheticBuilder(seed: 13, start: day + 8 * 3600, position: SyntheticDays.pendik)
        b.stay(until: b.now + 900)
        b.travel(.rail, to: SyntheticDays.eskisehir, kmh: 250)
        b.stay(until: b.now + 900)
        let moves = movesBetweenStays(Timeline.segment(b.fixes, isOnLand: SyntheticDays.isOnLand))
        #expect(moves.map(\.mode) == [.rail])
        let expected = SyntheticDays.pendik.distance(to: SyntheticDays.eskisehir)
        #expect(moves.first.map { abs($0.meters - expected) < 0.03 * expected } == true)
    }

    @Test func aHoleOf700KilometresIn90MinutesIsAFlight() {
        var b = SyntheticBuilder(seed: 17, start: day + 8 * 3600, position: SyntheticDays.sabihaGokcen)
        b.stay(until: b.now + 3600)
        b.flyPhoneOff(to: SyntheticDays.orduGiresun, minutes: 90)
        b.stay(until: b.now + 1200)
        let entries = Timeline.segment(b.fixes, isOnLand: SyntheticDays.isOnLand)
        #expect(entries.count == 3)
        #expect(entries[1].move?.mode == .flight)
        #expect(entries[1].move.map { $0.fromStay == 0 && $0.toStay == 2 && $0.meters > 700_000 } == true)
    }

    @Test func aFlightWithFixesInTheAirIsOneFlight() {
        var b = SyntheticBuilder(seed: 19, start: day + 8 * 3600, position: SyntheticDays.orduGiresun)
        b.stay(until: b.now + 3600)
        b.travel(.flight, to: SyntheticDays.sabihaGokcen, kmh: 780)
        b.stay(until: b.now + 1200)
        #expect(movesBetweenStays(Timeline.segment(b.fixes, isOnLand: SyntheticDays.isOnLand)).map(\.mode) == [.flight])
    }

    @Test func aShortHoleBetweenFarFixesIsAnUnknownMove() {
        let a = still(SyntheticDays.home, from: day, to: day + 900)
        let b = still(SyntheticDays.shop, from: day + 4 * 3600, to: day + 4 * 3600 + 900)
        let entries = Timeline.segment(a + b, isOnLand: everywhereLand)
        #expect(entries.map { $0.move?.mode } == [nil, .unknown, nil])
    }

    @Test func walkingAndCyclingAreToldApart() {
        var b = SyntheticBuilder(seed: 23, start: day + 8 * 3600, position: SyntheticDays.home)
        b.stay(until: b.now + 900)
        b.travel(.walk, to: SyntheticDays.shop, kmh: 5)
        b.stay(until: b.now + 900)
        b.travel(.cycle, to: SyntheticDays.park, kmh: 18)
        b.stay(until: b.now + 900)
        #expect(movesBetweenStays(Timeline.segment(b.fixes, isOnLand: everywhereLand)).map(\.mode) == [.walk, .cycle])
    }

    /// A phone fixing every `every` seconds (σ `sigma` m) at home, then in a car driving at a steady
    /// `kmh` to `to`, which leaves home unseen `leave` seconds after the last fix there, then at `to`:
    /// the fixes of that hour.
    func cityDrive(
        kmh: Double, seed: UInt64, to: GeoPoint, leave: ClosedRange<Double>, every: ClosedRange<Double>, sigma: Double
    ) -> [TimelineFix] {
        var rng = SplitMix64(seed: seed)
        let from = SyntheticDays.home
        let home = day + 8 * 3600
        let gone = home + rng.uniform(leave.lowerBound, leave.upperBound)
        let seconds = from.distance(to: to) / (kmh / 3.6)
        let interval = (every.lowerBound + every.upperBound) / 2
        var fixes = still(from, from: home - 1800, to: home, every: interval)
        var t = home + rng.uniform(every.lowerBound, every.upperBound)
        while t < gone + seconds {
            let p = from.toward(to, max(0, (t - gone) / seconds)).offset(north: rng.gaussian(sigma), east: rng.gaussian(sigma))
            fixes.append(TimelineFix(time: Int64(t * 1000), latitude: p.latitude, longitude: p.longitude, accuracy: 2 * sigma))
            t += rng.uniform(every.lowerBound, every.upperBound)
        }
        return fixes + still(to, from: t, to: t + 1800, every: interval)
    }

    /// A phone fixing about once a minute, leaving home by car in slow city traffic (a steady
    /// `kmh`, no fix above 30 km/h) and arriving at the office.
    func slowCityDrive(kmh: Double, seed: UInt64) -> [TimelineFix] {
        cityDrive(kmh: kmh, seed: seed, to: SyntheticDays.office, leave: 40...55, every: 55...75, sigma: 6)
    }

    /// At 22–28 km/h a car in traffic is as fast as a quick cyclist's best, but cyclists ride at a
    /// median of 15–18 km/h: a steady median past 20 km/h is road (it was cycle: 405 of a year's
    /// city drives in bench_trackintel.py's year).
    @Test func aSlowCityDriveIsRoadNotCycle() {
        for (seed, kmh) in [(UInt64(1), 22.0), (2, 25), (3, 28)] {
            let moves = movesBetweenStays(Timeline.segment(slowCityDrive(kmh: kmh, seed: seed), isOnLand: everywhereLand))
            #expect(moves.map(\.mode) == [.road], "at \(kmh) km/h: \(moves)")
        }
    }

    /// A 2.7 km drive from home to the shop at `kmh`, with a fix every 50–90 s (σ 10 m), leaving
    /// home at any moment after the last fix there.
    func shortCityDrive(kmh: Double, seed: UInt64) -> [TimelineFix] {
        cityDrive(kmh: kmh, seed: seed, to: SyntheticDays.shop, leave: 0...90, every: 50...90, sigma: 10)
    }

    /// A six-minute drive at 26–28 km/h has about six fixes, and the slow ones at the stays pull its
    /// median under 20 km/h; most of its speeds still pass what a cyclist keeps (it was cycle in 7
    /// of these 120, and 1.1 hours of a year's drives in bench_trackintel.py). At 25 km/h, the
    /// threshold, a few such drives are cycle.
    @Test func aShortCityDriveIsRoadNotCycle() {
        for seed in UInt64(0)..<120 {
            let kmh = 26 + Double(seed % 3)
            let moves = movesBetweenStays(Timeline.segment(shortCityDrive(kmh: kmh, seed: seed), isOnLand: everywhereLand))
            #expect(moves.map(\.mode) == [.road], "seed \(seed) at \(kmh) km/h: \(moves)")
        }
    }

    /// Leaving a stay by car with a fix a minute, the first step out of the stay's circle is slow
    /// (it starts at the last fix inside): one step is one speed sample, not a walk of its own
    /// (a year of such drives began with a one-minute "walk" 91 times).
    @Test func oneSlowStepOutOfAStayIsNotAWalk() {
        for seed in UInt64(10)..<20 {
            let moves = movesBetweenStays(Timeline.segment(slowCityDrive(kmh: 35, seed: seed), isOnLand: everywhereLand))
            #expect(moves.map(\.mode) == [.road], "seed \(seed): \(moves)")
        }
    }
}

@Suite struct SelectionTests {
    /// Selection agrees with sorting at every rank, with duplicates and runs.
    @Test func selectionIsWhatSortingPutsThere() {
        var random = SystemRandomNumberGenerator()
        for size in [1, 2, 3, 7, 100, 1_001] {
            for _ in 0..<20 {
                let values = (0..<size).map { _ in Double(Int.random(in: 0..<(size / 3 + 2), using: &random)) * 0.5 }
                let sorted = values.sorted()
                let k = Int.random(in: 0..<size, using: &random)
                var work = values
                #expect(Selection.select(k, in: &work, 0, size - 1) == sorted[k])
                #expect(work[..<k].allSatisfy { $0 <= sorted[k] } && work[(k + 1)...].allSatisfy { $0 >= sorted[k] })
                // A second rank within the part left of the first, as the mode's percentiles are read.
                let m = Int.random(in: 0...k, using: &random)
                #expect(Selection.select(m, in: &work, 0, k) == sorted[m])
            }
        }
    }
}
