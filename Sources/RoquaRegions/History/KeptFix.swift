import Foundation
import RoquaBoundaries

/// A fix as the history keeps it, in integers: its time to the millisecond, its position to
/// 1e-7° (about a centimetre, Google's own E7 unit), its accuracy to a decimetre and its speed
/// to a centimetre a second. Everything derived (regions, days, tiles, stays) is derived from
/// these values, at import as at a rebuild, so the two agree to the bit.
package struct KeptFix: Sendable, Hashable, Comparable {
    package var time: Int64
    package var latitude: Int32
    package var longitude: Int32
    /// Decimetres; -1 when the source gave none.
    package var accuracy: Int32
    /// Centimetres a second; -1 when the source gave none.
    package var speed: Int32

    package init(time: Int64, latitude: Int32, longitude: Int32, accuracy: Int32 = -1, speed: Int32 = -1) {
        (self.time, self.latitude, self.longitude, self.accuracy, self.speed) = (time, latitude, longitude, accuracy, speed)
    }

    /// `fix` rounded to the kept units; nil for a position off the globe or a time outside the
    /// track window (the readers refuse both before this).
    package init?(_ fix: Fix) {
        let lat = fix.coordinate.latitude, lon = fix.coordinate.longitude
        guard lat.isFinite, lon.isFinite, abs(lat) <= 90, abs(lon) <= 180 else { return nil }
        let milliseconds = (fix.timestamp.timeIntervalSince1970 * 1000).rounded()
        guard milliseconds.isFinite, abs(milliseconds) < 1e15 else { return nil }
        self.init(
            time: Int64(milliseconds), latitude: Int32((lat * 1e7).rounded()), longitude: Int32((lon * 1e7).rounded()),
            accuracy: Self.scaled(fix.accuracy, 10), speed: Self.scaled(fix.speed, 100))
    }

    /// A non-negative value times `factor`, rounded; -1 for none, negative or not finite.
    private static func scaled(_ value: Double?, _ factor: Double) -> Int32 {
        guard let value, value.isFinite, value >= 0 else { return -1 }
        return Int32(min((value * factor).rounded(), Double(Int32.max)))
    }

    /// The fix the derive stages read.
    package var fix: Fix {
        Fix(
            coordinate: Coordinate(latitude: Double(latitude) / 1e7, longitude: Double(longitude) / 1e7),
            timestamp: Date(timeIntervalSince1970: Double(time) / 1000),
            accuracy: accuracy < 0 ? nil : Double(accuracy) / 10, speed: speed < 0 ? nil : Double(speed) / 100)
    }

    /// The same fix from two imports: the same second and the same position to 1e-6°.
    package struct Identity: Hashable, Sendable {
        let second: Int64
        let latitude: Int32
        let longitude: Int32
    }

    package var identity: Identity {
        Identity(second: time >= 0 ? time / 1000 : (time - 999) / 1000, latitude: Self.micro(latitude), longitude: Self.micro(longitude))
    }

    /// 1e-7° units to 1e-6°, rounded half away from zero.
    private static func micro(_ value: Int32) -> Int32 { value >= 0 ? (value + 5) / 10 : (value - 5) / 10 }

    /// In time order, then by position (the order blocks are kept in).
    package static func < (a: KeptFix, b: KeptFix) -> Bool {
        (a.time, a.latitude, a.longitude, a.accuracy, a.speed) < (b.time, b.latitude, b.longitude, b.accuracy, b.speed)
    }
}

extension Array where Element == KeptFix {
    /// In time order, fixes of the same millisecond in the order they came (a route given one
    /// assumed time keeps its order; sorting by position would scramble it).
    func inTimeOrder() -> [KeptFix] {
        if zip(self, dropFirst()).allSatisfy({ $0.0.time <= $0.1.time }) { return self }
        return indices.sorted { (self[$0].time, $0) < (self[$1].time, $1) }.map { self[$0] }
    }
}
