import Foundation
import RoquaIO
import RoquaRegions

/// A calendar day in some time zone (proleptic Gregorian year, month 1–12, day 1–31).
///
/// Kept as plain numbers, not a `Date`, because a local day is not an instant: the same day starts at
/// different instants in different zones and can last 23, 24 or 25 hours.
public struct StreakDay: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Proleptic Gregorian year.
    public var year: Int
    /// Month, 1–12.
    public var month: Int
    /// Day of the month, 1–31.
    public var day: Int

    /// Creates a day from its numbers, unchecked.
    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// "YYYY-MM-DD", e.g. "2024-03-10".
    public var description: String {
        let y = String(year), m = String(month), d = String(day)
        return String(repeating: "0", count: max(0, 4 - y.count)) + y + "-"
            + (m.count < 2 ? "0" : "") + m + "-" + (d.count < 2 ? "0" : "") + d
    }

    /// Year, month and day only, for callers that work with `Calendar`.
    public var dateComponents: DateComponents { DateComponents(year: year, month: month, day: day) }

    /// Calendar order: by year, then month, then day.
    public static func < (a: StreakDay, b: StreakDay) -> Bool {
        (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's `days_from_civil`).
    /// Consecutive days are then consecutive integers: this is calendar arithmetic on the date
    /// itself, so DST (23- or 25-hour days) and leap days cannot disturb it, unlike dividing
    /// seconds by 86,400.
    var dayNumber: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

/// A run of consecutive active days (or weekends) and the active days it starts and ends on.
public struct StreakRun: Sendable, Hashable, Codable {
    /// Days for a daily streak, weekends for a weekend streak.
    public var length: Int
    /// The first active day of the run (for weekends: the earliest active weekend day).
    public var first: StreakDay
    /// The last active day of the run (for weekends: the latest active weekend day).
    public var last: StreakDay

    /// Creates a run of `length` days or weekends from `first` to `last`.
    public init(length: Int, first: StreakDay, last: StreakDay) {
        self.length = length
        self.first = first
        self.last = last
    }
}

/// Daily and weekend streaks as of one instant (see `Streaks.summary(of:now:timeZone:weekendDays:)`).
public struct StreakSummary: Sendable, Hashable, Codable {
    /// Consecutive active days ending today, or ending yesterday if today has no activity yet.
    public var currentDaily: Int
    /// The longest run of consecutive active days; `nil` when there is no activity.
    public var longestDaily: StreakRun?
    /// Consecutive active weekends ending with the latest weekend that can still count.
    public var currentWeekend: Int
    /// The longest run of consecutive active weekends; `nil` when no weekend had activity.
    public var longestWeekend: StreakRun?
    /// Distinct calendar days with activity.
    public var activeDays: Int
    /// Distinct weekends with activity.
    public var activeWeekends: Int

    /// Creates a summary from its counts; `Streaks.summary` computes them.
    public init(
        currentDaily: Int, longestDaily: StreakRun?, currentWeekend: Int,
        longestWeekend: StreakRun?, activeDays: Int, activeWeekends: Int
    ) {
        self.currentDaily = currentDaily
        self.longestDaily = longestDaily
        self.currentWeekend = currentWeekend
        self.longestWeekend = longestWeekend
        self.activeDays = activeDays
        self.activeWeekends = activeWeekends
    }

    /// No activity at all.
    public static let empty = StreakSummary(
        currentDaily: 0, longestDaily: nil, currentWeekend: 0,
        longestWeekend: nil, activeDays: 0, activeWeekends: 0)

    /// `longestDaily?.length ?? 0`, for thresholds such as "Günlük Kaşif" (7 days).
    public var longestDailyLength: Int { longestDaily?.length ?? 0 }
    /// `longestWeekend?.length ?? 0`, for thresholds such as "Hafta Sonu Savaşçısı" (4 weekends).
    public var longestWeekendLength: Int { longestWeekend?.length ?? 0 }
}

/// Daily and weekend exploration streaks, computed in the user's time zone.
///
/// Rules:
/// - An instant belongs to the calendar day it falls on in `timeZone`, per
///   `Calendar(identifier: .gregorian)`. Instants after `now` are ignored: the summary is "as of now",
///   so a clock-skewed future timestamp cannot extend a streak. Order and duplicates do not matter.
/// - Daily: a streak is a run of consecutive calendar days each with at least one activity.
///   The current streak is the run ending today; if today has no activity (yet), the run ending
///   yesterday is still current, because the day is not over. Otherwise it is 0.
/// - Weekend: a weekend is the group of `weekendDays` within one week (Saturday + Sunday by
///   default). It is active if any of its days has activity, and counts once however many days
///   or visits it has. Consecutive active weekends form a streak. The current weekend streak is
///   the run ending this weekend; while this weekend is still in progress or yet to come
///   without activity, the run ending at the previous weekend stays current; it breaks once a
///   weekend has fully passed without activity (e.g. Sat+Sun empty → 0 from Monday).
/// - Longest: ties go to the earliest run.
///
/// Calendar dates before the Gregorian reform (1582) are not meaningful for GPS activity and
/// are not handled specially.
public enum Streaks {
    /// Days of the week, numbered like `Calendar`'s `.weekday` component (1 = Sunday).
    public enum Weekday: Int, Sendable, Hashable, Codable, CaseIterable {
        case sunday = 1, monday, tuesday, wednesday, thursday, friday, saturday
    }

    /// Saturday and Sunday. The weekend differs by country (Friday–Saturday in much of the Middle
    /// East, Friday only in Iran, Friday and Sunday in Brunei), so it is a parameter.
    public static let defaultWeekendDays: Set<Weekday> = [.saturday, .sunday]

    /// The moments that count as activity for streaks, the same for `roqua stats` and for the
    /// streak achievements: each region's first visit and its latest visit (the store keeps no
    /// history of the visits between).
    public static func activity(of regions: some Collection<VisitedRegion>) -> [Date] {
        var instants: [Date] = []
        instants.reserveCapacity(regions.count * 2)
        for region in regions {
            instants.append(region.timestampStart)
            if region.lastVisit != region.timestampStart { instants.append(region.lastVisit) }
        }
        return instants
    }

    /// The streaks in `activity` (e.g. visit start times) as of `now`, with days taken in `timeZone`.
    public static func summary(
        of activity: some Sequence<Date>, now: Date,
        timeZone: TimeZone = .current,
        weekendDays: Set<Weekday> = defaultWeekendDays
    ) -> StreakSummary {
        var tally = StreakDayTally(timeZone: timeZone, now: now)
        for instant in activity { tally.add(instant) }
        return summary(days: tally.days, now: now, timeZone: timeZone, weekendDays: weekendDays)
    }

    /// The streaks of the days with activity (`StreakDayTally`) as of `now`.
    static func summary(
        days seen: Set<StreakDay>, now: Date, timeZone: TimeZone,
        weekendDays: Set<Weekday> = defaultWeekendDays
    ) -> StreakSummary {
        var reckoner = DayReckoner(timeZone: timeZone)
        let today = reckoner.day(of: now)
        let days = seen.map { (number: $0.dayNumber, day: $0) }.sorted { $0.number < $1.number }

        let daily = dailyRuns(days)
        let weekend = WeekendLayout(weekendDays).map { weekendStreaks(days, today: today, layout: $0) }
        return StreakSummary(
            currentDaily: daily.current(today: today.dayNumber),
            longestDaily: daily.longest,
            currentWeekend: weekend?.current ?? 0,
            longestWeekend: weekend?.longest,
            activeDays: days.count,
            activeWeekends: weekend?.activeWeekends ?? 0)
    }

    /// The longest daily and weekend streaks of the regions entered up to each one, in one pass:
    /// element `k - 1` holds the `longestDailyLength` and `longestWeekendLength` that
    /// `summary(of: activity(of: regions.prefix(k)), now: regions[k - 1].timestampStart, …)` gives.
    /// `regions` must be in order of entry (`timestampStart` never decreasing). The active days
    /// only grow from one prefix to the next (a latest visit counts once it is not after "now"),
    /// so each is added once and merged with the runs it touches.
    package static func longestByPrefix(
        of regions: [VisitedRegion], timeZone: TimeZone,
        weekendDays: Set<Weekday> = defaultWeekendDays
    ) -> [(daily: Int, weekend: Int)] {
        var reckoner = DayReckoner(timeZone: timeZone)
        let layout = WeekendLayout(weekendDays)
        var daily = RunMerger(), weekend = RunMerger()
        func add(_ instant: Date) {
            let number = reckoner.day(of: instant).dayNumber
            guard daily.add(number), let layout, layout.days.contains(WeekendLayout.weekday(number)) else { return }
            _ = weekend.add(layout.period(number).index)
        }
        // Latest visits apart from the first, in time order; one not after "now" counts from its
        // region's entry on (one before its own region's start is kept until then).
        let latest = regions.indices.filter { regions[$0].lastVisit != regions[$0].timestampStart }
            .sorted { (regions[$0].lastVisit, $0) < (regions[$1].lastVisit, $1) }
        var next = 0
        var early: [Int: [Date]] = [:]
        var lengths: [(daily: Int, weekend: Int)] = []
        lengths.reserveCapacity(regions.count)
        for (i, region) in regions.enumerated() {
            let now = region.timestampStart
            add(now)
            early.removeValue(forKey: i)?.forEach(add)
            while next < latest.count, regions[latest[next]].lastVisit <= now {
                let j = latest[next]
                if j <= i { add(regions[j].lastVisit) } else { early[j, default: []].append(regions[j].lastVisit) }
                next += 1
            }
            lengths.append((daily.longest, weekend.longest))
        }
        return lengths
    }

    /// Consecutive integer keys added one at a time, with the longest run of them so far.
    private struct RunMerger {
        private var present = Set<Int>()
        /// Run start by run end, and run end by run start.
        private var startAt: [Int: Int] = [:], endAt: [Int: Int] = [:]
        private(set) var longest = 0

        /// Adds `key`; false when it was there already.
        mutating func add(_ key: Int) -> Bool {
            guard present.insert(key).inserted else { return false }
            var (start, end) = (key, key)
            if let left = startAt.removeValue(forKey: key - 1) { start = left }
            if let right = endAt.removeValue(forKey: key + 1) { end = right }
            startAt[end] = start
            endAt[start] = end
            longest = max(longest, end - start + 1)
            return true
        }
    }

    /// The calendar day `instant` falls on in `timeZone`.
    public static func day(of instant: Date, in timeZone: TimeZone) -> StreakDay {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return day(of: instant, calendar: calendar)
    }

    private static func day(of instant: Date, calendar: Calendar) -> StreakDay {
        let c = calendar.dateComponents([.year, .month, .day], from: instant)
        // The Gregorian calendar always yields these three components.
        return StreakDay(year: c.year ?? 1970, month: c.month ?? 1, day: c.day ?? 1)
    }

    // MARK: - Runs

    /// Runs of consecutive keys (day numbers or weekend indices), in ascending order.
    private struct Runs {
        struct Run {
            var startKey: Int
            var endKey: Int
            var first: StreakDay
            var last: StreakDay
        }
        var runs: [Run] = []

        /// Adds the next key (ascending; equal keys extend the same unit) with one of its active days.
        mutating func add(key: Int, day: StreakDay) {
            if let last = runs.last, key == last.endKey || key == last.endKey + 1 {
                runs[runs.count - 1].endKey = key
                runs[runs.count - 1].last = max(last.last, day)
            } else {
                runs.append(Run(startKey: key, endKey: key, first: day, last: day))
            }
        }

        /// The longest run; the earliest wins a tie (strict `>`).
        var longest: StreakRun? {
            var best: Run?
            for run in runs {
                if let b = best, run.endKey - run.startKey <= b.endKey - b.startKey { continue }
                best = run
            }
            return best.map { StreakRun(length: $0.endKey - $0.startKey + 1, first: $0.first, last: $0.last) }
        }

        /// Length of the run ending exactly at `key`, or 0.
        func length(endingAt key: Int) -> Int {
            guard let run = runs.last(where: { $0.endKey == key }) else { return 0 }
            return run.endKey - run.startKey + 1
        }
    }

    private static func dailyRuns(_ days: [(number: Int, day: StreakDay)]) -> DailyRuns {
        var runs = Runs()
        for d in days { runs.add(key: d.number, day: d.day) }
        return DailyRuns(runs: runs)
    }

    private struct DailyRuns {
        var runs: Runs
        var longest: StreakRun? { runs.longest }

        /// Run ending today, else (today not over yet) the run ending yesterday.
        func current(today: Int) -> Int {
            let endingToday = runs.length(endingAt: today)
            return endingToday > 0 ? endingToday : runs.length(endingAt: today - 1)
        }
    }

    // MARK: - Weekends

    /// How the week is cut so that each 7-day period holds exactly one weekend.
    ///
    /// A period starts on the weekend day that follows the longest stretch of working days, so
    /// Sat+Sun gives Saturday–Friday periods, Fri+Sat gives Friday–Thursday, and a split weekend
    /// such as Brunei's Fri+Sun still counts as one weekend per week. Consecutive weekends are
    /// then consecutive period indices.
    private struct WeekendLayout {
        /// Weekday the period starts on (always a weekend day).
        var start: Int
        /// Offset within the period (0…6) of the last weekend day: after it the weekend has passed.
        var lastWeekendOffset: Int
        var days: Set<Int>

        init?(_ weekendDays: Set<Weekday>) {
            days = Set(weekendDays.map(\.rawValue))
            guard !days.isEmpty else { return nil }
            func wrap(_ w: Int) -> Int { (w - 1 + 7) % 7 + 1 }
            var best = (start: 1, gap: -1)
            for s in 1...7 where days.contains(s) {
                var gap = 0
                while gap < 7, !days.contains(wrap(s - 1 - gap)) { gap += 1 }
                // Strict `>` keeps the lowest weekday on ties, so the choice is deterministic.
                if gap > best.gap { best = (s, gap) }
            }
            start = best.start
            lastWeekendOffset = days.map { ($0 - best.start + 7) % 7 }.max() ?? 0
        }

        /// Weekday of a day number (1970-01-01, day 0, was a Thursday = 5).
        static func weekday(_ n: Int) -> Int { floorMod(n + 4, 7) + 1 }

        /// Period index and offset within the period of a day number.
        func period(_ n: Int) -> (index: Int, offset: Int) {
            let anchor = floorMod(start - 5, 7)  // a day number falling on `start`
            return (floorDiv(n - anchor, 7), floorMod(n - anchor, 7))
        }
    }

    private static func weekendStreaks(
        _ days: [(number: Int, day: StreakDay)], today: StreakDay,
        layout: WeekendLayout
    )
        -> (current: Int, longest: StreakRun?, activeWeekends: Int)
    {
        var runs = Runs()
        var weekends = Set<Int>()
        for d in days where layout.days.contains(WeekendLayout.weekday(d.number)) {
            let index = layout.period(d.number).index
            weekends.insert(index)
            runs.add(key: index, day: d.day)
        }
        let now = layout.period(today.dayNumber)
        var current = runs.length(endingAt: now.index)
        // This weekend has no activity (yet): the previous run survives until this weekend is over.
        if current == 0, now.offset <= layout.lastWeekendOffset {
            current = runs.length(endingAt: now.index - 1)
        }
        return (current, runs.longest, weekends.count)
    }

    private static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }
    private static func floorMod(_ a: Int, _ b: Int) -> Int { a - floorDiv(a, b) * b }
}

/// The calendar day of many instants in one time zone, as `Calendar`'s Gregorian
/// `dateComponents` gives it, at a fraction of its cost: the zone's offset is asked once per
/// hour of UTC (and kept when it is the same at both ends of that hour: the hour holds no
/// transition), the day then follows by arithmetic (H. Hinnant's `civil_from_days`). An instant
/// in an hour holding a transition asks the zone for its own offset; instants outside the years
/// 1700–9000 are asked of `Calendar`.
package struct DayReckoner: Sendable {
    private let timeZone: TimeZone
    private let calendar: Calendar
    private var offsets: [Int: Int] = [:]
    /// The last hour found in `offsets`, and its offset.
    private var lastHour = Int.min
    private var lastOffset = 0

    package init(timeZone: TimeZone) {
        self.timeZone = timeZone
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.calendar = calendar
    }

    /// The day `instant` falls on in the zone.
    package mutating func day(of instant: Date) -> StreakDay { dayAndHour(of: instant).day }

    /// The day and the hour of the day (0–23) `instant` falls on in the zone.
    package mutating func dayAndHour(of instant: Date) -> (day: StreakDay, hour: Int) {
        let t = instant.timeIntervalSince1970
        // 1700-01-01 … 9000-01-01, well inside the proleptic Gregorian range both agree on.
        guard t > -8_520_336_000, t < 221_845_392_000 else {
            let c = calendar.dateComponents([.year, .month, .day, .hour], from: instant)
            return (StreakDay(year: c.year ?? 1970, month: c.month ?? 1, day: c.day ?? 1), c.hour ?? 0)
        }
        let hour = Int((t / 3600).rounded(.down))
        let offset: Int
        if hour == lastHour {  // instants in time order mostly share the hour before's
            offset = lastOffset
        } else if let known = offsets[hour] {
            offset = known
            (lastHour, lastOffset) = (hour, known)
        } else {
            let start = Date(timeIntervalSince1970: Double(hour) * 3600)
            let first = timeZone.secondsFromGMT(for: start)
            if first == timeZone.secondsFromGMT(for: start.addingTimeInterval(3599.999)) {
                offsets[hour] = first
                offset = first
                (lastHour, lastOffset) = (hour, first)
            } else {
                offset = timeZone.secondsFromGMT(for: instant)
            }
        }
        let local = t + Double(offset)
        let days = (local / 86_400).rounded(.down)
        return (Self.civil(days: Int(days)), min(23, Int(((local - days * 86_400) / 3600).rounded(.down))))
    }

    /// The proleptic Gregorian date `days` after 1970-01-01.
    static func civil(days: Int) -> StreakDay {
        let (year, month, day) = TimeText.civil(fromDays: days)
        return StreakDay(year: year, month: month, day: day)
    }
}
