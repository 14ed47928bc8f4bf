import Foundation

/// One position fix of a person: when and where the phone was, with the accuracy and speed it reported.
public struct TimelineFix: Sendable, Equatable {
    /// When the fix was taken, in milliseconds since 1970-01-01 00:00 UTC.
    public var time: Int64
    /// Latitude in degrees (WGS 84).
    public var latitude: Double
    /// Longitude in degrees (WGS 84).
    public var longitude: Double
    /// Radius of the phone's 68 % confidence circle, in metres; nil when not reported.
    public var accuracy: Double?
    /// Ground speed reported by the phone, in metres per second; nil when not reported.
    public var speed: Double?

    /// A fix at `time` (ms since 1970 UTC) and `latitude`/`longitude` (degrees), with optional accuracy (m) and speed (m/s).
    public init(time: Int64, latitude: Double, longitude: Double, accuracy: Double? = nil, speed: Double? = nil) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.accuracy = accuracy
        self.speed = speed
    }
}

/// The thresholds of stay detection: a stay is at least `stayMinutes` spent within about `stayMeters`.
public struct TimelineSettings: Sendable, Equatable {
    /// Shortest stay, in minutes (1...240).
    public let stayMinutes: Int
    /// Radius of a stay around its centre, in metres (20...2000).
    public let stayMeters: Double

    /// The defaults: 5 minutes within 100 metres.
    public static let standard = try! TimelineSettings(stayMinutes: 5, stayMeters: 100)

    /// Settings with a shortest stay of `stayMinutes` minutes and a stay radius of `stayMeters` metres.
    /// - Throws: `TimelineSettingsError` when a value is outside its range.
    public init(stayMinutes: Int = 5, stayMeters: Double = 100) throws(TimelineSettingsError) {
        guard (1...240).contains(stayMinutes) else { throw .stayMinutesOutOfRange(stayMinutes) }
        guard stayMeters.isFinite, (20...2000).contains(stayMeters) else { throw .stayMetersOutOfRange(stayMeters) }
        self.stayMinutes = stayMinutes
        self.stayMeters = stayMeters
    }

    /// Shortest stay in milliseconds.
    var stayMilliseconds: Int64 { Int64(stayMinutes) * 60_000 }
}

/// Why timeline settings were refused; the message names the command-line option.
public enum TimelineSettingsError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// `--stay-minutes` was outside 1...240; carries the value given.
    case stayMinutesOutOfRange(Int)
    /// `--stay-meters` was outside 20...2000 (or not a number); carries the value given.
    case stayMetersOutOfRange(Double)

    /// A one-line message naming the option, its range and the value given.
    public var description: String {
        switch self {
        case .stayMinutesOutOfRange(let value):
            return "--stay-minutes must be between 1 and 240 minutes, got \(value)"
        case .stayMetersOutOfRange(let value):
            return "--stay-meters must be between 20 and 2000 metres, got \(value)"
        }
    }

    /// The same message as `description`, for `localizedDescription`.
    public var errorDescription: String? { description }
}
