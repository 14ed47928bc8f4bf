import Foundation
import RoquaProgress
import RoquaRegions

/// What `roqua profile` shows: level and XP, headline counts and the latest badges.
public struct Profile: Sendable, Codable, Equatable {
    public struct Badge: Sendable, Codable, Equatable {
        public var id: String
        public var title: LocalizedText
        public var rarity: String
        public var unlockedAt: Date

        public init(id: String, title: LocalizedText, rarity: String, unlockedAt: Date) {
            self.id = id
            self.title = title
            self.rarity = rarity
            self.unlockedAt = unlockedAt
        }
    }

    public var level: PlayerLevel
    public var regions: Int
    public var districts: Int
    public var provinces: Int
    public var countries: Int
    /// Unlocked achievements, latest first.
    public var badges: [Badge]
    public var achievementCount: Int

    public init(level: PlayerLevel, regions: Int, districts: Int, provinces: Int, countries: Int, badges: [Badge],
                achievementCount: Int) {
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
        let board = try tracker.board(store: store, now: now)
        let regions = try store.allRegions()
        self.level = board.level
        self.regions = regions.count
        districts = Set(regions.compactMap(\.districtCode)).count
        provinces = Set(regions.compactMap(\.provinceCode)).count
        countries = Set(regions.compactMap(\.countryCode)).count
        badges = board.unlocks.reversed().compactMap { unlock in
            tracker.catalog.definition(unlock.id).map {
                Badge(id: unlock.id, title: $0.title, rarity: $0.rarity.rawValue, unlockedAt: unlock.unlockedAt)
            }
        }
        achievementCount = tracker.catalog.achievements.count
    }
}
