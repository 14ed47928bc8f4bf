import Foundation
import RoquaTimeline
import Testing

/// Fixes every `every` seconds at `point` from `from` to `to` (seconds since 1970 UTC), with a fixed
/// zig-zag of `wobble` metres instead of random noise.
func still(_ point: GeoPoint, from: Double, to: Double, every: Double = 30, wobble: Double = 10, accuracy: Double = 15) -> [TimelineFix] {
    var fixes: [TimelineFix] = []
    var t = from
    var i = 0
    while t <= to {
        let p = point.offset(north: i % 2 == 0 ? wobble : -wobble, east: i % 3 == 0 ? wobble : -wobble)
        fixes.append(TimelineFix(time: Int64(t * 1000), latitude: p.latitude, longitude: p.longitude, accuracy: accuracy))
        t += every
        i += 1
    }
    return fixes
}

/// Never at sea.
func everywhereLand(_ latitude: Double, _ longitude: Double) -> Bool { true }

/// Stays: phone gaps, outliers, drift, short stops, ordering and settings.
@Suite struct StayTests {
    let home = SyntheticDays.home
    let day = SyntheticDays.at(0, 0)

    @Test func noFixesAndOneFixGiveNoEntries() {
        #expect(Timeline.segment([], isOnLand: everywhereLand).isEmpty)
        let one = TimelineFix(time: 1_000, latitude: 41, longitude: 29, accuracy: 10)
        #expect(Timeline.segment([one], isOnLand: everywhereLand).isEmpty)
    }

    @Test func aNightWithThePhoneOffAtHomeIsOneStaySpanningMidnight() {
        let evening = still(home, from: day + 22.5 * 3600, to: day + (23 + 10 / 60) * 3600)
        let morning = still(home, from: day + 31.5 * 3600, to: day + 32 * 3600)
        var b = SyntheticBuilder(seed: 7, start: day + 32 * 3600 + 30, position: home)
        b.travel(.walk, to: SyntheticDays.homeCafe, kmh: 5)
        let entries = Timeline.segment(evening + morning + b.fixes, isOnLand: everywhereLand)
        let stays = entries.compactMap(\.stay)
        #expect(stays.count == 1)
        let midnight = Int64((day + 24 * 3600) * 1000)
        #expect(
            stays.first.map { $0.start <= Int64((day + 22.5 * 3600) * 1000) + 60_000 && $0.end >= Int64((day + 32 * 3600) * 1000) } == true)
        #expect(stays.first.map { $0.start < midnight && $0.end > midnight } == true)
        #expect(entries.last?.move?.mode == .walk)
    }

    @Test func anOutlierWithAPoorAccuracyDoesNotSplitAStay() {
        var fixes = still(home, from: day, to: day + 1800)
        let far = home.offset(north: 500, east: 0)
        fixes.insert(TimelineFix(time: Int64((day + 905) * 1000), latitude: far.latitude, longitude: far.longitude, accuracy: 600), at: 31)
        let entries = Timeline.segment(fixes, isOnLand: everywhereLand)
        #expect(entries.count == 1)
        #expect(entries.first?.stay.map { GeoPoint(latitude: $0.latitude, longitude: $0.longitude).distance(to: home) < 20 } == true)
    }

    @Test func aLoneSpikeWithGoodAccuracyDoesNotSplitAStay() {
        var fixes = still(home, from: day, to: day + 1800)
        let far = home.offset(north: 0, east: 700)
        fixes.insert(TimelineFix(time: Int64((day + 905) * 1000), latitude: far.latitude, longitude: far.longitude, accuracy: 10), at: 31)
        #expect(Timeline.segment(fixes, isOnLand: everywhereLand).count == 1)
    }

    @Test func anIsolatedPoorFixStartsNeitherAStayNorAMove() {
        var fixes = still(home, from: day, to: day + 1200)
        let far = home.offset(north: 2000, east: 0)
        fixes.append(TimelineFix(time: Int64((day + 1500) * 1000), latitude: far.latitude, longitude: far.longitude, accuracy: 300))
        fixes += still(home, from: day + 1800, to: day + 3000)
        #expect(Timeline.segment(fixes, isOnLand: everywhereLand).count == 1)
    }

    @Test func indoorDriftStaysOneStay() {
        var b = SyntheticBuilder(seed: 11, start: day + 8 * 3600, position: home)
        b.stay(until: day + 12 * 3600, drift: true)
        let entries = Timeline.segment(b.fixes, isOnLand: everywhereLand)
        #expect(entries.count == 1)
        #expect(entries.first?.stay != nil)
    }

    @Test func aShortStopIsNotAStayAndALongerOneIs() {
        for (minutes, stays) in [(3.0, 0), (8.0, 1)] {
            var b = SyntheticBuilder(seed: 3, start: day + 9 * 3600, position: home)
            b.travel(.walk, to: SyntheticDays.homeCafe, kmh: 5)
            b.stay(until: b.now + minutes * 60)
            b.travel(.walk, to: SyntheticDays.kadikoyPier, kmh: 5)
            let found = Timeline.segment(b.fixes, isOnLand: everywhereLand).compactMap(\.stay)
            #expect(found.count == stays, "a stop of \(minutes) minutes")
        }
    }

    @Test func entriesAreInOrderWithoutOverlapAndLinkToTheirStays() {
        let week = SyntheticDays.week(seed: 2)
        let entries = Timeline.segment(week.fixes, isOnLand: SyntheticDays.isOnLand)
        #expect(entries.count > 50)
        for (a, b) in zip(entries, entries.dropFirst()) {
            #expect(a.start <= a.end && a.end <= b.start)
        }
        for (i, entry) in entries.enumerated() {
            guard let move = entry.move else { continue }
            if let from = move.fromStay { #expect(from < i && entries[from].stay?.end == entries[from + 1].start) }
            if let to = move.toStay { #expect(to > i && entries[to].stay?.start == entries[to - 1].end) }
        }
    }

    @Test func settingsOutOfRangeNameTheirOption() {
        #expect(throws: TimelineSettingsError.stayMinutesOutOfRange(0)) { try TimelineSettings(stayMinutes: 0) }
        #expect(throws: TimelineSettingsError.stayMetersOutOfRange(5000)) { try TimelineSettings(stayMeters: 5000) }
        #expect(TimelineSettingsError.stayMinutesOutOfRange(300).description.contains("--stay-minutes"))
        #expect(TimelineSettingsError.stayMetersOutOfRange(10).description.contains("--stay-meters"))
        #expect(TimelineSettings.standard.stayMinutes == 5 && TimelineSettings.standard.stayMeters == 100)
    }
}
