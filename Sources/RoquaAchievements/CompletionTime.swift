import Foundation
import RoquaBoundaries
import RoquaProgress
import RoquaRegions

/// When a newly unlocked achievement was completed: the moment of the region or visit that took it
/// to its target, not the moment of the import (an old trip imported today unlocks on its day).
///
/// Achievements computed from regions alone are re-evaluated on the regions entered up to a moment,
/// and the earliest region whose entry completes the achievement is found by bisection (their
/// progress only grows as regions are added). Those counted from visits after the first (revisits,
/// streaks reached through a revisit) or from the travel records (explorer tiles, days abroad),
/// which keep no per-entry time, are dated by the latest visit the evaluation saw. The longest
/// streaks are known for every count at once (`Streaks.longestByPrefix`), and so are the counts
/// whose explored area reaches each area target (`ExploredArea.firstCounts`): one pass instead of
/// a streak or an area measured for each probe. The searches of several achievements are
/// independent and run side by side (`completed(_:)`).
struct CompletionTimes: Sendable {
    /// Calculators whose progress the regions entered up to a moment do not decide.
    static let datedByLatestVisit: Set<String> = ["revisit", "explorer_tiles", "max_square", "days_abroad"]

    let catalog: AchievementCatalog
    let hierarchy: BoundaryHierarchy
    let timeZone: TimeZone
    /// Every region, by the time it was entered.
    let regions: [VisitedRegion]
    /// Achievements unlocked before this evaluation, with when.
    let previous: [String: Date]
    /// The latest visit the evaluation saw, for what cannot be dated more precisely.
    let latest: Date

    /// The longest daily and weekend streaks of every count, when an achievement to date needs them.
    private let streaksByCount: [(daily: Int, weekend: Int)]?
    /// For each area target (km²) of an achievement to date, the first count whose area reaches it.
    private let areaCounts: [Double: Int]

    /// `dating`: the achievements `completed` will be asked about (the streaks of every count
    /// are made only when one of them is a streak, the area counts for their area targets);
    /// `sweeps` false dates streaks and areas by probing too (tests compare the two).
    init(
        catalog: AchievementCatalog, hierarchy: BoundaryHierarchy, timeZone: TimeZone, regions: [VisitedRegion],
        previous: [AchievementUnlock], latest: Date, dating: some Sequence<String>, sweeps: Bool = true
    ) throws {
        self.catalog = catalog
        self.hierarchy = hierarchy
        self.timeZone = timeZone
        // Read from the store in id order, the regions are nearly always in order of entry too:
        // a sorted copy of a million of them would be 350 MB more at the import's peak.
        func entered(_ a: VisitedRegion, before b: VisitedRegion) -> Bool { (a.timestampStart, a.id ?? 0) < (b.timestampStart, b.id ?? 0) }
        let inOrder = zip(regions, regions.dropFirst()).allSatisfy { !entered($1, before: $0) }
        self.regions = inOrder ? regions : regions.sorted(by: entered)
        self.previous = Dictionary(previous.map { ($0.id, $0.unlockedAt) }, uniquingKeysWith: min)
        self.latest = latest
        let streaks = sweeps && dating.contains { catalog.calculators[$0] is StreakCalculator }
        streaksByCount = streaks ? Streaks.longestByPrefix(of: self.regions, timeZone: timeZone) : nil
        let areaTargets = sweeps ? Array(Set(dating.compactMap { (catalog.calculators[$0] as? AreaCalculator)?.target })) : []
        var areaCounts: [Double: Int] = [:]
        if !areaTargets.isEmpty {
            let circles = self.regions.map { ExploredCircle(latitude: $0.latitude, longitude: $0.longitude, radius: Double($0.radius)) }
            let counts = try ExploredArea.firstCounts(reaching: areaTargets.map { $0 * 1_000_000 }, of: circles)
            for (target, count) in zip(areaTargets, counts) { areaCounts[target] = count }
        }
        self.areaCounts = areaCounts
    }

    /// The smallest count in 1…`count` whose `probe` is done (`probe(count)` is, with progress
    /// `top`): guessed from the progress (most achievements grow about linearly with the regions,
    /// so a guess lands near the answer), bisecting whenever a guess did not halve the range, so
    /// never more than about twice a bisection's probes.
    static func first(_ count: Int, top: Double, target: Double?, _ probe: (Int) throws -> (done: Bool, progress: Double)) rethrows -> Int {
        var low = 0, lowProgress = 0.0  // not done at `low` (none entered)
        var high = count, highProgress = top  // done at `high`
        var guessNext = true
        while high - low > 1 {
            var next = (low + high) / 2
            if guessNext, let target, highProgress > lowProgress, target > lowProgress {
                let fraction = (target - lowProgress) / (highProgress - lowProgress)
                next = min(high - 1, max(low + 1, low + Int((fraction * Double(high - low)).rounded(.up))))
            }
            let before = high - low
            let result = try probe(next)
            if result.done { (high, highProgress) = (next, result.progress) } else { (low, lowProgress) = (next, result.progress) }
            guessNext = (high - low) * 2 <= before
        }
        return high
    }

    /// The latest visit among `regions` (the end of a region's latest visit, else its start).
    static func latestVisit(_ regions: some Sequence<VisitedRegion>) -> Date? {
        regions.lazy.map(\.latestVisit).max()
    }

    /// For a longest-streak achievement that nothing else decides (no validity window, no
    /// prerequisite unlocked in this batch), the first count whose streak reaches its target.
    private func firstStreakCount(_ definition: AchievementDefinition) -> Int? {
        guard let streaksByCount, let streak = catalog.calculators[definition.id] as? StreakCalculator, !streak.current,
            definition.window(in: timeZone) == nil, definition.prerequisites.allSatisfy({ previous[$0] != nil })
        else { return nil }
        return streaksByCount.firstIndex { Double(streak.weekends ? $0.weekend : $0.daily) >= streak.target }.map { $0 + 1 }
    }

    /// For an area achievement that the area alone decides, the first count whose area reaches
    /// its target (nil, to be searched, where the sweep's sums fall short of it by rounding).
    private func firstAreaCount(_ definition: AchievementDefinition) -> Int? {
        guard let area = catalog.calculators[definition.id] as? AreaCalculator, decidedByArea(definition.id, upTo: area.target)
        else { return nil }
        return areaCounts[area.target]
    }

    /// Whether `id` is unlocked on any regions whose area reaches `target`: an area achievement
    /// with no validity window and a target no larger, whose prerequisites were unlocked before
    /// or are such achievements themselves ("10 km²" needs "1 km²").
    private func decidedByArea(_ id: String, upTo target: Double) -> Bool {
        guard let definition = catalog.definition(id), let area = catalog.calculators[id] as? AreaCalculator, area.target <= target,
            definition.window(in: timeZone) == nil
        else { return false }
        return definition.prerequisites.allSatisfy { previous[$0] != nil || decidedByArea($0, upTo: target) }
    }

    /// The regions entered up to and including the `count`-th, evaluated as of its entry.
    private func prefix(_ count: Int) -> AchievementContext {
        AchievementContext(
            slice: regions.prefix(count), hierarchy: hierarchy, timeZone: timeZone,
            now: regions[count - 1].timestampStart, travel: nil)
    }

    /// When `id` was completed (`completed`), never after `now` and never before its prerequisites
    /// were unlocked (`unlocks`: the ones known so far, this batch's too).
    func clamp(_ completed: Date, of id: String, unlocks: [String: Date], now: Date) -> Date {
        guard let definition = catalog.definition(id) else { return min(latest, now) }
        let after = definition.prerequisites.compactMap { unlocks[$0] }.max() ?? .distantPast
        return min(max(completed, after), now)
    }

    /// When each of `ids` (with its progress on every region) reached its target, searched side by
    /// side on the machine's cores (each search its own contexts); the first error in `ids`' order
    /// is thrown.
    func completed(_ ids: [(id: String, progress: Double)]) throws -> [String: Date] {
        var results = [Result<Date, any Error>?](repeating: nil, count: ids.count)
        results.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let out = buffer  // each iteration writes its own index
            DispatchQueue.concurrentPerform(iterations: ids.count) { k in
                out[k] = Result { try completed(ids[k].id, progress: ids[k].progress) }
            }
        }
        var dates: [String: Date] = [:]
        for (k, result) in results.enumerated() { dates[ids[k].id] = try result?.get() }
        return dates
    }

    /// When `id`, unlocked on every region with `progress`, reached its target (the latest visit
    /// for what the regions entered up to a moment do not decide).
    func completed(_ id: String, progress: Double) throws -> Date {
        guard let definition = catalog.definition(id), !Self.datedByLatestVisit.contains(definition.calculator),
            !regions.isEmpty
        else { return latest }
        if let count = firstStreakCount(definition) ?? firstAreaCount(definition) { return regions[count - 1].timestampStart }
        let evaluator = AchievementEvaluator(catalog: catalog)
        let before = Set(previous.keys)
        func probe(_ count: Int) throws -> (done: Bool, progress: Double) {
            guard let status = try evaluator.evaluate(prefix(count), only: [id], unlocked: before).first else { return (false, 0) }
            return (status.unlocked, status.current.isFinite ? status.current : 0)
        }
        // Unlocked on every region (the caller's evaluation): the search starts from there.
        let top = progress.isFinite ? progress : try probe(regions.count).progress
        return regions[try Self.first(regions.count, top: top, target: definition.parameters.target, probe) - 1].timestampStart
    }
}
