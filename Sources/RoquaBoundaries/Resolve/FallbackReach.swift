import Foundation

extension Geodesy {
    /// How far, in degrees, the nearest-unit search must look around a point at `latitude` to
    /// see every place within `meters` (great circle): a radius in degree space, used the same
    /// way for latitude and longitude. Points within `meters` differ by at most d_lat in latitude
    /// and d_lon in longitude (from the haversine formula at the widest latitude reached, plus
    /// 1 %), so they lie within √(d_lat² + d_lon²) degrees. The search finds a unit's nearest
    /// point in degree space (as GEOS does) and then measures it; every point that close lies
    /// inside this radius, so searching it finds the same point GEOS would.
    package static func searchRadiusDegrees(meters: Double, latitude: Double) -> Double {
        let angle = meters / earthRadius
        let dLat = angle * 180 / .pi * 1.01
        let cosEdge = cos(min(90, abs(latitude) + dLat) * .pi / 180)
        let s = sin(angle / 2) / max(cosEdge, 0)
        let dLon = cosEdge <= 1e-12 || s >= 1 ? 360 : min(360, 2 * asin(s) * 180 / .pi * 1.01)
        return min(360, (dLat * dLat + dLon * dLon).squareRoot())
    }
}
