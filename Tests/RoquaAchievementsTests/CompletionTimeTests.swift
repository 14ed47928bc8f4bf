import Foundation
import RoquaBoundaries
import RoquaRegions
import RoquaTestSupport
import Testing

@testable import RoquaAchievements

/// The search that dates an unlock: the first count whose prefix is done, for any monotone
/// progress, in few probes.
@Suite struct CompletionTimeTests {
    @Test func findsTheFirstDoneCountForAnyMonotoneProgress() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let count = Int.random(in: 1...5000, using: &generator)
            // A monotone progress: steps of random size, some flat stretches.
            var progress = [0.0]
            for _ in 0..<count {
                progress.append(progress.last! + (Bool.random(using: &generator) ? Double.random(in: 0...3, using: &generator) : 0))
            }
            let target = Double.random(in: 0.01...max(0.02, progress[count]), using: &generator)
            guard progress[count] >= target else { continue }
            let expected = (1...count).first { progress[$0] >= target }!
            var probes = 0
            let found = CompletionTimes.first(count, top: progress[count], target: target) { k in
                probes += 1
                return (progress[k] >= target, progress[k])
            }
            #expect(found == expected)
            #expect(Double(probes) <= 2 * log2(Double(count)) + 2, "\(probes) probes for \(count)")
        }
    }

    /// A count target grows one per region: the guess lands on it at once.
    @Test func aLinearProgressTakesAFewProbes() {
        var probes = 0
        let found = CompletionTimes.first(30_000, top: 30_000, target: 1000) { k in
            probes += 1
            return (k >= 1000, Double(k))
        }
        #expect(found == 1000 && probes <= 2)
    }
}

/// Longest-streak unlocks dated from the streaks of every count at once (one pass) fall on the
/// very region the probing search finds, for every streak achievement of the bundled catalog,
/// in two zones, over a seeded year of regions with gaps.
@Suite struct StreakCompletionTests {
    @Test func sweptDatesEqualProbedDates() throws {
        let catalog = try AchievementCatalog.bundled()
        let hierarchy = try BoundaryHierarchy(database: Bundled.database())
        let ids = catalog.achievements.filter { $0.calculator.hasSuffix("_streak") }.map(\.id)
        #expect(ids.count >= 9)
        var generator = SeededGenerator(state: 11)
        func random(_ n: Int) -> Int { generator.below(n) }
        for zone in ["Europe/Istanbul", "America/New_York"] {
            let timeZone = try #require(TimeZone(identifier: zone))
            var t = 1_704_067_200.0
            var regions: [VisitedRegion] = []
            for i in 0..<1_200 {
                // Runs of days with a region or more each, broken now and then by a gap of days.
                t += random(80) == 0 ? 86_400 * Double(2 + random(8)) : [3_600, 30_000, 86_400][random(3)]
                let start = Date(timeIntervalSince1970: t)
                regions.append(
                    VisitedRegion(
                        id: Int64(i + 1), latitude: 41, longitude: 29, radius: 150, timestampStart: start,
                        geohash: "sxk9", lastVisit: random(5) == 0 ? start.addingTimeInterval(86_400 * 2) : nil))
            }
            let now = Date(timeIntervalSince1970: t + 86_400 * 400)
            func times(swept: Bool) throws -> CompletionTimes {
                try CompletionTimes(
                    catalog: catalog, hierarchy: hierarchy, timeZone: timeZone, regions: regions, previous: [],
                    latest: now, dating: ids, sweeps: swept)
            }
            let (swept, probed) = (try times(swept: true), try times(swept: false))
            let evaluator = AchievementEvaluator(catalog: catalog)
            let statuses = try evaluator.evaluate(AchievementContext(regions: regions, timeZone: timeZone, now: now), only: Set(ids))
            let unlocked = statuses.filter(\.unlocked)
            #expect(unlocked.count >= 7, "\(zone): the regions make streaks to date")
            for status in unlocked {
                let a = try swept.completed(status.id, progress: status.current)
                let b = try probed.completed(status.id, progress: status.current)
                #expect(a == b, "\(zone) \(status.id): \(a) ≠ \(b)")
                #expect(a < now)
            }
        }
    }
}

/// Area unlocks dated from one sweep of the explored area (`ExploredArea.firstCounts`) fall on the
/// very region the probing search finds, for every area achievement of the bundled catalog ("10
/// km²" needing "1 km²" unlocked in the same batch too), over a seeded walk that reaches 100 km².
@Suite struct AreaCompletionTests {
    @Test func sweptDatesEqualProbedDates() throws {
        let catalog = try AchievementCatalog.bundled()
        let hierarchy = try BoundaryHierarchy(database: Bundled.database())
        let ids = catalog.achievements.filter { $0.calculator == "area" }.map(\.id)
        #expect(ids.count >= 6)
        var generator = SeededGenerator(state: 12)
        var (latitude, longitude, t) = (41.0, 29.0, 1_704_067_200.0)
        let regions = (0..<600).map { i in
            latitude += Double.random(in: -0.012...0.012, using: &generator)
            longitude += Double.random(in: -0.012...0.012, using: &generator)
            t += Double.random(in: 60...7_200, using: &generator)
            return VisitedRegion(
                id: Int64(i + 1), latitude: latitude, longitude: longitude, radius: 500,
                timestampStart: Date(timeIntervalSince1970: t), geohash: "sxk9")
        }
        let now = Date(timeIntervalSince1970: t + 86_400)
        let timeZone = try #require(TimeZone(identifier: "Europe/Istanbul"))
        let statuses = try AchievementEvaluator(catalog: catalog).evaluate(
            AchievementContext(regions: regions, timeZone: timeZone, now: now), only: Set(ids))
        let unlocked = statuses.filter(\.unlocked)
        #expect(unlocked.count >= 5, "the walk reaches 100 km²: \(statuses.map { ($0.id, $0.current) })")
        func times(swept: Bool) throws -> CompletionTimes {
            try CompletionTimes(
                catalog: catalog, hierarchy: hierarchy, timeZone: timeZone, regions: regions, previous: [],
                latest: now, dating: unlocked.map(\.id), sweeps: swept)
        }
        let (swept, probed) = (try times(swept: true), try times(swept: false))
        var dates: Set<Date> = []
        for status in unlocked {
            let a = try swept.completed(status.id, progress: status.current)
            #expect(a == (try probed.completed(status.id, progress: status.current)), "\(status.id)")
            #expect(a < regions[regions.count - 1].timestampStart)
            dates.insert(a)
        }
        #expect(dates.count == unlocked.count, "each target is reached on a region of its own")
    }
}
