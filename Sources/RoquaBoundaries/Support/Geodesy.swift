import Foundation

package enum Geodesy {
    /// Mean Earth radius (IUGG), metres.
    package static let earthRadius = 6_371_008.8

    /// Great-circle distance; good to ~0.5 % on the ellipsoid, plenty for a 1 km fallback radius.
    package static func haversineMeters(_ a: Coordinate, _ b: Coordinate) -> Double {
        let φ1 = a.latitude * .pi / 180, φ2 = b.latitude * .pi / 180
        let dφ = φ2 - φ1, dλ = (b.longitude - a.longitude) * .pi / 180
        let h = sin(dφ / 2) * sin(dφ / 2) + cos(φ1) * cos(φ2) * sin(dλ / 2) * sin(dλ / 2)
        return 2 * earthRadius * asin(min(1, sqrt(h)))
    }
}
