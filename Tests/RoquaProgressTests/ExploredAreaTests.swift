import Foundation
import RoquaBoundaries
import RoquaProgress
import RoquaTestSupport
import Testing

private let sphereRadius = ExploredArea.sphereRadius

/// A circle in a local plane, in metres.
private struct PlaneCircle {
    var x, y, r: Double
}

/// Puts plane configurations on the sphere around an origin (inverse azimuthal equidistant). Points on
/// one line through the origin keep their distances exactly; elsewhere distances change by ~(d/R)²,
/// under 1e-7 for the kilometre-sized configurations here. At a pole the tangent frame is arbitrary.
private struct Placement {
    let centre, east, north: SIMD3<Double>

    init(latitude: Double, longitude: Double) {
        let φ = latitude * .pi / 180, λ = longitude * .pi / 180
        centre = SIMD3(cos(φ) * cos(λ), cos(φ) * sin(λ), sin(φ))
        if abs(latitude) == 90 {
            east = SIMD3(0, 1, 0)
        } else {
            east = SIMD3(-sin(λ), cos(λ), 0)
        }
        north = SIMD3(
            centre.y * east.z - centre.z * east.y, centre.z * east.x - centre.x * east.z,
            centre.x * east.y - centre.y * east.x)
    }

    func place(_ c: PlaneCircle) -> ExploredCircle {
        let distance = (c.x * c.x + c.y * c.y).squareRoot()
        var p = centre
        if distance > 0 {
            let δ = distance / sphereRadius
            p = centre * cos(δ) + (east * (c.x / distance) + north * (c.y / distance)) * sin(δ)
        }
        let latitude = atan2(p.z, (p.x * p.x + p.y * p.y).squareRoot()) * 180 / .pi
        return ExploredCircle(latitude: latitude, longitude: atan2(p.y, p.x) * 180 / .pi, radius: c.r)
    }

    func place(_ circles: [PlaneCircle]) -> [ExploredCircle] { circles.map(place) }
}

private func relativeError(_ value: Double, _ expected: Double) -> Double { abs(value - expected) / expected }

/// Lens (intersection) area of two plane circles at distance d.
private func lens(_ r1: Double, _ r2: Double, _ d: Double) -> Double {
    let a = r1 * r1 * acos((d * d + r1 * r1 - r2 * r2) / (2 * d * r1))
    let b = r2 * r2 * acos((d * d + r2 * r2 - r1 * r1) / (2 * d * r2))
    return a + b - 0.5 * ((-d + r1 + r2) * (d + r1 - r2) * (d - r1 + r2) * (d + r1 + r2)).squareRoot()
}

/// Union area of plane circles by scanlines `step` apart: exact interval unions along each line,
/// midpoint rule across them.
private func scanlineArea(_ circles: [PlaneCircle], step: Double) -> Double {
    let minY = circles.map { $0.y - $0.r }.min()!, maxY = circles.map { $0.y + $0.r }.max()!
    let lineCount = Int(((maxY - minY) / step).rounded(.up)) + 1
    var lines = [[(Double, Double)]](repeating: [], count: lineCount)
    for c in circles {
        let first = max(0, Int(((c.y - c.r - minY) / step - 0.5).rounded(.up)))
        let last = min(lineCount - 1, Int(((c.y + c.r - minY) / step - 0.5).rounded(.down)))
        guard first <= last else { continue }
        for k in first...last {
            let dy = minY + (Double(k) + 0.5) * step - c.y
            let half = (c.r * c.r - dy * dy).squareRoot()
            lines[k].append((c.x - half, c.x + half))
        }
    }
    var area = 0.0
    for var line in lines where !line.isEmpty {
        line.sort { $0.0 < $1.0 }
        var (start, end) = line[0]
        for (a, b) in line.dropFirst() {
            if a > end {
                area += end - start
                (start, end) = (a, b)
            } else {
                end = max(end, b)
            }
        }
        area += end - start
    }
    return area * step
}

/// Independent oracle: GEOS union of plane circles as 256-gons scaled to the circle's area (the
/// scaling leaves only the union's corners to differ; measured agreement ~5e-9).
private func geosArea(_ circles: [PlaneCircle]) throws -> Double {
    let context = GEOSContext()
    let n = 256.0
    let scale = (2 * .pi / (n * sin(2 * .pi / n))).squareRoot()
    let polygons = try circles.map { try context.point(x: $0.x, y: $0.y).buffer($0.r * scale, quadrantSegments: 64) }
    return try context.union(polygons).area()
}

/// Three circles each overlapping the other two, plus a ring of twelve around a hole.
private let threeCircles = [
    PlaneCircle(x: 0, y: 0, r: 150), PlaneCircle(x: 120, y: 40, r: 130), PlaneCircle(x: 60, y: 140, r: 110),
]
private let ringWithHole = (0..<12).map { k -> PlaneCircle in
    let angle = Double(k) * .pi / 6
    return PlaneCircle(x: 1000 + 1100 * cos(angle), y: 1100 * sin(angle), r: 300)
}
/// Rims through a common point, one of them left with an uncovered gap of exactly half a turn (this
/// once measured as no turn at all).
private let halfTurn = [2.0, 0].map { k in PlaneCircle(x: 100 * cos(k * .pi / 3), y: 100 * sin(k * .pi / 3), r: 100) }

struct ExploredAreaTests {
    @Test func oneCircleIsPiRSquared() throws {
        for radius in [1.0, 150, 1000] {
            let area = try ExploredArea.squareMeters(of: [ExploredCircle(latitude: 41, longitude: 29, radius: radius)])
            #expect(relativeError(area, .pi * radius * radius) < 1e-6)
        }
        // Large circles are spherical caps, 2πR²(1 − cos ρ), visibly less than πr².
        let radius = 500_000.0
        let cap = 2 * .pi * sphereRadius * sphereRadius * (1 - cos(radius / sphereRadius))
        let area = try ExploredArea.squareMeters(of: [ExploredCircle(latitude: -10, longitude: 5, radius: radius)])
        #expect(relativeError(area, cap) < 1e-9)
        #expect(relativeError(area, .pi * radius * radius) > 4e-4)  // ρ²/12 = 5.1e-4
    }

    @Test func disjointCirclesAdd() throws {
        let place = Placement(latitude: 41, longitude: 29)
        let area = try ExploredArea.squareMeters(
            of: place.place([
                PlaneCircle(x: 0, y: 0, r: 150),
                PlaneCircle(x: 301, y: 0, r: 150),
                PlaneCircle(x: 0, y: 500, r: 80),
            ]))
        #expect(relativeError(area, .pi * (2 * 150 * 150 + 80 * 80)) < 1e-6)
    }

    @Test func identicalAndContainedCirclesCountOnce() throws {
        let circle = ExploredCircle(latitude: 41, longitude: 29, radius: 150)
        for copies in 2...4 {
            let area = try ExploredArea.squareMeters(of: Array(repeating: circle, count: copies))
            #expect(relativeError(area, .pi * 150 * 150) < 1e-6)
        }
        let place = Placement(latitude: 41, longitude: 29)
        let nested = place.place([
            PlaneCircle(x: 10, y: 0, r: 50), PlaneCircle(x: 0, y: 0, r: 150),
            PlaneCircle(x: -60, y: 30, r: 80), PlaneCircle(x: 0, y: 0, r: 150),
        ])
        #expect(relativeError(try ExploredArea.squareMeters(of: nested), .pi * 150 * 150) < 1e-6)
    }

    @Test(arguments: [
        (150.0, 150.0, 1.0), (150, 150, 30), (150, 150, 150), (150, 150, 299), (150, 80, 120),
        (1000, 20, 990),
    ])
    func overlappingPairMatchesLensFormula(r1: Double, r2: Double, d: Double) throws {
        // Both centres on one great circle through the origin, so their distance is exactly d.
        let place = Placement(latitude: 41, longitude: 29)
        let circles = place.place([PlaneCircle(x: -d / 2, y: 0, r: r1), PlaneCircle(x: d / 2, y: 0, r: r2)])
        let expected = Double.pi * (r1 * r1 + r2 * r2) - lens(r1, r2, d)
        #expect(relativeError(try ExploredArea.squareMeters(of: circles), expected) < 1e-6)
    }

    @Test func threeOverlappingCirclesMatchMonteCarlo() throws {
        let area = try ExploredArea.squareMeters(of: Placement(latitude: 41, longitude: 29).place(threeCircles))
        var generator = SeededGenerator(state: 2024)
        let (minX, maxX, minY, maxY) = (-150.0, 250.0, -150.0, 250.0)
        let samples = 1_000_000
        var inside = 0
        for _ in 0..<samples {
            let x = Double.random(in: minX..<maxX, using: &generator)
            let y = Double.random(in: minY..<maxY, using: &generator)
            if threeCircles.contains(where: { ($0.x - x) * ($0.x - x) + ($0.y - y) * ($0.y - y) <= $0.r * $0.r }) {
                inside += 1
            }
        }
        let estimate = Double(inside) / Double(samples) * (maxX - minX) * (maxY - minY)
        #expect(relativeError(area, estimate) < 0.01)  // the estimate's own standard error is ~0.1 %
        let sum = threeCircles.reduce(0) { $0 + .pi * $1.r * $1.r }
        #expect(area < 0.8 * sum)
    }

    @Test func agreesWithGEOSPolygonUnion() throws {
        var generator = SeededGenerator(state: 7)
        let scattered = (0..<300).map { _ in
            PlaneCircle(
                x: .random(in: 0..<2000, using: &generator), y: .random(in: 0..<2000, using: &generator),
                r: .random(in: 20..<300, using: &generator))
        }
        for circles in [threeCircles, ringWithHole, scattered, halfTurn] {
            let area = try ExploredArea.squareMeters(of: Placement(latitude: 41, longitude: 29).place(circles))
            #expect(relativeError(area, try geosArea(circles)) < 1e-6)
        }
    }

    /// Degenerate layouts that broke earlier versions: exact tangencies and duplicates on a grid, many
    /// rims through one point, circles a micrometre apart (which once hid each other in a cycle),
    /// nested circles of very different sizes.
    @Test(arguments: 0..<4)
    func degenerateLayoutsAgreeWithGEOS(kind: Int) throws {
        var generator = SeededGenerator(state: UInt64(100 + kind))
        for _ in 0..<15 {
            let circles = (0..<Int.random(in: 2..<40, using: &generator)).map { _ -> PlaneCircle in
                let k = Double(Int.random(in: 0..<6, using: &generator))
                switch kind {
                case 0: return PlaneCircle(x: 200 * Double(Int.random(in: 0..<5, using: &generator)), y: 200 * k, r: 100)
                case 1: return PlaneCircle(x: 100 * cos(k * .pi / 3), y: 100 * sin(k * .pi / 3), r: 100)
                case 2:
                    return PlaneCircle(
                        x: .random(in: 0..<1e-6, using: &generator), y: .random(in: 0..<1e-6, using: &generator),
                        r: 150 + .random(in: 0..<1e-6, using: &generator))
                default: return PlaneCircle(x: 50 * k, y: 0, r: [10.0, 50, 100, 200, 400, 5000].randomElement(using: &generator)!)
                }
            }
            let expected = try geosArea(circles)
            for (latitude, longitude) in [(0.0, 0.0), (89.9, 179.99), (-90.0, 0.0)] {
                let area = try ExploredArea.squareMeters(of: Placement(latitude: latitude, longitude: longitude).place(circles))
                #expect(relativeError(area, expected) < 1e-5)
            }
        }
    }

    @Test func inputOrderDoesNotMatter() throws {
        var generator = SeededGenerator(state: 99)
        let circles = Placement(latitude: -41.3, longitude: 174.8).place(
            (0..<500).map { _ in
                PlaneCircle(
                    x: .random(in: 0..<3000, using: &generator), y: .random(in: 0..<3000, using: &generator),
                    r: [100.0, 150, 200, 1000].randomElement(using: &generator)!)
            })
        let area = try ExploredArea.squareMeters(of: circles)
        for _ in 0..<3 {
            let shuffled = try ExploredArea.squareMeters(of: circles.shuffled(using: &generator))
            #expect(relativeError(shuffled, area) < 1e-9)
        }
    }

    /// The same configurations at 60°N, across the antimeridian, on both poles and in the southern
    /// hemisphere must measure what they measure at the equator (and match GEOS there).
    @Test(arguments: [(60.0, 10.0), (0, 180), (59.5, -180), (90, 0), (-90, 0), (89.99, 45), (-33.9, 151.2)])
    func areaDoesNotDependOnPlacement(latitude: Double, longitude: Double) throws {
        let equator = Placement(latitude: 0, longitude: 0)
        let there = Placement(latitude: latitude, longitude: longitude)
        for circles in [threeCircles, ringWithHole, halfTurn] {
            let reference = try ExploredArea.squareMeters(of: equator.place(circles))
            #expect(relativeError(reference, try geosArea(circles)) < 1e-6)
            let placed = there.place(circles)
            #expect(relativeError(try ExploredArea.squareMeters(of: placed), reference) < 1e-6)
        }
        if abs(longitude) == 180 {  // really straddling: centres on both sides of ±180°
            let longitudes = there.place(ringWithHole).map(\.longitude)
            #expect(longitudes.contains { $0 > 179.9 } && longitudes.contains { $0 < -179.9 })
        }
    }

    @Test func ringAroundAPoleKeepsItsHole() throws {
        // Twelve circles 1.1 km from the pole: the pole itself lies in the hole, not in the union.
        let ring = (0..<12).map { k in
            ExploredCircle(latitude: 90 - 1100 / sphereRadius * 180 / .pi, longitude: Double(k) * 30, radius: 300)
        }
        let planar = (0..<12).map { k in
            PlaneCircle(x: 1100 * cos(Double(k) * .pi / 6), y: 1100 * sin(Double(k) * .pi / 6), r: 300)
        }
        #expect(relativeError(try ExploredArea.squareMeters(of: ring), try geosArea(planar)) < 1e-6)
    }

    @Test func bigCircleSwallowsSmallOnes() throws {
        // Radius classes far apart: the 20 km circle must still see the 150 m ones inside and astride it.
        let place = Placement(latitude: 48, longitude: 2)
        var circles = [PlaneCircle(x: 0, y: 0, r: 20_000)]
        for k in 0..<200 { circles.append(PlaneCircle(x: Double(k) * 50 - 5000, y: 0, r: 150)) }
        circles.append(PlaneCircle(x: 20_000, y: 0, r: 150))  // centred on the edge
        circles.append(PlaneCircle(x: 0, y: 30_000, r: 150))  // outside
        let cap = 2 * .pi * sphereRadius * sphereRadius * (1 - cos(20_000 / sphereRadius))
        let expected = cap + (.pi * 150 * 150 - lens(20_000, 150, 20_000)) + .pi * 150 * 150
        #expect(relativeError(try ExploredArea.squareMeters(of: place.place(circles)), expected) < 1e-6)
    }

    @Test func emptyAndZeroRadius() throws {
        #expect(try ExploredArea.squareMeters(of: []) == 0)
        #expect(try ExploredArea.squareMeters(of: [ExploredCircle(latitude: 1, longitude: 2, radius: 0)]) == 0)
    }

    @Test func invalidCirclesAreRejectedByIndex() {
        let good = ExploredCircle(latitude: 41, longitude: 29, radius: 150)
        let bad = [
            ExploredCircle(latitude: .nan, longitude: 29, radius: 150),
            ExploredCircle(latitude: 90.5, longitude: 29, radius: 150),
            ExploredCircle(latitude: 41, longitude: .infinity, radius: 150),
            ExploredCircle(latitude: 41, longitude: 29, radius: -1),
            ExploredCircle(latitude: 41, longitude: 29, radius: 2_000_000),
        ]
        for circle in bad {
            #expect {
                try ExploredArea.squareMeters(of: [good, good, circle])
            } throws: { error in
                guard case let .invalidCircle(index, _)? = error as? ExploredAreaError else { return false }
                return index == 2 && "\(error)".hasPrefix("explored circle #2: ")
            }
        }
    }
}

/// The union against a 2 m raster of 10,000 circles: seconds of scanlines.
@Suite(.tags(.slow)) struct ExploredAreaSlowTests {
    @Test func trackUnionMatchesRasterNotSum() throws {
        var generator = SeededGenerator(state: 42)
        var (x, y, heading) = (0.0, 0.0, 0.0)
        var track: [PlaneCircle] = []
        for _ in 0..<10_000 {
            heading += .random(in: -0.5...0.5, using: &generator)
            let step = Double.random(in: 60...200, using: &generator)
            x += step * cos(heading)
            y += step * sin(heading)
            track.append(PlaneCircle(x: x, y: y, r: [100.0, 150, 200].randomElement(using: &generator)!))
        }
        let area = try ExploredArea.squareMeters(of: Placement(latitude: 41, longitude: 29).place(track))
        let raster = scanlineArea(track, step: 2)
        #expect(relativeError(area, raster) < 1e-4)  // measured 7e-8
        let sum = track.reduce(0) { $0 + .pi * $1.r * $1.r }
        #expect(area < 0.7 * sum)
    }
}
