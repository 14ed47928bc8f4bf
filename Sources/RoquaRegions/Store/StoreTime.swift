import Foundation
import RoquaIO

/// A time the store cannot hold: outside the years 0000–9999 or not finite.
public struct StoreTimeError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The time that was refused, seconds since 1970-01-01 UTC.
    public var seconds: Double
    /// Names the time in seconds and the years the store can hold.
    public var description: String { "the time \(seconds) s since 1970 cannot be stored (years 0000–9999 only)" }
}

/// Times are stored as whole milliseconds since 1970-01-01 UTC (a region's times, the kept fixes'),
/// or as ISO 8601 text in UTC with milliseconds (`2023-11-14T22:13:20.123Z`) where a person reads
/// them (imports, devices, exports): exact to the millisecond, in the proleptic Gregorian calendar
/// both ways, the years 0000–9999 only.
public enum StoreTime {
    /// The milliseconds the store can hold: 0000-01-01 up to, not including, 10000-01-01.
    static let millisecondRange: Range<Int64> = -62_167_219_200_000..<253_402_300_800_000

    /// `date` in whole milliseconds since 1970 (rounded, as `text` rounds).
    /// - Throws: `StoreTimeError` for a time outside the years 0000–9999 or not finite.
    public static func milliseconds(_ date: Date) throws(StoreTimeError) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite, value >= Double(millisecondRange.lowerBound), value < Double(millisecondRange.upperBound) else {
            throw StoreTimeError(seconds: date.timeIntervalSince1970)
        }
        return Int64(value)
    }

    /// The time `milliseconds` since 1970 holds, or nil outside the years 0000–9999.
    public static func date(milliseconds: Int64) -> Date? {
        millisecondRange.contains(milliseconds) ? Date(timeIntervalSince1970: Double(milliseconds) / 1000) : nil
    }

    /// - Throws: `StoreTimeError` for a time four year digits cannot write: such a time is never
    ///   stored, because it could not be read back.
    public static func text(_ date: Date) throws(StoreTimeError) -> String {
        guard let text = TimeText.iso8601Milliseconds(date) else { throw StoreTimeError(seconds: date.timeIntervalSince1970) }
        return text
    }

    /// The time in a stored text (any ISO 8601 form `TimeText` reads), or `nil` when it does not parse.
    public static func date(_ text: String) -> Date? {
        TimeText.iso8601(text)
    }

    /// Rounds to the millisecond, the store's precision, so what is kept equals what is read back.
    public static func rounded(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }
}
