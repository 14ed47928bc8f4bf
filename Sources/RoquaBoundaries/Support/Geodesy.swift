import Foundation

package enum Geodesy {
    /// Mean Earth radius (IUGG), metres.
    package static let earthRadius = 6_371_008.8

    /// Great-circle distance; good to ~0.5 % on the ellipsoid, plenty for a 1 km fallback radius.
    package static func haversineMeters(_ a: Coordinate, _ b: Coordinate) -> Double {
        let φ1 = a.latitude * .pi / 180, φ2 = b.latitude * .pi / 180
        return haversineMeters(φ1: φ1, cosφ1: cos(φ1), φ2: φ2, cosφ2: cos(φ2), dλ: (b.longitude - a.longitude) * .pi / 180)
    }

    /// `haversineMeters(a, b)` from the latitudes in radians, their cosines (known already when
    /// one point is measured against many) and the longitude difference in radians: the same
    /// expression in the same order, so the same result to the bit.
    @inline(__always)
    package static func haversineMeters(φ1: Double, cosφ1: Double, φ2: Double, cosφ2: Double, dλ: Double) -> Double {
        let dφ = φ2 - φ1
        let h = sin(dφ / 2) * sin(dφ / 2) + cosφ1 * cosφ2 * sin(dλ / 2) * sin(dλ / 2)
        return 2 * earthRadius * asin(min(1, sqrt(h)))
    }
}
