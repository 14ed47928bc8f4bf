import Foundation
import RoquaRegions
import RoquaTestSupport
import Testing

@testable import RoquaProgress

private func zone(_ id: String) -> TimeZone {
    guard let tz = TimeZone(identifier: id) else { fatalError("missing tzdata for \(id)") }
    return tz
}

private let utc = zone("UTC")
private let istanbul = zone("Europe/Istanbul")
private let newYork = zone("America/New_York")
private let kolkata = zone("Asia/Kolkata")
private let auckland = zone("Pacific/Auckland")

/// The instant of a wall-clock time in `tz` (built through the calendar, not by adding seconds).
private func at(_ tz: TimeZone, _ y: Int, _ m: Int, _ d: Int, _ h: Int = 12, _ min: Int = 0) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = tz
    guard let date = calendar.date(from: DateComponents(year: y, month: m, day: d, hour: h, minute: min)) else {
        fatalError("bad date")
    }
    return date
}

/// Noon local time on each of `days` of a month.
private func noons(_ tz: TimeZone, _ y: Int, _ m: Int, _ days: [Int]) -> [Date] {
    days.map { at(tz, y, m, $0) }
}

private func summary(_ activity: [Date], now: Date, _ tz: TimeZone) -> StreakSummary {
    Streaks.summary(of: activity, now: now, timeZone: tz)
}

struct StreakDayTests {
    @Test func dayDescriptionIsZeroPaddedISO() {
        #expect(StreakDay(year: 2024, month: 3, day: 9).description == "2024-03-09")
        #expect(StreakDay(year: 987, month: 12, day: 31).description == "0987-12-31")
        #expect(StreakDay(year: 2024, month: 2, day: 29).dateComponents == DateComponents(year: 2024, month: 2, day: 29))
    }

    /// The civil day number agrees with the calendar for every day 1900–2100 (in UTC, where a day
    /// really is 86,400 s, so dividing is a valid reference here and only here).
    @Test func dayNumberMatchesCalendarEveryDay() {
        var day = at(utc, 1900, 1, 1, 0)
        let end = at(utc, 2100, 12, 31, 0)
        var checked = 0
        while day <= end {
            let expected = Int((day.timeIntervalSince1970 / 86_400).rounded(.down))
            #expect(Streaks.day(of: day, in: utc).dayNumber == expected)
            day += 86_400
            checked += 1
        }
        #expect(checked == 73_414)
    }
}

/// `DayReckoner` (the zone's offset asked once per hour of UTC, the day by arithmetic) gives the
/// day and hour `Calendar` gives, in zones with DST, half- and quarter-hour offsets, a
/// half-hour DST (Lord Howe) and a skipped day (Samoa, 2011-12-30), near transitions and far
/// from them, and outside the years it computes itself.
struct DayReckonerTests {
    @Test func agreesWithTheCalendar() {
        let zones = [
            "UTC", "Europe/Istanbul", "America/New_York", "Asia/Kolkata", "Pacific/Auckland", "Australia/Lord_Howe",
            "Asia/Kathmandu", "Pacific/Chatham", "Pacific/Apia", "America/St_Johns", "Europe/Dublin",
        ].map(zone)
        var state: UInt64 = 0x9E37_79B9
        func random(_ range: ClosedRange<Double>) -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return range.lowerBound + Double(state >> 11) / Double(1 << 53) * (range.upperBound - range.lowerBound)
        }
        for tz in zones {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = tz
            var reckoner = DayReckoner(timeZone: tz)
            var instants = (0..<3_000).map { _ in Date(timeIntervalSince1970: random(0...4_102_444_800).rounded(.down)) }
            // Every minute around each transition of 2010–2013, and the seconds either side of it.
            var cursor = Date(timeIntervalSince1970: 1_262_304_000)
            while let next = tz.nextDaylightSavingTimeTransition(after: cursor), next.timeIntervalSince1970 < 1_388_534_400 {
                for minute in -90...90 { instants.append(next.addingTimeInterval(Double(minute) * 60)) }
                instants += [next.addingTimeInterval(-0.001), next, next.addingTimeInterval(0.001)]
                cursor = next
            }
            instants += [Date(timeIntervalSince1970: -12_000_000_000), Date(timeIntervalSince1970: 250_000_000_000)]
            for instant in instants {
                let c = calendar.dateComponents([.year, .month, .day, .hour], from: instant)
                let (day, hour) = reckoner.dayAndHour(of: instant)
                #expect(
                    day == StreakDay(year: c.year ?? 0, month: c.month ?? 0, day: c.day ?? 0) && hour == c.hour,
                    "\(tz.identifier) \(instant.timeIntervalSince1970)")
            }
        }
    }
}

struct StreakTests {
    @Test func emptyInputGivesZeros() {
        let s = summary([], now: at(utc, 2024, 6, 1), utc)
        #expect(s == .empty)
        #expect(s.longestDailyLength == 0 && s.longestWeekendLength == 0)
    }

    /// İstanbul is UTC+3 all year, so its midnight is 21:00Z.
    @Test func istanbulAndUTCCutDaysDifferently() {
        let evening = at(utc, 2024, 6, 1, 20, 30)  // 23:30 in İstanbul, 1 June
        let night = at(utc, 2024, 6, 1, 21, 30)  // 00:30 in İstanbul, 2 June
        let now = at(utc, 2024, 6, 2, 12)
        #expect(summary([evening, night], now: now, utc).activeDays == 1)
        let ist = summary([evening, night], now: now, istanbul)
        #expect(ist.activeDays == 2)
        #expect(
            ist.longestDaily
                == StreakRun(
                    length: 2, first: StreakDay(year: 2024, month: 6, day: 1),
                    last: StreakDay(year: 2024, month: 6, day: 2)))
        // The other way round: two UTC days that are one İstanbul day (02:30 and 03:30 local).
        let lateUTC = at(utc, 2024, 6, 1, 23, 30), earlyUTC = at(utc, 2024, 6, 2, 0, 30)
        #expect(summary([lateUTC, earlyUTC], now: now, utc).activeDays == 2)
        #expect(summary([lateUTC, earlyUTC], now: now, istanbul).activeDays == 1)
    }

    /// 2024-03-10 is 23 hours long in New York; 00:30 and 23:30 that day are 22 hours apart.
    @Test func tenDaysAcrossSpringForward() {
        var activity = noons(newYork, 2024, 3, [5, 6, 7, 8, 9, 11, 12, 13, 14])
        let early = at(newYork, 2024, 3, 10, 0, 30), late = at(newYork, 2024, 3, 10, 23, 30)
        #expect(late.timeIntervalSince(early) == 22 * 3600)
        activity += [early, late]
        let s = summary(activity, now: at(newYork, 2024, 3, 14, 18), newYork)
        #expect(s.activeDays == 10)
        #expect(s.currentDaily == 10)
        #expect(s.longestDaily?.length == 10)
        #expect(s.longestDaily?.first.description == "2024-03-05")
        #expect(s.longestDaily?.last.description == "2024-03-14")
    }

    /// 2024-11-03 is 25 hours long in New York; 00:30 and 23:30 that day are 24 hours apart.
    @Test func tenDaysAcrossFallBack() {
        var activity = noons(newYork, 2024, 10, [29, 30, 31]) + noons(newYork, 2024, 11, [1, 2, 4, 5, 6, 7])
        let early = at(newYork, 2024, 11, 3, 0, 30), late = at(newYork, 2024, 11, 3, 23, 30)
        #expect(late.timeIntervalSince(early) == 24 * 3600)
        activity += [early, late]
        let s = summary(activity, now: at(newYork, 2024, 11, 7, 20), newYork)
        #expect(s.activeDays == 10)
        #expect(s.currentDaily == 10)
        #expect(s.longestDaily?.first.description == "2024-10-29")
        #expect(s.longestDaily?.last.description == "2024-11-07")
    }

    /// Only late-night activity around the short day and only just-after-midnight activity around
    /// the long day: gaps of 23 and 25 hours between consecutive days must not break the streak.
    @Test func dstGapsOfTwentyThreeAndTwentyFiveHoursStayConsecutive() {
        let spring = (8...12).map { at(newYork, 2024, 3, $0, 23, 30) }
        #expect(summary(spring, now: at(newYork, 2024, 3, 12, 23, 45), newYork).currentDaily == 5)
        let fall = (1...5).map { at(newYork, 2024, 11, $0, 0, 30) }
        #expect(summary(fall, now: at(newYork, 2024, 11, 5, 12), newYork).currentDaily == 5)
        // And 23:30 → 00:30 across one midnight is two days even though only an hour apart.
        let pair = [at(newYork, 2024, 11, 2, 23, 30), at(newYork, 2024, 11, 3, 0, 30)]
        #expect(summary(pair, now: at(newYork, 2024, 11, 3, 12), newYork).currentDaily == 2)
    }

    @Test func currentAndLongestDiffer() {
        let activity = noons(utc, 2024, 1, [1, 2, 3, 4, 5]) + noons(utc, 2024, 1, [20, 21, 22])
        let s = summary(activity, now: at(utc, 2024, 1, 22, 18), utc)
        #expect(s.currentDaily == 3)
        #expect(
            s.longestDaily
                == StreakRun(
                    length: 5, first: StreakDay(year: 2024, month: 1, day: 1),
                    last: StreakDay(year: 2024, month: 1, day: 5)))
        #expect(s.activeDays == 8)
    }

    @Test func oneEmptyDayBreaksTheStreak() {
        let activity = noons(utc, 2024, 5, [1, 2, 3, 5, 6, 7])
        let s = summary(activity, now: at(utc, 2024, 5, 7, 13), utc)
        #expect(s.longestDaily?.length == 3)
        #expect(s.longestDaily?.first.description == "2024-05-01")  // tie: the earliest run wins
        #expect(s.currentDaily == 3)
        #expect(s.activeDays == 6)
    }

    @Test func currentStreakSurvivesUntilTodayIsOver() {
        let activity = noons(istanbul, 2024, 5, [10, 11, 12])
        // 13 May, 08:00 in İstanbul: nothing yet today, yesterday was active.
        #expect(summary(activity, now: at(istanbul, 2024, 5, 13, 8), istanbul).currentDaily == 3)
        // Still so a minute before midnight.
        #expect(summary(activity, now: at(istanbul, 2024, 5, 13, 23, 59), istanbul).currentDaily == 3)
        // 14 May: the 13th passed empty.
        let later = summary(activity, now: at(istanbul, 2024, 5, 14, 0, 1), istanbul)
        #expect(later.currentDaily == 0)
        #expect(later.longestDaily?.length == 3)
        // Activity today extends the run.
        let today = summary(activity + [at(istanbul, 2024, 5, 13, 7)], now: at(istanbul, 2024, 5, 13, 8), istanbul)
        #expect(today.currentDaily == 4)
    }

    @Test func activityAfterNowIsIgnored() {
        let activity = noons(utc, 2024, 5, [10, 11, 12, 13, 14])
        let s = summary(activity, now: at(utc, 2024, 5, 12, 11), utc)  // before noon on the 12th
        #expect(s.activeDays == 2)
        #expect(s.currentDaily == 2)
    }

    @Test func unsortedAndDuplicateInputGiveTheSameResult() {
        let base = noons(utc, 2024, 6, [1, 2, 3, 8, 9, 15, 16, 22, 29, 30])
        let now = at(utc, 2024, 6, 30, 20)
        let expected = summary(base, now: now, utc)
        // 30 instants with duplicates, in a fixed scrambled order (7 is coprime with 30).
        let all = base + base.reversed() + base.map { $0 + 3600 }
        let messy = (0..<all.count).map { all[($0 * 7) % all.count] }
        #expect(summary(messy, now: now, utc) == expected)
        // Any Sequence works, not only arrays.
        #expect(Streaks.summary(of: Set(base), now: now, timeZone: utc) == expected)
    }

    /// India is UTC+5:30: local midnight is 18:30Z.
    @Test func halfHourOffsetKolkata() {
        let before = at(utc, 2024, 8, 14, 18, 29), after = at(utc, 2024, 8, 14, 18, 31)
        let now = at(utc, 2024, 8, 15, 6)
        #expect(summary([before, after], now: now, utc).activeDays == 1)
        let s = summary([before, after], now: now, kolkata)
        #expect(s.activeDays == 2 && s.currentDaily == 2)
        #expect(s.longestDaily?.last.description == "2024-08-15")
    }

    /// Auckland is UTC+13 in January (NZDT): a whole calendar day ahead of UTC for most of it.
    @Test func aucklandIsADayAhead() {
        let instant = at(utc, 2024, 1, 1, 12)  // 2 January, 01:00 in Auckland
        #expect(Streaks.day(of: instant, in: auckland).description == "2024-01-02")
        let activity = (1...3).map { at(utc, 2024, 1, $0, 12) }
        let s = summary(activity, now: at(utc, 2024, 1, 3, 12), auckland)
        #expect(s.longestDaily?.first.description == "2024-01-02")
        #expect(s.longestDaily?.last.description == "2024-01-04")
        #expect(s.currentDaily == 3)
    }

    @Test func leapDays() {
        let leap = noons(utc, 2024, 2, [27, 28, 29]) + noons(utc, 2024, 3, [1])
        #expect(summary(leap, now: at(utc, 2024, 3, 1, 18), utc).currentDaily == 4)
        // 28 Feb → 1 Mar is consecutive in a common year, and in 2100 (not a leap year).
        for year in [2023, 2100] {
            let common = [at(utc, year, 2, 28), at(utc, year, 3, 1)]
            #expect(summary(common, now: at(utc, year, 3, 1, 18), utc).currentDaily == 2)
        }
        // 2000 was a leap year: 28 Feb and 1 Mar are not consecutive.
        let y2k = [at(utc, 2000, 2, 28), at(utc, 2000, 3, 1)]
        #expect(summary(y2k, now: at(utc, 2000, 3, 1, 18), utc).currentDaily == 1)
    }

    @Test func defaultTimeZoneIsTheSystems() {
        let activity = (0..<30).map { at(utc, 2024, 7, 1, 0) + Double($0) * 7 * 3600 }
        let now = at(utc, 2024, 7, 10)
        #expect(Streaks.summary(of: activity, now: now) == Streaks.summary(of: activity, now: now, timeZone: .current))
    }
}

/// June 2024: Saturdays 1, 8, 15, 22, 29; Sundays 2, 9, 16, 23, 30.
struct WeekendStreakTests {
    @Test func fourConsecutiveWeekends() {
        let activity = noons(istanbul, 2024, 6, [1, 9, 15, 23])  // Sat, Sun, Sat, Sun
        let s = summary(activity, now: at(istanbul, 2024, 6, 26), istanbul)  // Wednesday
        #expect(s.currentWeekend == 4)
        #expect(
            s.longestWeekend
                == StreakRun(
                    length: 4, first: StreakDay(year: 2024, month: 6, day: 1),
                    last: StreakDay(year: 2024, month: 6, day: 23)))
        #expect(s.activeWeekends == 4)
    }

    @Test func oneMissedWeekendBreaksTheStreak() {
        let activity = noons(utc, 2024, 6, [1, 8, 22, 29]) + noons(utc, 2024, 7, [6])
        let s = summary(activity, now: at(utc, 2024, 7, 10), utc)
        #expect(s.longestWeekend?.length == 3)
        #expect(s.longestWeekend?.first.description == "2024-06-22")
        #expect(s.currentWeekend == 3)
        #expect(s.activeWeekends == 5)
    }

    @Test func saturdayAndSundayCountOnce() {
        let activity = noons(utc, 2024, 6, [1, 2, 8, 9]) + [at(utc, 2024, 6, 9, 18)]
        let s = summary(activity, now: at(utc, 2024, 6, 12), utc)
        #expect(s.longestWeekend?.length == 2)
        #expect(s.longestWeekend?.last.description == "2024-06-09")
        #expect(s.activeWeekends == 2)
        #expect(s.activeDays == 4)
    }

    @Test func weekdaysDoNotCount() {
        let activity = noons(utc, 2024, 6, [3, 4, 5, 6, 7])  // Monday–Friday
        let s = summary(activity, now: at(utc, 2024, 6, 7, 18), utc)
        #expect(s.currentWeekend == 0 && s.longestWeekend == nil && s.activeWeekends == 0)
        #expect(s.currentDaily == 5)
    }

    /// The current weekend streak lasts until a weekend has fully passed without activity.
    @Test func currentWeekendSurvivesUntilTheNextWeekendHasPassed() {
        let activity = noons(utc, 2024, 6, [8, 15])  // Saturdays
        #expect(summary(activity, now: at(utc, 2024, 6, 20), utc).currentWeekend == 2)  // Thursday
        #expect(summary(activity, now: at(utc, 2024, 6, 22, 9), utc).currentWeekend == 2)  // next Saturday
        #expect(summary(activity, now: at(utc, 2024, 6, 23, 23, 59), utc).currentWeekend == 2)  // Sunday night
        let monday = summary(activity, now: at(utc, 2024, 6, 24, 0, 1), utc)
        #expect(monday.currentWeekend == 0)
        #expect(monday.longestWeekend?.length == 2)
        // Sunday activity in the following weekend extends it.
        let sunday = summary(activity + [at(utc, 2024, 6, 23, 10)], now: at(utc, 2024, 6, 23, 11), utc)
        #expect(sunday.currentWeekend == 3)
    }

    @Test func weekendStreakCrossesTheNewYear() {
        let activity = [at(utc, 2024, 12, 21), at(utc, 2024, 12, 29), at(utc, 2025, 1, 4), at(utc, 2025, 1, 12)]
        #expect(summary(activity, now: at(utc, 2025, 1, 15), utc).currentWeekend == 4)
    }

    /// Friday 23:30 in New York is Saturday in UTC: the weekend is the user's, not UTC's.
    @Test func weekendIsJudgedInTheUsersTimeZone() {
        let fridayNight = at(newYork, 2024, 6, 7, 23, 30)
        let now = at(newYork, 2024, 6, 8, 12)
        #expect(summary([fridayNight], now: now, newYork).activeWeekends == 0)
        #expect(summary([fridayNight], now: now, utc).activeWeekends == 1)
    }

    @Test func configurableWeekendDays() {
        // Friday–Saturday weekend: Fri 7 + Sat 8 are one weekend, Sun 9 is a working day, Fri 14 the next.
        let activity = noons(utc, 2024, 6, [7, 8, 9, 14])
        let friSat = Streaks.summary(
            of: activity, now: at(utc, 2024, 6, 17), timeZone: utc,
            weekendDays: [.friday, .saturday])
        #expect(friSat.activeWeekends == 2 && friSat.currentWeekend == 2)
        #expect(friSat.longestWeekend?.first.description == "2024-06-07")
        #expect(friSat.longestWeekend?.last.description == "2024-06-14")
        // A split weekend (Brunei: Friday and Sunday) is still one weekend per week.
        let brunei = Streaks.summary(
            of: noons(utc, 2024, 6, [7, 9]), now: at(utc, 2024, 6, 12),
            timeZone: utc, weekendDays: [.friday, .sunday])
        #expect(brunei.activeWeekends == 1 && brunei.currentWeekend == 1)
        // No weekend days: no weekend streaks, daily streaks unaffected.
        let none = Streaks.summary(of: activity, now: at(utc, 2024, 6, 17), timeZone: utc, weekendDays: [])
        #expect(none.activeWeekends == 0 && none.longestWeekend == nil && none.longestDailyLength == 3)
    }

    /// The weekday numbering agrees with Calendar's for a few weeks either side of 1970-01-01.
    @Test func weekdayFollowsTheCalendar() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utc
        for offset in -30...30 {
            let date = at(utc, 1970, 1, 1) + Double(offset) * 86_400
            let onlyThatDay = Streaks.summary(of: [date], now: date, timeZone: utc)
            let isWeekend = [1, 7].contains(calendar.component(.weekday, from: date))
            #expect(onlyThatDay.activeWeekends == (isWeekend ? 1 : 0))
        }
    }
}

/// `Streaks.longestByPrefix` (one pass) gives, for every count, the longest daily and weekend
/// streaks `Streaks.summary` gives for the regions entered up to it as of the last one's entry:
/// seeded regions over months in zones with and without DST, latest visits later, equal to the
/// start, and (corrupt) before it, and ties in start times.
@Suite struct StreaksByPrefixTests {
    @Test func everyPrefixAsTheSummaryHasIt() {
        var generator = SeededGenerator(state: 7)
        func random(_ n: Int) -> Int { generator.below(n) }
        for tz in [utc, istanbul, newYork, auckland, kolkata] {
            var t = at(tz, 2024, 3, 1, 0).timeIntervalSince1970
            var starts: [Date] = []
            for _ in 0..<700 {
                // Mostly within a day, sometimes a gap of days or weeks; sometimes the same instant.
                t += [0, 600, 3_600 * Double(random(30)), 86_400 * Double(random(3)), 86_400 * Double(random(20))][random(5)]
                starts.append(Date(timeIntervalSince1970: t))
            }
            let regions = starts.enumerated().map { i, start in
                // A latest visit: none, the start, later, exactly a later region's start, or (corrupt) before the start.
                let last: Date? = [
                    nil, start, start.addingTimeInterval(Double(random(40)) * 86_400 / 3),
                    starts[min(starts.count - 1, i + random(30))],
                    start.addingTimeInterval(-Double(random(5)) * 86_400),
                ][random(5)]
                return VisitedRegion(latitude: 41, longitude: 29, radius: 150, timestampStart: start, geohash: "sxk9", lastVisit: last)
            }
            let swept = Streaks.longestByPrefix(of: regions, timeZone: tz)
            #expect(swept.count == regions.count)
            for k in 1...regions.count {
                let summary = Streaks.summary(
                    of: Streaks.activity(of: regions.prefix(k)), now: regions[k - 1].timestampStart,
                    timeZone: tz)
                guard swept[k - 1].daily == summary.longestDailyLength, swept[k - 1].weekend == summary.longestWeekendLength else {
                    Issue.record(
                        "\(tz.identifier), count \(k): \(swept[k - 1]) ≠ \(summary.longestDailyLength), \(summary.longestWeekendLength)")
                    return
                }
            }
            #expect(swept.last!.daily > 3 && swept.last!.weekend > 1)  // the walk does make streaks
        }
    }
}
