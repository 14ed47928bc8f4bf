import Foundation
import GRDB
import RoquaBoundaries
import RoquaRegions

/// One achievement unlocked, once, at a time.
public struct AchievementUnlock: Sendable, Equatable, Codable {
    public var id: String
    public var unlockedAt: Date
    public var xp: Int
}

/// XP for exploring (read from the catalog file's `experience` object; these are the defaults)
/// and the level curve: reaching level L takes `levelBase · L · (L − 1) / 2` XP in total, so each
/// level costs `levelBase` more than the one before (100, 200, 300, … with the default base).
public struct ExperienceRules: Sendable, Codable, Equatable {
    public var region = 10
    public var district = 50
    public var province = 200
    public var country = 500
    public var levelBase = 100

    public init() {}

    /// The `experience` object of an achievements file, or the defaults when it has none.
    public static func load(path: String) -> ExperienceRules {
        struct File: Decodable { var experience: ExperienceRules? }
        guard let data = FileManager.default.contents(atPath: path),
              let file = try? JSONDecoder().decode(File.self, from: data) else { return ExperienceRules() }
        return file.experience ?? ExperienceRules()
    }

    /// XP for the regions themselves: every region, and every first district, province and country.
    public func explorationXP(_ regions: [VisitedRegion]) -> Int {
        regions.count * region + Set(regions.compactMap(\.districtCode)).count * district
            + Set(regions.compactMap(\.provinceCode)).count * province + Set(regions.compactMap(\.countryCode)).count * country
    }

    public func level(forXP xp: Int) -> Int {
        var level = 1
        while levelBase * (level + 1) * level / 2 <= xp { level += 1 }
        return level
    }

    /// Total XP at which `level` starts.
    public func xp(atLevel level: Int) -> Int { levelBase * level * (level - 1) / 2 }
}

/// The player's standing: XP, level and what the next level needs.
public struct PlayerLevel: Sendable, Equatable, Codable {
    public var xp: Int
    public var level: Int
    public var levelStartXP: Int
    public var nextLevelXP: Int

    public init(xp: Int, level: Int, levelStartXP: Int, nextLevelXP: Int) {
        self.xp = xp
        self.level = level
        self.levelStartXP = levelStartXP
        self.nextLevelXP = nextLevelXP
    }
}

/// What the achievement system reports after a batch of region events.
public enum AchievementEvent: Sendable, Equatable {
    case unlocked(AchievementUnlock)
    case levelUp(from: Int, to: Int)
}

/// Unlocks achievements from region events and keeps unlocks and progress in the store.
///
/// Incremental: `consume` looks only at the achievements a batch of events can move — new regions
/// move every locked one, revisits only those counting revisits or streaks — and skips everything
/// already unlocked; nothing is evaluated per fix. An unlock is written once and never repeated.
public struct AchievementTracker {
    public let store: RegionStore
    public let catalog: AchievementCatalog
    public let rules: ExperienceRules
    public let hierarchy: BoundaryHierarchy?
    public let timeZone: TimeZone

    public init(store: RegionStore, catalog: AchievementCatalog, rules: ExperienceRules = ExperienceRules(),
                hierarchy: BoundaryHierarchy?, timeZone: TimeZone = .current) {
        self.store = store
        self.catalog = catalog
        self.rules = rules
        self.hierarchy = hierarchy
        self.timeZone = timeZone
    }

    public func unlocks() throws -> [AchievementUnlock] {
        try store.read { db in
            try Row.fetchAll(db, sql: "SELECT id, unlocked_at, xp FROM achievement_unlocks ORDER BY unlocked_at, id").map {
                AchievementUnlock(id: $0["id"], unlockedAt: StoreTime.date($0["unlocked_at"]) ?? .distantPast, xp: $0["xp"])
            }
        }
    }

    /// Current statuses of every achievement.
    public func statuses(now: Date = Date()) throws -> [AchievementStatus] {
        let context = AchievementContext(regions: try store.allRegions(), hierarchy: hierarchy, timeZone: timeZone, now: now)
        return AchievementEvaluator(catalog: catalog).evaluate(context)
    }

    /// Calculators whose result a revisit can change (a revisit adds no region, district or area).
    static let revisitSensitive: Set<String> = ["revisit", "daily_streak", "weekend_streak"]

    /// Handles the events of one import (after its transaction): the unlocks and level-ups they caused.
    public func consume(_ events: [RegionEvent], now: Date = Date()) throws -> [AchievementEvent] {
        let addsRegions = events.contains { if case .revisit = $0 { false } else { true } }
        guard !events.isEmpty else { return [] }
        let previous = try unlocks()
        let unlocked = Set(previous.map(\.id))
        let affected = Set(catalog.achievements.filter { definition in
            !unlocked.contains(definition.id) && (addsRegions || Self.revisitSensitive.contains(definition.calculator))
        }.map(\.id))
        let newRegions = Set(events.compactMap { if case let .newRegion(region) = $0 { region.id } else { nil } })
        let regions = try store.allRegions()
        let oldRegions = regions.filter { $0.id.map { !newRegions.contains($0) } ?? true }
        let new = try record(affected, among: regions, unlocked: unlocked, now: now)
        let before = level(regions: oldRegions, unlocks: previous).level
        let after = level(regions: regions, unlocks: previous + new).level
        var result = new.map(AchievementEvent.unlocked)
        if after > before { result.append(.levelUp(from: before, to: after)) }
        return result
    }

    /// Evaluates every locked achievement and stores what became unlocked; returns the new unlocks.
    public func update(now: Date = Date()) throws -> [AchievementUnlock] {
        let unlocked = Set(try unlocks().map(\.id))
        let locked = Set(catalog.achievements.map(\.id)).subtracting(unlocked)
        return try record(locked, among: try store.allRegions(), unlocked: unlocked, now: now)
    }

    /// Evaluates `ids`, saves their progress and their unlocks in one transaction.
    private func record(_ ids: Set<String>, among regions: [VisitedRegion], unlocked: Set<String>,
                        now: Date) throws -> [AchievementUnlock] {
        guard !ids.isEmpty else { return [] }
        let context = AchievementContext(regions: regions, hierarchy: hierarchy, timeZone: timeZone, now: now)
        let statuses = AchievementEvaluator(catalog: catalog).evaluate(context, only: ids, unlocked: unlocked)
        return try store.write { db in
            var new: [AchievementUnlock] = []
            for status in statuses where !unlocked.contains(status.id) {
                try db.execute(sql: """
                    INSERT INTO achievement_progress (id, current, target, updated_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET current = excluded.current, target = excluded.target, updated_at = excluded.updated_at
                    """, arguments: [status.id, status.current, status.target, StoreTime.text(now)])
                guard status.unlocked else { continue }
                let xp = catalog.definition(status.id)?.xp ?? 0
                try db.execute(sql: "INSERT OR IGNORE INTO achievement_unlocks (id, unlocked_at, xp) VALUES (?, ?, ?)",
                               arguments: [status.id, StoreTime.text(now), xp])
                if db.changesCount > 0 { new.append(AchievementUnlock(id: status.id, unlockedAt: now, xp: xp)) }
            }
            return new
        }
    }

    public func level() throws -> PlayerLevel {
        level(regions: try store.allRegions(), unlocks: try unlocks())
    }

    private func level(regions: [VisitedRegion], unlocks: [AchievementUnlock]) -> PlayerLevel {
        let xp = rules.explorationXP(regions) + unlocks.reduce(0) { $0 + $1.xp }
        let level = rules.level(forXP: xp)
        return PlayerLevel(xp: xp, level: level, levelStartXP: rules.xp(atLevel: level), nextLevelXP: rules.xp(atLevel: level + 1))
    }
}
