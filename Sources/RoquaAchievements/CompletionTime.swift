import Foundation
import RoquaBoundaries
import RoquaRegions

/// When a newly unlocked achievement was completed: the moment of the region or visit that took it
/// to its target, not the moment of the import (an old trip imported today unlocks on its day).
///
/// Achievements computed from regions alone are re-evaluated on the regions entered up to a moment,
/// and the earliest region whose entry completes the achievement is found by bisection (their
/// progress only grows as regions are added). Those counted from visits after the first (revisits,
/// streaks reached through a revisit) or from the travel records (explorer tiles, days abroad),
/// which keep no per-entry time, are dated by the latest visit the evaluation saw.
struct CompletionTimes {
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

    private var prefixes: [Int: AchievementContext] = [:]

    init(catalog: AchievementCatalog, hierarchy: BoundaryHierarchy, timeZone: TimeZone, regions: [VisitedRegion],
         previous: [AchievementUnlock], latest: Date) {
        self.catalog = catalog
        self.hierarchy = hierarchy
        self.timeZone = timeZone
        self.regions = regions.sorted { ($0.timestampStart, $0.id ?? 0) < ($1.timestampStart, $1.id ?? 0) }
        self.previous = Dictionary(previous.map { ($0.id, $0.unlockedAt) }, uniquingKeysWith: min)
        self.latest = latest
    }

    /// The latest visit among `regions` (the end of a region's latest visit, else its start).
    static func latestVisit(_ regions: some Sequence<VisitedRegion>) -> Date? {
        regions.map { max($0.timestampEnd ?? $0.lastVisit, $0.lastVisit) }.max()
    }

    /// The regions entered up to and including the `count`-th, evaluated as of its entry.
    private mutating func prefix(_ count: Int) -> AchievementContext {
        if let known = prefixes[count] { return known }
        let context = AchievementContext(regions: Array(regions.prefix(count)), hierarchy: hierarchy, timeZone: timeZone,
                                         now: regions[count - 1].timestampStart)
        prefixes[count] = context
        return context
    }

    /// When `id` (just found unlocked on every region) was completed, never after `now` and never
    /// before its prerequisites were unlocked (`unlocks`: the ones known so far, this batch's too).
    mutating func time(of id: String, unlocks: [String: Date], now: Date) throws -> Date {
        guard let definition = catalog.definition(id) else { return min(latest, now) }
        var completed = latest
        if !Self.datedByLatestVisit.contains(definition.calculator), !regions.isEmpty {
            let evaluator = AchievementEvaluator(catalog: catalog)
            let before = Set(previous.keys)
            func done(_ count: Int) throws -> Bool {
                try evaluator.evaluate(prefix(count), only: [id], unlocked: before).first?.unlocked == true
            }
            if try done(regions.count) {
                var low = 1, high = regions.count  // done(high) holds
                while low < high {
                    let middle = (low + high) / 2
                    if try done(middle) { high = middle } else { low = middle + 1 }
                }
                completed = regions[high - 1].timestampStart
            }
        }
        let after = definition.prerequisites.compactMap { unlocks[$0] }.max() ?? .distantPast
        return min(max(completed, after), now)
    }
}
