import Foundation
import RoquaProgress
import RoquaRegions

/// What `roqua profile` shows: level and XP, headline counts and the latest badges.
public struct Profile: Sendable, Codable, Equatable {
    /// An unlocked achievement as the profile shows it.
    public struct Badge: Sendable, Codable, Equatable {
        /// The achievement's id.
        public var id: String
        /// The achievement's title.
        public var title: LocalizedText
        /// The rarity's name, e.g. `epic`.
        public var rarity: String
        /// When it was unlocked.
        public var unlockedAt: Date

        /// Creates a badge.
        public init(id: String, title: LocalizedText, rarity: String, unlockedAt: Date) {
            self.id = id
            self.title = title
            self.rarity = rarity
            self.unlockedAt = unlockedAt
        }
    }

    /// XP and level.
    public var level: PlayerLevel
    /// Readable regions in the store.
    public var regions: Int
    /// Distinct districts visited.
    public var districts: Int
    /// Distinct provinces visited.
    public var provinces: Int
    /// Distinct countries visited.
    public var countries: Int
    /// Unlocked achievements, latest first.
    public var badges: [Badge]
    /// Achievements in the catalog, locked ones included.
    public var achievementCount: Int

    /// Creates a profile from its parts.
    public init(
        level: PlayerLevel, regions: Int, districts: Int, provinces: Int, countries: Int, badges: [Badge],
        achievementCount: Int
    ) {
        self.level = level
        self.regions = regions
        self.districts = districts
        self.provinces = provinces
        self.countries = countries
        self.badges = badges
        self.achievementCount = achievementCount
    }

    /// - Throws: `RegionStoreError`, or when achievements cannot be evaluated.
    public init(store: RegionStore, tracker: AchievementTracker, now: Date = Date()) throws {
        try self.init(store: store, tracker: tracker, board: try tracker.board(store: store, now: now))
    }

    /// The profile with `board`, the achievement board of the same store already evaluated.
    /// - Throws: `RegionStoreError`.
    public init(store: RegionStore, tracker: AchievementTracker, board: AchievementBoard) throws {
        let regions = try store.allRegions()
        self.level = board.level
        self.regions = regions.count
        let units = DistinctUnits(regions)
        (districts, provinces, countries) = (units.districts.count, units.provinces.count, units.countries.count)
        badges = board.unlocks.reversed().compactMap { unlock in
            tracker.catalog.definition(unlock.id).map {
                Badge(id: unlock.id, title: $0.title, rarity: $0.rarity.rawValue, unlockedAt: unlock.unlockedAt)
            }
        }
        achievementCount = tracker.catalog.achievements.count
    }
}
