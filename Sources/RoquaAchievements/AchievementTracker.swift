import Foundation
import GRDB
import RoquaBoundaries
import RoquaProgress
import RoquaRegions

/// What the achievement system reports after a batch of region events.
public enum AchievementEvent: Sendable, Equatable {
    case unlocked(AchievementUnlock)
    case levelUp(from: Int, to: Int)
}

/// Every achievement's status with the unlocks and the player's level, as of one moment.
public struct AchievementBoard: Sendable {
    /// Every achievement's status, in catalog order.
    public var statuses: [AchievementStatus]
    /// Every unlock stored, the new ones included, oldest first.
    public var unlocks: [AchievementUnlock]
    /// The player's XP and level from regions and unlocks.
    public var level: PlayerLevel
    /// Achievements unlocked by this evaluation (a new catalog entry, a window that opened).
    public var newUnlocks: [AchievementUnlock]

    /// The unlock of `id`, or `nil` while it is locked.
    public func unlock(_ id: String) -> AchievementUnlock? { unlocks.first { $0.id == id } }
}

/// Unlocks achievements from region events and keeps the unlocks in the region store (which must
/// be opened with `AchievementStorage.component`).
///
/// Incremental: `consume` looks only at the achievements a batch of events can move — new regions
/// move every locked one, revisits only those counting revisits or streaks — and skips everything
/// already unlocked; nothing is evaluated per fix. An unlock is written once and never repeated.
public struct AchievementTracker: Sendable {
    /// The achievements tracked.
    public let catalog: AchievementCatalog
    /// The boundary tree calculators read continents from.
    public let hierarchy: BoundaryHierarchy
    /// The zone temporal achievements count days and hours in.
    public let timeZone: TimeZone

    /// Creates a tracker; it stores nothing until `board` or an import asks.
    public init(catalog: AchievementCatalog, hierarchy: BoundaryHierarchy, timeZone: TimeZone = .current) {
        self.catalog = catalog
        self.hierarchy = hierarchy
        self.timeZone = timeZone
    }

    /// Calculators whose result a revisit can change (a revisit adds no region, district or area).
    static let revisitSensitive: Set<String> = [
        "revisit", "daily_streak", "weekend_streak", "explorer_tiles", "max_square",
        "days_abroad",
    ]

    /// The explorer tiles and days abroad stored so far (read inside the evaluation's transaction).
    static func travelFacts(_ db: Database, zone: TimeZone) throws -> TravelFacts {
        TravelFacts(
            tiles: TileStats(zoom: 14, visited: try RegionStore.visitedTiles(db, zoom: 14)),
            daysAbroad: try RegionStore.daysAbroad(db, zone: zone))
    }

    /// Inside an import's transaction, after its regions are written: the unlocks and level-ups
    /// the import's events caused, stored in the same transaction. `stored`: every readable
    /// region as the store now holds it, when the importer has them (else they are read).
    package func consume(
        _ db: Database, events: [RegionEvent], stored: [VisitedRegion]? = nil,
        now: Date = Date()
    ) throws -> [AchievementEvent] {
        guard !events.isEmpty else { return [] }
        let previous = try AchievementStorage.unlocks(db)
        let unlocked = Set(previous.map(\.id))
        let affected = affected(by: events, unlocked: unlocked)
        // The new regions in the order they were made, which is the order of their ids.
        let newIDs = events.compactMap { event -> Int64? in if case let .newRegion(touch) = event { touch.id } else { nil } }
        let regions = try stored ?? RegionStore.regions(db).readable  // the import has reported unreadable rows already
        // Nearly always the new regions are the last ones read (ids grow): the ones before them
        // are the store before the import, read in place — no copy, no set of a million ids.
        let earlier = regions.count - newIDs.count
        let newAreLast = earlier >= 0 && regions[earlier...].lazy.map(\.id).elementsEqual(newIDs.lazy.map(Optional.some))
        let latest = events.lazy.compactMap { event -> Date? in
            switch event {
            case let .newRegion(touch), let .revisit(touch): touch.latestVisit
            default: nil
            }
        }.max()
        let context = context(of: regions, at: now, db)
        // A big store's explored area and world share are carried forward from the ones
        // remembered before the import, or measured, rather than left to the next `stats`.
        if !newIDs.isEmpty { context.keepFiguresRemembered(afterAdding: newAreLast ? newIDs.count : nil) }
        let new = try record(affected, among: regions, previous: previous, latest: latest, now: now, db, context: context)
        let before: Int
        if newAreLast {
            before = catalog.experience.standing(regions: regions[..<earlier], unlocks: previous).level
        } else {
            let newRegions = Set(newIDs)
            before =
                catalog.experience.standing(
                    regions: regions.lazy.filter { $0.id.map { !newRegions.contains($0) } ?? true },
                    unlocks: previous
                ).level
        }
        let after = catalog.experience.standing(regions: regions, unlocks: previous + new).level
        var result = new.map(AchievementEvent.unlocked)
        if after > before { result.append(.levelUp(from: before, to: after)) }
        return result
    }

    /// After everything was derived again from the kept fixes (its unlocks emptied): every
    /// achievement evaluated against `stored`, the regions as now stored, and its unlocks stored,
    /// each dated when the regions completed it — what importing everything at once records.
    /// A big store's explored area and world share are left remembered too.
    package func rederived(_ db: Database, stored: [VisitedRegion], now: Date = Date()) throws -> [AchievementUnlock] {
        let ids = Set(catalog.achievements.map(\.id))
        let context = context(of: stored, at: now, db)
        let new = try record(
            ids, among: stored, previous: [], latest: CompletionTimes.latestVisit(stored), now: now, db, context: context)
        context.keepFiguresRemembered()
        return new
    }

    /// The locked achievements a batch of events can move: all of them when a region was added,
    /// only revisit and streak ones when the batch holds nothing but revisits.
    func affected(by events: [RegionEvent], unlocked: Set<String>) -> Set<String> {
        let addsRegions = events.contains { if case .revisit = $0 { false } else { true } }
        return Set(
            catalog.achievements.filter { definition in
                !unlocked.contains(definition.id) && (addsRegions || Self.revisitSensitive.contains(definition.calculator))
            }.map(\.id))
    }

    /// Evaluates every achievement, stores what became unlocked (a catalog that gained entries, a
    /// validity window that opened), and returns the whole board, in one transaction.
    /// - Throws: `RegionStoreError` when the store cannot be read or written; `ExploredAreaError`
    ///   when a stored region's centre or radius cannot be measured.
    public func board(store: RegionStore, now: Date = Date()) throws -> AchievementBoard {
        try store.write { db in
            let regions = try store.readableRegions(db)
            let previous = try AchievementStorage.unlocks(db)
            let unlocked = Set(previous.map(\.id))
            let locked = Set(catalog.achievements.map(\.id)).subtracting(unlocked)
            // One context for both evaluations: the explored area, world share and streaks of a
            // million regions are computed once, not once for the locked ones and again for all.
            let context = context(of: regions, at: now, db)
            let new = try record(
                locked, among: regions, previous: previous, latest: CompletionTimes.latestVisit(regions),
                now: now, db, context: context)
            let unlocks = previous + new
            // A stored unlock stands (it is never taken back) and carries its date.
            let dates = Dictionary(unlocks.map { ($0.id, $0.unlockedAt) }, uniquingKeysWith: min)
            let statuses = try AchievementEvaluator(catalog: catalog).evaluate(context).map { status in
                var status = status
                status.unlockedAt = dates[status.id]
                status.unlocked = status.unlocked || status.unlockedAt != nil
                return status
            }
            return AchievementBoard(
                statuses: statuses, unlocks: unlocks,
                level: catalog.experience.standing(regions: regions, unlocks: unlocks), newUnlocks: new)
        }
    }

    /// A context of `regions` at `now` inside `db`'s transaction: travel facts read from it, a big
    /// store's figures remembered in it.
    private func context(of regions: [VisitedRegion], at now: Date, _ db: Database) -> AchievementContext {
        AchievementContext(
            regions: regions, hierarchy: hierarchy, timeZone: timeZone, now: now,
            travel: { try Self.travelFacts(db, zone: self.timeZone) }, memory: StoredFigures(db))
    }

    /// Evaluates `ids` and stores their unlocks, each dated when it was completed (see
    /// `CompletionTimes`; `latest`: the latest visit the evaluation saw); returns the new ones.
    /// `context`: one of `regions` at `now` (its statistics are shared with the caller).
    private func record(
        _ ids: Set<String>, among regions: [VisitedRegion], previous: [AchievementUnlock], latest: Date?,
        now: Date, _ db: Database, context: AchievementContext
    ) throws -> [AchievementUnlock] {
        guard !ids.isEmpty else { return [] }
        let unlocked = Set(previous.map(\.id))
        let statuses = try AchievementEvaluator(catalog: catalog).evaluate(context, only: ids, unlocked: unlocked)
        let newly = statuses.filter { $0.unlocked && !unlocked.contains($0.id) }
        let times = try CompletionTimes(
            catalog: catalog, hierarchy: hierarchy, timeZone: timeZone, regions: regions,
            previous: previous, latest: latest ?? now, dating: newly.map(\.id))
        let completed = try times.completed(newly.map { ($0.id, $0.current) })
        var dates = Dictionary(previous.map { ($0.id, $0.unlockedAt) }, uniquingKeysWith: min)
        // Prerequisites are dated before what needs them (the catalog has no cycles).
        var waiting = newly.map(\.id)
        var new: [AchievementUnlock] = []
        while !waiting.isEmpty {
            let free = waiting.filter { id in
                catalog.definition(id)?.prerequisites.allSatisfy { !waiting.contains($0) } ?? true
            }
            let ready = free.isEmpty ? waiting : free
            for id in ready {
                let at = times.clamp(completed[id] ?? times.latest, of: id, unlocks: dates, now: now)
                dates[id] = at
                let unlock = AchievementUnlock(id: id, unlockedAt: at, xp: catalog.definition(id)?.xp ?? 0)
                if try AchievementStorage.insert(unlock, db) { new.append(unlock) }
            }
            waiting.removeAll { ready.contains($0) }
        }
        return new.sorted { ($0.unlockedAt, $0.id) < ($1.unlockedAt, $1.id) }
    }
}
