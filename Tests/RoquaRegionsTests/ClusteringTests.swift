import Foundation
import RoquaBoundaries
import RoquaTestSupport
import Testing

@testable import RoquaRegions

private let t0 = Date(timeIntervalSince1970: 1_750_000_000)
private let kadikoy = Coordinate(latitude: 40.9879, longitude: 29.0281)
private let metresPerDegree = Geodesy.earthRadius * .pi / 180

/// A point `north` / `east` metres from `origin` (small offsets; good to well under a metre here).
private func offset(_ origin: Coordinate, north: Double = 0, east: Double = 0) -> Coordinate {
    Coordinate(
        latitude: origin.latitude + north / metresPerDegree,
        longitude: origin.longitude + east / (metresPerDegree * cos(origin.latitude * .pi / 180)))
}

private func fix(_ c: Coordinate, minutes: Double, accuracy: Double? = nil, speed: Double? = nil) -> Fix {
    Fix(coordinate: c, timestamp: t0.addingTimeInterval(minutes * 60), accuracy: accuracy, speed: speed)
}

private func centre(_ r: VisitedRegion) -> Coordinate { Coordinate(latitude: r.latitude, longitude: r.longitude) }

struct ClusteringTests {
    @Test func straightWalkMakesRegionsAboutARadiusApart() {
        var engine = ClusteringEngine()
        let fixes = (0...100).map { fix(offset(kadikoy, east: Double($0) * 20), minutes: Double($0) * 0.25) }
        _ = engine.process(fixes)
        #expect(engine.regions.count == 13)  // centres at 0, 160, 320 … 1920 m
        for (a, b) in zip(engine.regions, engine.regions.dropFirst()) {
            let spacing = Geodesy.haversineMeters(centre(a), centre(b))
            #expect(spacing > 150 && spacing < 170)
        }
        for f in fixes {
            #expect(engine.regions.contains { Geodesy.haversineMeters(centre($0), f.coordinate) <= 150 })
        }
        #expect(engine.regions.allSatisfy { $0.radius == 150 && $0.visitCount == 1 && $0.geohash.count == 7 && $0.id == nil })
    }

    @Test func sameVisitWithinTheGapRevisitAfterIt() {
        var engine = ClusteringEngine()
        let b = offset(kadikoy, north: 1000)
        let outcomes = engine.process([
            fix(kadikoy, minutes: 0), fix(offset(kadikoy, east: 30), minutes: 10), fix(kadikoy, minutes: 20),
            fix(b, minutes: 60),
            fix(offset(kadikoy, north: 40), minutes: 140),
        ])
        #expect(outcomes[1] == .sameVisit(index: 0))
        #expect(outcomes[2] == .sameVisit(index: 0))
        guard case .newRegion(let draft, index: 1) = outcomes[3] else {
            Issue.record("B is new")
            return
        }
        #expect(draft.geohash == Geohash.encode(latitude: b.latitude, longitude: b.longitude))
        // Back to A, which is not the last region: the index finds it.
        #expect(outcomes[4] == .revisit(index: 0))
        #expect(engine.regions.count == 2)
        let a = engine.regions[0]
        #expect(a.visitCount == 2)
        #expect(a.timestampStart == t0)
        #expect(a.lastVisit == t0.addingTimeInterval(140 * 60))
        #expect(a.timestampEnd == t0.addingTimeInterval(140 * 60))
    }

    @Test func gapBoundaryIsInclusive() {
        var engine = ClusteringEngine()
        _ = engine.process([fix(kadikoy, minutes: 0), fix(kadikoy, minutes: 30), fix(kadikoy, minutes: 60.01)])
        #expect(engine.regions[0].visitCount == 2)  // 30 min apart: same visit; 30.01 min: a new one
    }

    @Test func accuracyFilter() {
        var engine = ClusteringEngine()
        #expect(engine.process(fix(kadikoy, minutes: 0, accuracy: 80)) == .dropped(.accuracy))
        #expect(engine.process(fix(kadikoy, minutes: 1, accuracy: -1)) == .dropped(.accuracy))
        #expect(engine.process(fix(kadikoy, minutes: 2, accuracy: .nan)) == .dropped(.accuracy))
        #expect(engine.regions.isEmpty)
        guard case .newRegion = engine.process(fix(kadikoy, minutes: 3, accuracy: 50)) else {
            Issue.record("50 m is accepted")
            return
        }
        #expect(engine.process(fix(kadikoy, minutes: 4)) == .sameVisit(index: 0))  // nil accuracy is accepted
        var strict = ClusteringEngine(settings: ClusteringSettings(maxAccuracy: 10))
        #expect(strict.process(fix(kadikoy, minutes: 0, accuracy: 20)) == .dropped(.accuracy))
    }

    @Test func duplicatesAndInvalidFixesAreDropped() {
        var engine = ClusteringEngine()
        let first = fix(kadikoy, minutes: 0, accuracy: 5)
        _ = engine.process(first)
        #expect(engine.process(first) == .dropped(.duplicate))
        #expect(engine.process(fix(kadikoy, minutes: 0, accuracy: 20)) == .dropped(.duplicate))  // accuracy is not identity
        #expect(engine.process(fix(offset(kadikoy, east: 1), minutes: 0)) == .sameVisit(index: 0))
        #expect(engine.process(fix(kadikoy, minutes: 1)) == .sameVisit(index: 0))
        #expect(engine.process(fix(Coordinate(latitude: 91, longitude: 0), minutes: 2)) == .dropped(.invalidCoordinate))
        #expect(engine.process(fix(Coordinate(latitude: .nan, longitude: 0), minutes: 2)) == .dropped(.invalidCoordinate))
        #expect(
            engine.process(Fix(coordinate: kadikoy, timestamp: Date(timeIntervalSinceReferenceDate: .infinity)))
                == .dropped(.invalidTimestamp))
        #expect(engine.regions.count == 1)
    }

    @Test func speedBasedRadius() {
        var off = ClusteringEngine()
        #expect(off.process(fix(kadikoy, minutes: 0, speed: 20)) == .newRegion(off.regions[0], index: 0))
        #expect(off.regions[0].radius == 150)  // the option is off by default

        var engine = ClusteringEngine(settings: ClusteringSettings(speedBasedRadius: true))
        let far = offset(kadikoy, north: 5000)
        _ = engine.process([
            fix(kadikoy, minutes: 0),  // no speed, no previous fix: walking
            fix(offset(kadikoy, east: 300), minutes: 5),  // derived: 300 m / 300 s = 1 m/s
            fix(offset(kadikoy, east: 600), minutes: 6, speed: 1.4),
            fix(far, minutes: 7, speed: 15),
            fix(offset(far, east: 1000), minutes: 8),  // derived: 1000 m / 60 s ≈ 16.7 m/s
            fix(offset(far, east: 2000), minutes: 9, speed: 6),  // the threshold itself is a vehicle
            fix(offset(far, east: 5000), minutes: 40),  // 3 km over 31 min: too long ago to derive, walking
        ])
        #expect(engine.regions.map(\.radius) == [100, 100, 100, 200, 200, 200, 100])
        // A region's own radius decides containment: 150 m from a walking region's centre is outside it.
        #expect(engine.process(fix(offset(kadikoy, north: 150), minutes: 41, speed: 1)) == .newRegion(engine.regions[7], index: 7))
    }

    @Test func sameInputTwiceGivesIdenticalOutput() {
        var rng = SeededGenerator(state: 42)
        let fixes = (0..<2000).map { i in
            fix(
                offset(kadikoy, north: Double.random(in: -3000...3000, using: &rng), east: Double.random(in: -3000...3000, using: &rng)),
                minutes: Double(i) * Double.random(in: 0.1...3, using: &rng), accuracy: Double.random(in: 0...70, using: &rng))
        }
        var first = ClusteringEngine(), second = ClusteringEngine()
        #expect(first.process(fixes) == second.process(fixes))
        #expect(first.regions == second.regions)
    }

    @Test func orderOfAStayDoesNotChangeItsVisits() {
        // Two stays at one place: 09:00–10:00 and 12:00–12:30, a fix every 2 minutes, jittered within 40 m.
        var rng = SeededGenerator(state: 7)
        let minutes = Array(stride(from: 0.0, through: 60, by: 2)) + Array(stride(from: 180.0, through: 210, by: 2))
        let stay = minutes.map {
            fix(
                offset(
                    kadikoy, north: Double.random(in: -40...40, using: &rng),
                    east: Double.random(in: -40...40, using: &rng)), minutes: $0)
        }
        var shuffled = stay
        shuffled.shuffle(using: &rng)
        var results: [VisitedRegion] = []
        for order in [stay, Array(stay.reversed()), shuffled] {
            var engine = ClusteringEngine()
            _ = engine.process(order)
            #expect(engine.regions.count == 1)
            results.append(contentsOf: engine.regions)
        }
        for region in results {
            #expect(region.visitCount == 2)
            #expect(region.timestampStart == t0)
            #expect(region.lastVisit == t0.addingTimeInterval(180 * 60))
            #expect(region.timestampEnd == t0.addingTimeInterval(210 * 60))
        }
    }

    @Test func lateFixesExtendOrJoinTheRightVisit() {
        var engine = ClusteringEngine()
        _ = engine.process([fix(kadikoy, minutes: 60), fix(kadikoy, minutes: 120)])
        #expect(engine.regions[0].visitCount == 2)
        // 90 is within 30 min of both: the two visits were one.
        #expect(engine.process(fix(kadikoy, minutes: 90)) == .sameVisit(index: 0))
        #expect(engine.regions[0].visitCount == 1)
        #expect(engine.regions[0].lastVisit == t0.addingTimeInterval(60 * 60))
        // Earlier but within the gap: the start moves back, still one visit.
        #expect(engine.process(fix(kadikoy, minutes: 35)) == .sameVisit(index: 0))
        #expect(engine.regions[0].timestampStart == t0.addingTimeInterval(35 * 60))
        #expect(engine.regions[0].lastVisit == t0.addingTimeInterval(35 * 60))
        // Earlier by more than the gap: a visit of its own before the others; the latest visit is unchanged.
        #expect(engine.process(fix(kadikoy, minutes: 0)) == .revisit(index: 0))
        #expect(engine.regions[0].visitCount == 2)
        #expect(engine.regions[0].timestampStart == t0)
        #expect(engine.regions[0].lastVisit == t0.addingTimeInterval(35 * 60))
        #expect(engine.regions[0].timestampEnd == t0.addingTimeInterval(120 * 60))
    }

    @Test func storedRegionsAreMatchedAndOnlyChangesReported() {
        let stored = VisitedRegion(
            id: 7, latitude: kadikoy.latitude, longitude: kadikoy.longitude, radius: 150,
            timestampStart: t0, timestampEnd: t0.addingTimeInterval(30 * 60), province: "İstanbul",
            geohash: "sxk9ht9", visitCount: 1)
        let other = VisitedRegion(
            id: 8, latitude: kadikoy.latitude + 0.05, longitude: kadikoy.longitude, radius: 150,
            timestampStart: t0, geohash: "x", visitCount: 1)
        // Re-import of the track that made region 7: nothing new, nothing changed.
        var engine = ClusteringEngine(existingRegions: [stored, other])
        let outcomes = engine.process(stride(from: 0.0, through: 30, by: 5).map { fix(offset(kadikoy, east: $0), minutes: $0) })
        #expect(outcomes.allSatisfy { $0 == .sameVisit(index: 0) })
        #expect(engine.regions == [stored, other])
        #expect(engine.changedRegionIndices.isEmpty && engine.newRegionIndices.isEmpty)
        // A later track comes back: a revisit of the stored region, reported as changed, names kept.
        #expect(engine.process(fix(kadikoy, minutes: 300)) == .revisit(index: 0))
        #expect(engine.regions[0].visitCount == 2 && engine.regions[0].id == 7 && engine.regions[0].province == "İstanbul")
        #expect(engine.changedRegionIndices == [0])
    }

    @Test func storedMultiVisitRegionKeepsWhatItCannotRuleOut() {
        // Three visits: first from 09:00 (end unknown), one unknown between, latest 15:00–15:30.
        let stored = VisitedRegion(
            id: 1, latitude: kadikoy.latitude, longitude: kadikoy.longitude, radius: 150,
            timestampStart: t0, timestampEnd: t0.addingTimeInterval(390 * 60),
            geohash: "sxk9ht9", visitCount: 3, lastVisit: t0.addingTimeInterval(360 * 60))
        var engine = ClusteringEngine(existingRegions: [stored])
        // Inside the stored span: may be one of the stored visits, so nothing changes.
        #expect(engine.process(fix(kadikoy, minutes: 180)) == .sameVisit(index: 0))
        #expect(engine.changedRegionIndices.isEmpty)
        // Just before the first visit: its start moves back.
        #expect(engine.process(fix(kadikoy, minutes: -20)) == .sameVisit(index: 0))
        #expect(engine.regions[0].timestampStart == t0.addingTimeInterval(-20 * 60) && engine.regions[0].visitCount == 3)
        // Just after the latest visit: it stretches.
        #expect(engine.process(fix(kadikoy, minutes: 400)) == .sameVisit(index: 0))
        #expect(engine.regions[0].timestampEnd == t0.addingTimeInterval(400 * 60))
        #expect(engine.regions[0].lastVisit == t0.addingTimeInterval(360 * 60))
        // Well before: a visit of its own.
        #expect(engine.process(fix(kadikoy, minutes: -120)) == .revisit(index: 0))
        #expect(engine.regions[0].visitCount == 4 && engine.changedRegionIndices == [0])
    }

    @Test func theOldestContainingRegionWins() {
        let a = kadikoy, b = offset(kadikoy, east: 200)
        let regions = [a, b].map {
            VisitedRegion(
                latitude: $0.latitude, longitude: $0.longitude, radius: 150,
                timestampStart: t0, geohash: "")
        }
        var engine = ClusteringEngine(existingRegions: regions)
        #expect(engine.process(fix(offset(a, east: 90), minutes: 0)) == .sameVisit(index: 0))
        #expect(engine.process(fix(offset(a, east: 110), minutes: 1)) == .sameVisit(index: 0))  // in both: a is older
        #expect(engine.process(fix(offset(a, east: 160), minutes: 2)) == .sameVisit(index: 1))  // only in b
    }

    @Test func processingTheSameFixesAgainChangesNothing() {
        // A walk creates regions; the same fixes against the stored result must be all same-visit, no change.
        let walk = (0..<120).map { fix(offset(kadikoy, east: Double($0) * 20), minutes: Double($0) / 2) }
        var first = ClusteringEngine()
        _ = first.process(walk)
        var again = ClusteringEngine(existingRegions: first.regions)
        #expect(again.process(walk).allSatisfy { if case .sameVisit = $0 { true } else { false } })
        #expect(again.regions == first.regions && again.changedRegionIndices.isEmpty)
    }

    @Test func indexAgreesWithBruteForceEverywhere() {
        // Dense random fixes near Kadıköy, at 85° N astride the antimeridian and around the North Pole,
        // with the speed-based option on so radii differ (100 / 200 m) and cells are sized by the larger one.
        let places = [kadikoy, Coordinate(latitude: 85, longitude: 179.99), Coordinate(latitude: 89.995, longitude: 0)]
        var rng = SeededGenerator(state: 2024)
        for place in places {
            var engine = ClusteringEngine(settings: ClusteringSettings(speedBasedRadius: true))
            let lonSpread = place.latitude > 89 ? 180.0 : 0.05  // all the way round at the pole
            for i in 0..<1500 {
                let lat = min(90, place.latitude + Double.random(in: -0.01...0.01, using: &rng))
                let lon = Geohash.wrapLongitude(place.longitude + Double.random(in: -lonSpread...lonSpread, using: &rng))
                let f = Fix(
                    coordinate: Coordinate(latitude: lat, longitude: lon),
                    timestamp: t0.addingTimeInterval(Double(i) * 60), speed: Double.random(in: 0...12, using: &rng))
                let expected = bruteForceOldest(engine.regions, f.coordinate)
                switch engine.process(f) {
                case .newRegion: #expect(expected == nil, "\(place) fix \(i)")
                case .sameVisit(let index), .revisit(let index): #expect(expected == index, "\(place) fix \(i)")
                case .dropped: Issue.record("nothing should be dropped")
                }
            }
            #expect(engine.regions.count > 50)  // the check is only meaningful with many regions around
        }
    }

    /// The engine measures with both cosines given (one per fix, one per region): the same bits as
    /// `Geodesy.haversineMeters`, so a fix on a region's edge goes where it always went.
    @Test func engineDistanceIsTheGreatCircle() {
        var rng = SeededGenerator(state: 34)
        var ruledOut = 0, near = 0
        for i in 0..<20_000 {
            let a = Coordinate(latitude: Double.random(in: -90...90, using: &rng), longitude: Double.random(in: -180...180, using: &rng))
            // Half near each other (where regions are), half anywhere.
            let b =
                i % 2 == 0
                ? Coordinate(
                    latitude: max(-90, min(90, a.latitude + Double.random(in: -0.01...0.01, using: &rng))),
                    longitude: a.longitude + Double.random(in: -0.01...0.01, using: &rng))
                : Coordinate(latitude: Double.random(in: -90...90, using: &rng), longitude: Double.random(in: -180...180, using: &rng))
            let φ1 = a.latitude * .pi / 180, φ2 = b.latitude * .pi / 180
            let fast = Geodesy.haversineMeters(
                φ1: φ1, cosφ1: cos(φ1), φ2: φ2, cosφ2: cos(φ2),
                dλ: (b.longitude - a.longitude) * .pi / 180)
            #expect(fast.bitPattern == Geodesy.haversineMeters(a, b).bitPattern, "\(a) \(b)")
            // An independent formula (the vectors' angle, by atan2 of their cross and dot
            // products) agrees within a micrometre per kilometre.
            func vector(_ φ: Double, _ λ: Double) -> (Double, Double, Double) { (cos(φ) * cos(λ), cos(φ) * sin(λ), sin(φ)) }
            let u = vector(φ1, a.longitude * .pi / 180), v = vector(φ2, b.longitude * .pi / 180)
            let cross = (u.1 * v.2 - u.2 * v.1, u.2 * v.0 - u.0 * v.2, u.0 * v.1 - u.1 * v.0)
            let angle = atan2((cross.0 * cross.0 + cross.1 * cross.1 + cross.2 * cross.2).squareRoot(), u.0 * v.0 + u.1 * v.1 + u.2 * v.2)
            #expect(abs(fast - Geodesy.earthRadius * angle) <= 1e-9 * fast + 1e-6, "\(a) \(b)")
            // The bounds the engine rules candidates out with never rule out a radius the
            // distance is within, and rule out most of what lies a little beyond it.
            let dλ = (b.longitude - a.longitude) * .pi / 180
            for radius in [fast, fast.nextUp, fast * (1 + 1e-12)] {
                #expect(!ClusteringEngine.isSurelyBeyond(radius, φ1: φ1, cosφ1: cos(φ1), φ2: φ2, cosφ2: cos(φ2), dλ: dλ), "\(a) \(b)")
            }
            if i % 2 == 0, fast > 10 {
                ruledOut += ClusteringEngine.isSurelyBeyond(fast / 1.5, φ1: φ1, cosφ1: cos(φ1), φ2: φ2, cosφ2: cos(φ2), dλ: dλ) ? 1 : 0
                near += 1
            }
        }
        #expect(ruledOut > near * 9 / 10, "\(ruledOut) of \(near)")
    }

    /// Many regions (the cell table grows several times) on a long random walk: the index finds
    /// what a scan of every region finds.
    @Test func indexAgreesWithBruteForceOnALongWalk() {
        var rng = SeededGenerator(state: 77)
        var engine = ClusteringEngine(settings: ClusteringSettings(radius: 50))
        var lat = 41.0, lon = 29.0
        var checked = 0
        for i in 0..<20_000 {
            lat += Double.random(in: -0.0008...0.0008, using: &rng)
            lon += Double.random(in: -0.0008...0.0008, using: &rng)
            let f = Fix(coordinate: Coordinate(latitude: lat, longitude: lon), timestamp: t0.addingTimeInterval(Double(i) * 10))
            let expected = i % 7 == 0 ? bruteForceOldest(engine.regions, f.coordinate) : nil
            let outcome = engine.process(f)
            guard i % 7 == 0 else { continue }
            checked += 1
            switch outcome {
            case .newRegion: #expect(expected == nil, "fix \(i)")
            case .sameVisit(let index), .revisit(let index): #expect(expected == index, "fix \(i)")
            case .dropped: Issue.record("nothing should be dropped")
            }
        }
        #expect(engine.regions.count > 3_000 && checked > 2_800)
    }

    private func bruteForceOldest(_ regions: [VisitedRegion], _ point: Coordinate) -> Int? {
        regions.indices.first { Geodesy.haversineMeters(centre(regions[$0]), point) <= Double(regions[$0].radius) }
    }
}

/// The visit count a timeline keeps as it changes is the count of its spans added up, after
/// every insert: new visits, stretches and bridges of two visits, over a stored multi-visit span.
@Suite struct VisitTimelineCountTests {
    @Test func keptCountIsTheSpansCount() {
        var generator = SeededGenerator(state: 5)
        func random(_ n: Int) -> Int { generator.below(n) }
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        let stored = VisitedRegion(
            latitude: 41, longitude: 29, radius: 150, timestampStart: base.addingTimeInterval(500_000),
            timestampEnd: base.addingTimeInterval(600_000), geohash: "sxk9", visitCount: 4,
            lastVisit: base.addingTimeInterval(590_000))
        var timeline = VisitTimeline(
            start: stored.timestampStart, end: stored.timestampEnd, lastVisit: stored.lastVisit,
            visitCount: stored.visitCount)
        var changes: [VisitTimeline.Change: Int] = [:]
        for _ in 0..<5_000 {
            let change = timeline.insert(base.addingTimeInterval(Double(random(2_000_000))), gap: 1_800)
            changes[change, default: 0] += 1
            guard timeline.visitCount == timeline.spans.reduce(0, { $0 + $1.count }) else {
                Issue.record("kept \(timeline.visitCount), spans \(timeline.spans.reduce(0) { $0 + $1.count })")
                return
            }
        }
        // Every kind of change happened, bridges too (visits fewer than the new ones made).
        #expect(changes[.newVisit, default: 0] > 100 && changes[.extended, default: 0] > 100 && changes[.none, default: 0] > 100)
        #expect(timeline.visitCount < 4 + changes[.newVisit, default: 0])
    }
}
