import Foundation

package enum Geodesy {
    /// Mean Earth radius (IUGG), metres.
    package static let earthRadius = 6_371_008.8

    /// Great-circle distance; good to ~0.5 % on the ellipsoid, plenty for a 1 km fallback radius.
    package static func haversineMeters(_ a: Coordinate, _ b: Coordinate) -> Double {
        haversineMeters(a, cosLatitude(a), b, cosLatitude(b))
    }

    /// The cosine of a point's latitude, as `haversineMeters` uses it.
    @inline(__always)
    package static func cosLatitude(_ point: Coordinate) -> Double { cos(point.latitude * .pi / 180) }

    /// `haversineMeters(a, b)` with each point's `cosLatitude` known already (a search comparing
    /// one point with many): the same result to the bit.
    @inline(__always)
    package static func haversineMeters(_ a: Coordinate, _ cosA: Double, _ b: Coordinate, _ cosB: Double) -> Double {
        let φ1 = a.latitude * .pi / 180, φ2 = b.latitude * .pi / 180
        let dφ = φ2 - φ1, dλ = (b.longitude - a.longitude) * .pi / 180
        let h = sin(dφ / 2) * sin(dφ / 2) + cosA * cosB * sin(dλ / 2) * sin(dλ / 2)
        return 2 * earthRadius * asin(min(1, sqrt(h)))
    }
}
