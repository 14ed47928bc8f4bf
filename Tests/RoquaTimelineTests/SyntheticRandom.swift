import Foundation
import RoquaTimeline

/// SplitMix64: a tiny seeded generator, so synthetic days come out the same on every run.
struct SplitMix64 {
    /// The generator's state.
    private var state: UInt64

    /// A generator started from `seed`.
    init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform number in `a..<b`.
    mutating func uniform(_ a: Double, _ b: Double) -> Double {
        a + (b - a) * Double(next() >> 11) / Double(1 << 53)
    }

    /// A normal number with mean 0 and standard deviation `sigma` (Box–Muller).
    mutating func gaussian(_ sigma: Double) -> Double {
        let u = max(uniform(0, 1), 1e-12)
        let v = uniform(0, 1)
        return sigma * (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool { uniform(0, 1) < p }
}

/// A point on the earth in degrees.
struct GeoPoint {
    /// Latitude in degrees.
    var latitude: Double
    /// Longitude in degrees.
    var longitude: Double

    /// The point `north` and `east` metres away (flat-earth offset, fine below a few kilometres).
    func offset(north: Double, east: Double) -> GeoPoint {
        let m = 6_371_008.8 * Double.pi / 180
        return GeoPoint(latitude: latitude + north / m, longitude: longitude + east / (m * cos(latitude * Double.pi / 180)))
    }

    /// The point a share `f` of the way to `other`, straight in degrees.
    func toward(_ other: GeoPoint, _ f: Double) -> GeoPoint {
        GeoPoint(latitude: latitude + (other.latitude - latitude) * f, longitude: longitude + (other.longitude - longitude) * f)
    }

    /// Great-circle distance to `other` in metres.
    func distance(to other: GeoPoint) -> Double {
        let r = Double.pi / 180
        let s1 = sin((other.latitude - latitude) * r / 2)
        let s2 = sin((other.longitude - longitude) * r / 2)
        let a = s1 * s1 + cos(latitude * r) * cos(other.latitude * r) * s2 * s2
        return 2 * 6_371_008.8 * asin(min(1, a.squareRoot()))
    }
}

/// A stay as it truly happened: from arrival to departure, in ms since 1970 UTC.
struct TruthStay {
    /// Arrival, ms since 1970 UTC.
    var start: Int64
    /// Departure, ms since 1970 UTC.
    var end: Int64
    /// Where, in degrees.
    var place: GeoPoint
}

/// A move as it truly happened, one mode from start to end (ms since 1970 UTC).
struct TruthMove {
    /// Start, ms since 1970 UTC.
    var start: Int64
    /// End, ms since 1970 UTC.
    var end: Int64
    /// How the person travelled.
    var mode: TravelMode
}
