import Foundation
import RoquaBoundaries
import RoquaIO

/// How readers treat what a file leaves out.
public struct TrackReadOptions: Sendable, Equatable {
    /// The time given to points that carry none (`track import --assume-time`), for a route the
    /// user says they did walk. Nil: such points are skipped and counted.
    public var assumedTime: Date?
    /// The source goes on after this batch (a phone posting live): each fix is judged against the
    /// source's fixes kept before it, and a last fix whose verdict needs the next one (a fast fix:
    /// a glitch, a take-off?) waits for the next batch instead of being settled alone.
    public var continuing: Bool

    /// Creates options; by default points without a time are skipped and counted.
    public init(assumedTime: Date? = nil, continuing: Bool = false) {
        self.assumedTime = assumedTime
        self.continuing = continuing
    }
}

/// Points without a time: counted, and given the assumed time when there is one.
struct UntimedPoints {
    let assumedTime: Date?
    private(set) var count = 0

    init(_ options: TrackReadOptions) {
        assumedTime = options.assumedTime
    }

    /// Counts one point without a time and returns the time to give it, or nil to skip it.
    mutating func time() -> Date? {
        count += 1
        return assumedTime
    }
}

/// Checks every reader applies to the values it reads.
public enum TrackValues {
    /// The earliest time a fix may carry: 1970-01-01T00:00:00Z.
    public static let earliest = Date(timeIntervalSince1970: 0)
    /// The first time a fix may not carry: 2100-01-01T00:00:00Z. Times past it (or before
    /// `earliest`) are corrupt fields, not journeys, and some overflow 64-bit milliseconds.
    public static let latest = Date(timeIntervalSince1970: 4_102_444_800)

    /// A validated coordinate, or an error at `line` saying what is wrong with it.
    static func coordinate(latitude: Double, longitude: Double, file: String, line: Int?) throws(InputError) -> Coordinate {
        do {
            return try Coordinate(latitude: latitude, longitude: longitude).validated()
        } catch {
            throw InputError(file: file, line: line, message: error.description)
        }
    }

    /// `date` when it lies in 1970-01-01 ..< 2100-01-01, or an error at `line` naming `what`.
    static func time(_ date: Date, file: String, line: Int?, what: @autoclosure () -> String = "time") throws(InputError) -> Date {
        guard isInWindow(date) else {
            let seconds = date.timeIntervalSince1970
            let shown = TimeText.iso8601Milliseconds(date) ?? (seconds.isFinite ? "\(seconds) s since 1970" : "\(seconds)")
            throw InputError(file: file, line: line, message: "\(what()) \(shown) is outside 1970-01-01 … 2100-01-01")
        }
        return date
    }

    /// Whether `date` lies in the accepted window.
    public static func isInWindow(_ date: Date) -> Bool {
        let seconds = date.timeIntervalSince1970
        return seconds >= earliest.timeIntervalSince1970 && seconds < latest.timeIntervalSince1970
    }

    /// A metric value (accuracy, speed) that must be a finite non-negative number.
    static func metric(_ value: Double?, _ name: String, file: String, line: Int?) throws(InputError) -> Double? {
        guard let value else { return nil }
        guard value.isFinite, value >= 0 else {
            throw InputError(file: file, line: line, message: "\(name) \(value) is not a non-negative number")
        }
        return value
    }

    /// A JSON member holding a metric value: nil when absent or null, else a finite
    /// non-negative number or an error on its line.
    static func metric(_ value: JSONValue?, _ name: String, file: String) throws(InputError) -> Double? {
        guard let value, !value.isNull else { return nil }
        guard let number = value.number, number >= 0 else {
            throw InputError(
                file: file, line: value.line, message: "\(name) \(GoogleRecordsReader.show(value)) is not a non-negative number")
        }
        return number
    }
}
