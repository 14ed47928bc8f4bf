import Foundation
import RoquaProgress
import RoquaTestSupport
import Testing

/// What added circles add to an earlier union, measured among their neighbours only, equals the
/// whole union measured again less the earlier one (to rounding) — whatever the added circles do
/// to the earlier ones: cross them, lie inside one, swallow some, sit far away, or have no radius.
@Suite struct ExploredAreaAddedTests {
    /// A walk of circles around `start`, each a few hundred metres from the one before.
    static func walk(_ count: Int, from start: (Double, Double), seed: UInt64, radius: ClosedRange<Double> = 100...400) -> [ExploredCircle]
    {
        var random = SeededGenerator(state: seed)
        var (latitude, longitude) = start
        return (0..<count).map { _ in
            latitude += Double.random(in: -0.003...0.003, using: &random)
            longitude += Double.random(in: -0.003...0.003, using: &random)
            return ExploredCircle(latitude: latitude, longitude: longitude, radius: Double.random(in: radius, using: &random))
        }
    }

    static let earlier =
        walk(6_000, from: (41.0, 29.0), seed: 11) + walk(6_000, from: (-33.9, 18.4), seed: 12)
        + walk(3_000, from: (64.1, -21.9), seed: 13) + walk(500, from: (0.0, 179.99), seed: 14)

    static func relativeError(_ earlier: [ExploredCircle], _ added: [ExploredCircle]) throws -> Double {
        let before = try ExploredArea.squareMeters(of: earlier), after = try ExploredArea.squareMeters(of: earlier + added)
        let more = try #require(try ExploredArea.squareMetersAdded(by: added[...], to: earlier[...]))
        #expect(more >= -1e-3 && more <= after - before + 1e-3 + 1e-9 * after)
        return abs(before + more - after) / after
    }

    @Test func addedCirclesOfEveryKindAgreeWithTheWholeMeasuredAgain() throws {
        let earlier = Self.earlier
        var added: [ExploredCircle] = []
        added += Self.walk(150, from: (41.01, 29.01), seed: 21)  // crossing the earlier walk
        added += earlier[100..<140].map { ExploredCircle(latitude: $0.latitude, longitude: $0.longitude, radius: $0.radius / 3) }  // inside
        added += earlier[7_000..<7_020].map { ExploredCircle(latitude: $0.latitude, longitude: $0.longitude, radius: 5_000) }  // swallowing
        added += Self.walk(50, from: (35.7, 139.7), seed: 22)  // far from everything
        added += Self.walk(30, from: (0.0, -179.995), seed: 23)  // across the antimeridian from the earlier walk there
        added.append(ExploredCircle(latitude: 41.0, longitude: 29.0, radius: 0))
        added.append(ExploredCircle(latitude: 90, longitude: 0, radius: 2_000))  // the pole
        #expect(try Self.relativeError(earlier, added) < 1e-12)
        // Added circles no earlier one overlaps add their own union; none at all add nothing.
        #expect(try Self.relativeError(earlier, Self.walk(40, from: (35.7, 139.7), seed: 24)) < 1e-12)
        #expect(try ExploredArea.squareMetersAdded(by: [], to: earlier[...]) == 0)
    }

    /// The world share the same way: the cells added circles touch that no earlier one touches
    /// (earlier circles one cell apart from an added one share cells with it without overlapping).
    @Test func theWorldShareAddedAgreesWithTheWholeCountedAgain() throws {
        // Lone circles 5 km apart, and points 30 m beyond each one's rim (north): outside it, in a
        // cell it touches or next to one.
        let lone = (0..<100).map {
            ExploredCircle(
                latitude: 10 + Double($0 / 10) * 0.05, longitude: 10 + Double($0 % 10) * 0.05,
                radius: 100 + Double($0) * 2.3)
        }
        let earlier = Self.earlier + lone
        var added = Self.walk(150, from: (41.01, 29.01), seed: 31, radius: 0...300)
        added += lone.map { ExploredCircle(latitude: $0.latitude + ($0.radius + 30) / 111_195, longitude: $0.longitude, radius: 0) }
        added += Self.walk(40, from: (64.1, -21.9), seed: 32)
        added += Self.walk(30, from: (0.0, -179.999), seed: 33, radius: 0...50)
        added += [ExploredCircle(latitude: .nan, longitude: 0, radius: 10), ExploredCircle(latitude: 89.9995, longitude: 12, radius: 120)]
        let before = WorldGrid.percentage(of: earlier), after = WorldGrid.percentage(of: earlier + added)
        let more = try #require(WorldGrid.percentageAdded(by: added[...], to: earlier[...]))
        #expect(more > 0 && abs(before + more - after) <= 1e-12 * after, "\(before) + \(more) ≠ \(after)")
        #expect(WorldGrid.percentageAdded(by: earlier[..<50], to: earlier[...]) == 0)
    }

    @Test func addedCirclesSpreadTooWideAreLeftToTheWholeMeasure() throws {
        // A Fibonacci lattice: points ~1,400 km apart, each in a cell of its own.
        let count = ExploredArea.addedGroupLimit + 1
        let spread = (0..<count).map { i in
            let z = 1 - (Double(i) + 0.5) * 2 / Double(count), longitude = Double(i) * 137.507_764
            return ExploredCircle(
                latitude: asin(z) * 180 / .pi, longitude: longitude.truncatingRemainder(dividingBy: 360) - 180, radius: 200)
        }
        #expect(try ExploredArea.squareMetersAdded(by: spread[...], to: Self.earlier[...]) == nil)
        #expect(try ExploredArea.squareMetersAdded(by: spread.dropLast(), to: Self.earlier[...]) != nil)
        #expect(WorldGrid.percentageAdded(by: spread[...], to: Self.earlier[...]) == nil)
    }

    @Test func anInvalidCircleIsAnErrorNamingIt() throws {
        let bad = [ExploredCircle(latitude: 41, longitude: 29, radius: 100), ExploredCircle(latitude: 95, longitude: 29, radius: 100)]
        #expect(throws: ExploredAreaError.invalidCircle(index: 1, reason: "latitude must lie within -90...90")) {
            try ExploredArea.squareMetersAdded(by: bad[...], to: Self.earlier[...])
        }
        var earlier = Self.earlier
        earlier[3].radius = -.infinity
        #expect(throws: ExploredAreaError.self) {
            try ExploredArea.squareMetersAdded(by: bad[..<1], to: earlier[...])
        }
    }
}

/// The first count of circles whose union reaches a target, swept a stretch at a time, is the
/// count found by measuring every prefix whole — in a walk, in a journey across the world (each
/// circle in a cell of its own: stretches measured whole), and for several targets in one stretch.
@Suite struct ExploredAreaFirstCountTests {
    @Test func sweptCountsEqualThoseOfPrefixesMeasuredWhole() throws {
        var random = SeededGenerator(state: 41)
        let journey = (0..<400).map { k in
            ExploredCircle(latitude: -50 + Double(k) * 0.25, longitude: -170 + Double(k) * 0.8, radius: 300)
        }
        let walk = ExploredAreaAddedTests.walk(1_500, from: (41.0, 29.0), seed: 42)
        // Wide circles over earlier small ones (neighbours across radius classes), and none at all.
        let wide = walk[200..<210].map { ExploredCircle(latitude: $0.latitude, longitude: $0.longitude, radius: 5_000) }
        let circles =
            walk + journey + wide + [ExploredCircle(latitude: 41, longitude: 29, radius: 0)]
            + ExploredAreaAddedTests.walk(1_200, from: (41.05, 29.02), seed: 43)
        // Prefix measures at probed counts; targets halfway between a count's measure and the one
        // before it (away from rounding), so the answer is that count.
        var counts = [1, 2, 3, 700, 701, 702, 1_499, 1_500, 1_501, 1_650, 1_899, 1_900, 1_902, 1_905, 1_912, 2_400, 3_100]
        for _ in 0..<10 { counts.append(Int.random(in: 2...circles.count, using: &random)) }
        var targets: [Double] = [], expected: [Int?] = []
        for count in counts {
            let before = try ExploredArea.squareMeters(of: Array(circles[..<(count - 1)]))
            let at = try ExploredArea.squareMeters(of: Array(circles[..<count]))
            guard at - before > 1e-6 * at else { continue }  // a circle inside earlier ones
            targets.append((before + at) / 2)
            expected.append(count)
        }
        #expect(targets.count >= 15)
        let whole = try ExploredArea.squareMeters(of: circles)
        targets += [0, -1, whole * 1.01]
        expected += [1, 1, nil]
        let found = try ExploredArea.firstCounts(reaching: targets, of: circles)
        #expect(found == expected)
        #expect(try ExploredArea.firstCounts(reaching: [0, 5], of: []) == [nil, nil])
    }
}
