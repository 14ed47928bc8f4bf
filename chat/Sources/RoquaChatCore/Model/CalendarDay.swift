import RoquaIO

/// A calendar day without a time zone (`YYYY-MM-DD`), for a group's active window.
public struct CalendarDay: ValidatedText, Hashable, Comparable, CustomStringConvertible {
    /// The year.
    public let year: Int
    /// The month, 1–12.
    public let month: Int
    /// The day of the month.
    public let day: Int

    /// Parses `YYYY-MM-DD`.
    /// - Throws: `CalendarDayError.invalid` naming the text when it is not a real day.
    public init(_ text: String) throws {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1...12).contains(month), (1...CalendarDay.days(inMonth: month, year: year)).contains(day)
        else {
            throw CalendarDayError.invalid(text)
        }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The UTC day `secondsSince1970` falls on.
    public init(utcSecondsSince1970 seconds: Double) {
        (year, month, day) = TimeText.civil(fromDays: Int((seconds / 86_400).rounded(.down)))
    }

    static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    public var description: String {
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    /// `YYYY-MM-DD`.
    public var text: String { description }

    public static func < (lhs: CalendarDay, rhs: CalendarDay) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }
}

/// Why a day was refused.
public enum CalendarDayError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalid(String)

    public var description: String {
        switch self {
        case .invalid(let text): "'\(text)' is not a day in the form YYYY-MM-DD"
        }
    }
}
