import Foundation

/// Local clock arithmetic on millisecond timestamps, asking the time zone once per day rather than per fix.
enum LocalTime {
    /// Milliseconds in a day.
    static let day: Int64 = 86_400_000
    /// Milliseconds in an hour.
    static let hour: Int64 = 3_600_000

    /// Offset of local time from UTC at `time` (ms since 1970 UTC), in milliseconds.
    static func offset(at time: Int64, in timeZone: TimeZone) -> Int64 {
        Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(time) / 1000))) * 1000
    }

    /// Floor division of `a` by a positive `b`.
    @inline(__always) static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    /// Day of the week of local day number `day` (days since 1970-01-01): 0 Sunday, 1 Monday, ... 6 Saturday.
    static func weekday(ofDay day: Int64) -> Int {
        Int(((day + 4) % 7 + 7) % 7)
    }

    /// Milliseconds of `start..<end` (ms since 1970 UTC) that fall in the local clock window from
    /// `fromHour` to `toHour` of each day (`toHour` above 24 runs past midnight), counting only windows
    /// starting on Monday to Friday when `weekdaysOnly`.
    static func overlap(
        start: Int64, end: Int64, fromHour: Int64, toHour: Int64, weekdaysOnly: Bool, timeZone: TimeZone
    ) -> Int64 {
        guard end > start else { return 0 }
        let firstDay = floorDiv(start + offset(at: start, in: timeZone), day) - 1
        let lastDay = floorDiv(end + offset(at: end, in: timeZone), day)
        var total: Int64 = 0
        var d = firstDay
        while d <= lastDay {
            defer { d += 1 }
            if weekdaysOnly && !(1...5).contains(weekday(ofDay: d)) { continue }
            let localFrom = d * day + fromHour * hour
            let shift = offset(at: localFrom - offset(at: localFrom, in: timeZone), in: timeZone)
            let from = localFrom - shift
            let to = d * day + toHour * hour - shift
            total += max(0, min(end, to) - max(start, from))
        }
        return total
    }

    /// The instants (ms since 1970 UTC) within `start...end` when local clocks show `hourOfDay`:00.
    static func instants(ofHour hourOfDay: Int64, from start: Int64, to end: Int64, timeZone: TimeZone) -> [Int64] {
        guard end >= start else { return [] }
        let firstDay = floorDiv(start + offset(at: start, in: timeZone), day) - 1
        let lastDay = floorDiv(end + offset(at: end, in: timeZone), day) + 1
        var result: [Int64] = []
        var d = firstDay
        while d <= lastDay {
            let local = d * day + hourOfDay * hour
            let instant = local - offset(at: local - offset(at: local, in: timeZone), in: timeZone)
            if instant >= start && instant <= end { result.append(instant) }
            d += 1
        }
        return result
    }
}
