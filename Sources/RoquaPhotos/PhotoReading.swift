import Foundation

/// The outcome of reading one photo (and/or its Takeout sidecar): one location fix, or why not.
public enum PhotoReading: Sendable, Equatable {
    case fix(PhotoFix)
    case skipped(SkipReason)
}

/// One position taken from a photo's metadata.
public struct PhotoFix: Sendable, Equatable {
    /// Degrees, WGS84, south negative.
    public var latitude: Double
    /// Degrees, WGS84, west negative.
    public var longitude: Double
    /// When the photo was taken (UTC instant).
    public var time: Date
    /// Horizontal accuracy in metres (EXIF GPSHPositioningError), when known.
    public var accuracy: Double?
    /// Metres above sea level, when known.
    public var altitude: Double?

    public init(latitude: Double, longitude: Double, time: Date, accuracy: Double? = nil, altitude: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.time = time
        self.accuracy = accuracy
        self.altitude = altitude
    }

    /// `time` as milliseconds since 1970-01-01T00:00:00Z.
    public var timeMillis: Int64 { Int64((time.timeIntervalSince1970 * 1000).rounded()) }
}

/// Why a photo gave no fix. `noPosition` is the ordinary case of a photo without GPS: a count, not an error.
public enum SkipReason: Sendable, Equatable, Hashable {
    case noPosition
    case noTime
    /// The photo has a local capture time but no UTC offset, and the caller gave no time zone.
    case noTimeZone
    case unsupportedFormat
    /// The metadata is structurally broken or hostile; the text says what.
    case malformed(String)
    /// The file could not be opened or read.
    case unreadable(String)
}

/// Internal failure while reading one file: becomes a `SkipReason`.
enum ReadFailure: Error, Equatable {
    case malformed(String)
    case unreadable(String)
    case unsupportedFormat

    var skipReason: SkipReason {
        switch self {
        case .malformed(let m): .malformed(m)
        case .unreadable(let m): .unreadable(m)
        case .unsupportedFormat: .unsupportedFormat
        }
    }
}
