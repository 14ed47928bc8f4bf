import Foundation
import RoquaBoundaries
import RoquaTestSupport
import Testing

/// The nearest-unit search remembers what it learnt for the next fix of a track (`NearMemory`).
/// Walks along coasts and across straits, with small steps, zig-zags over the shore line and
/// jumps between places, must get exactly the answers (unit, approximate, distance) a resolver
/// gives the same points in shuffled order (where the memory rarely applies), and the GEOS
/// path's units.
@Suite struct NearMemoryTests {
    /// Where the walks start: water within a few hundred metres of one or more coasts.
    static let starts: [(name: String, latitude: Double, longitude: Double)] = [
        ("Bosphorus", 41.085, 29.058), ("Golden Horn", 41.028, 28.962), ("Büyükada", 40.865, 29.125),
        ("Dardanelles", 40.205, 26.405), ("Gibraltar", 35.98, -5.45), ("Narva", 59.37, 28.03),
        ("Kerch", 45.33, 36.55), ("Antimeridian Fiji", -16.75, 179.99),
    ]

    /// A seeded walk: steps of 2-40 m turning smoothly and heading back when more than 800 m
    /// from the start (so it stays by the coast), every so often a zig-zag back and forth and
    /// now and then a jump of a few kilometres.
    static func walk(from start: (latitude: Double, longitude: Double), steps: Int, seed: UInt64) -> [Coordinate] {
        var generator = SeededGenerator(state: seed)
        var (lat, lon) = (start.latitude, start.longitude)
        var heading = Double.random(in: 0..<(2 * .pi), using: &generator)
        var points: [Coordinate] = []
        for step in 0..<steps {
            heading += Double.random(in: -0.4...0.4, using: &generator)
            let north = (start.latitude - lat) * 111_320, east = (start.longitude - lon) * 111_320 * cos(lat * .pi / 180)
            if (north * north + east * east).squareRoot() > 800, abs(start.longitude - lon) < 1 { heading = atan2(east, north) }
            var metres = Double.random(in: 2...40, using: &generator)
            if step % 50 >= 40 { metres = step % 2 == 0 ? 60 : -55 }  // across the shore line and back
            if step % 400 == 399 { metres = Double.random(in: 1500...4000, using: &generator) }
            lat += metres * cos(heading) / 111_320
            lon += metres * sin(heading) / (111_320 * cos(lat * .pi / 180))
            if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
            lat = min(max(lat, -89.9), 89.9)
            points.append(Coordinate(latitude: lat, longitude: lon))
        }
        return points
    }

    @Test(arguments: [1000.0, 400.0])
    func walksGetTheAnswersOfAShuffledRunAndOfGEOS(fallbackMeters: Double) throws {
        let index = try Bundled.index()
        var points: [Coordinate] = []
        for (n, start) in Self.starts.enumerated() {
            points += Self.walk(from: (start.latitude, start.longitude), steps: 900, seed: UInt64(n + 1))
        }
        let walking = try Resolver(index: index, fallbackMeters: fallbackMeters)
        let sequential = try points.map { try walking.placement($0) }
        var generator = SeededGenerator(state: 5)
        let order = points.indices.shuffled(using: &generator)
        let shuffledResolver = try Resolver(index: index, fallbackMeters: fallbackMeters)
        var shuffled = [Placement?](repeating: nil, count: points.count)
        for i in order { shuffled[i] = try shuffledResolver.placement(points[i]) }
        var differences: [String] = []
        var approximate = 0
        for (i, c) in points.enumerated() {
            let a = sequential[i]
            if a.approximate { approximate += 1 }
            if a != shuffled[i] {
                differences.append("\(c.latitude),\(c.longitude): walking \(a), shuffled \(String(describing: shuffled[i]))")
            }
            // GEOS for every 12th point (it is slow): the same unit and flag.
            if i % 12 == 0 {
                let geos = try walking.geometryPlacement(c)
                if geos.unit != a.unit || geos.approximate != a.approximate {
                    differences.append("\(c.latitude),\(c.longitude): GEOS \(geos), walking \(a)")
                }
            }
        }
        #expect(differences.isEmpty, "\(differences.count) of \(points.count): \(differences.prefix(5))")
        // The walks really exercise the nearest-unit search: most of their points are on the water near a coast.
        #expect(approximate > points.count / 8, "\(approximate) of \(points.count) approximate")
    }
}
