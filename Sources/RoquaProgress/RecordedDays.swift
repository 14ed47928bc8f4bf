import Foundation
import RoquaRegions

/// The days of a month that hold kept fixes, in a time zone: what the page's calendar marks.
public struct RecordedDays: Codable, Sendable, Equatable {
    public var month: String
    public var timeZone: String
    /// `YYYY-MM-DD`, in order.
    public var days: [String]

    enum CodingKeys: String, CodingKey {
        case month
        case timeZone = "time_zone"
        case days
    }

    /// The local days of `month` (`YYYY-MM`) in `zone`, nil for a text that is not a month.
    public static func days(of month: String, zone: TimeZone) -> [(day: String, span: Range<Date>)]? {
        let parts = month.split(separator: "-", omittingEmptySubsequences: false)
        guard month.utf8.count == 7, parts.count == 2, parts.map(\.count) == [4, 2], Int(parts[0]) != nil,
            let number = Int(parts[1]), (1...12).contains(number)
        else { return nil }
        var days: [(String, Range<Date>)] = []
        for day in 1...31 {
            let text = month + (day < 10 ? "-0" : "-") + String(day)
            guard let (start, end) = TimelineAnswer.span(of: text, zone: zone) else { break }
            days.append((text, start..<end))
        }
        return days.isEmpty ? nil : days
    }

    /// The days of `days` (what `days(of: month, zone: zone)` gave) that `recorded` marks.
    /// - Throws: what `recorded` throws (`RegionStoreError`, `FixBlock.Damaged`).
    public init(
        month: String, zone: TimeZone, days: [(day: String, span: Range<Date>)], recorded: ([Range<Date>]) throws -> [Bool]
    ) throws {
        self.month = month
        timeZone = zone.identifier
        self.days = zip(days, try recorded(days.map(\.span))).filter(\.1).map(\.0.day)
    }
}
