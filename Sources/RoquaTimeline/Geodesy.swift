import Foundation

/// Distances on the earth's sphere, in metres.
enum Geodesy {
    /// Mean earth radius in metres (IUGG).
    static let earthRadius = 6_371_008.8
    /// Degrees to radians.
    static let radiansPerDegree = Double.pi / 180
    /// Metres per degree of latitude on the sphere.
    static let metersPerDegree = earthRadius * radiansPerDegree

    /// Great-circle distance in metres between two points given in degrees (haversine).
    @inline(__always)
    static func haversine(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        haversine(lat1, lon1, cosine(ofLatitude: lat1), lat2, lon2, cosine(ofLatitude: lat2))
    }

    /// As `haversine(_:_:_:_:)`, given the cosines of both latitudes (`cosine(ofLatitude:)`):
    /// the same result to the bit.
    @inline(__always)
    static func haversine(_ lat1: Double, _ lon1: Double, _ cos1: Double, _ lat2: Double, _ lon2: Double, _ cos2: Double) -> Double {
        let p1 = lat1 * radiansPerDegree
        let p2 = lat2 * radiansPerDegree
        let sinLat = sin((p2 - p1) / 2)
        let sinLon = sin((lon2 - lon1) * radiansPerDegree / 2)
        let a = sinLat * sinLat + cos1 * cos2 * sinLon * sinLon
        return 2 * earthRadius * asin(min(1, a.squareRoot()))
    }

    /// Distance in metres between two nearby points (degrees) on a flat map scaled by `cosLatitude`;
    /// within 0.1 % of the great circle below a few kilometres, and cheap.
    @inline(__always)
    static func local(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double, cosLatitude: Double) -> Double {
        let dy = lat2 - lat1
        var dLon = lon2 - lon1
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        let dx = dLon * cosLatitude
        return (dx * dx + dy * dy).squareRoot() * metersPerDegree
    }

    /// Cosine of a latitude given in degrees.
    @inline(__always)
    static func cosine(ofLatitude latitude: Double) -> Double { cos(latitude * radiansPerDegree) }
}
