import Foundation
import RoquaProgress
import RoquaRegions

/// XP for exploring (the achievements file's `experience` object; these are the defaults) and the
/// level curve: reaching level L takes `levelBase · L · (L − 1) / 2` XP in total, so each level
/// costs `levelBase` more than the one before (100, 200, 300, … with the default base).
public struct ExperienceRules: Sendable, Codable, Equatable {
    /// XP per region.
    public var region = 10
    /// XP per distinct district visited.
    public var district = 50
    /// XP per distinct province visited.
    public var province = 200
    /// XP per distinct country visited.
    public var country = 500
    /// XP the second level costs; each further level costs this much more than the one before.
    public var levelBase = 100

    /// The default rules.
    public init() {}

    /// Missing keys keep their defaults.
    /// - Throws: `DecodingError` when a key has a value that is not an integer.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = ExperienceRules()
        region = try c.decodeIfPresent(Int.self, forKey: .region) ?? defaults.region
        district = try c.decodeIfPresent(Int.self, forKey: .district) ?? defaults.district
        province = try c.decodeIfPresent(Int.self, forKey: .province) ?? defaults.province
        country = try c.decodeIfPresent(Int.self, forKey: .country) ?? defaults.country
        levelBase = try c.decodeIfPresent(Int.self, forKey: .levelBase) ?? defaults.levelBase
    }

    /// What is wrong with these rules (empty when they are fine).
    var problems: [AchievementProblem] {
        var problems: [AchievementProblem] = []
        for (key, value) in [("region", region), ("district", district), ("province", province), ("country", country)]
        where !(0...1_000_000).contains(value) {
            problems.append(AchievementProblem(id: nil, kind: .invalidEntry, message: "experience.\(key) must be 0…1000000, not \(value)"))
        }
        if !(1...1_000_000).contains(levelBase) {
            problems.append(
                AchievementProblem(id: nil, kind: .invalidEntry, message: "experience.levelBase must be 1…1000000, not \(levelBase)"))
        }
        return problems
    }

    /// XP for the regions themselves: every region, and every first district, province and country.
    public func explorationXP(_ regions: some Collection<VisitedRegion>) -> Int {
        let units = DistinctUnits(regions)
        return regions.count * region + units.districts.count * district + units.provinces.count * province
            + units.countries.count * country
    }

    /// The level a total of `xp` reaches (1 for anything below the second level's start).
    public func level(forXP xp: Int) -> Int {
        var level = 1
        while levelBase * (level + 1) * level / 2 <= xp { level += 1 }
        return level
    }

    /// Total XP at which `level` starts.
    public func xp(atLevel level: Int) -> Int { levelBase * level * (level - 1) / 2 }

    /// The standing of a player with these regions and unlocks.
    public func standing(regions: some Collection<VisitedRegion>, unlocks: [AchievementUnlock]) -> PlayerLevel {
        let xp = explorationXP(regions) + unlocks.reduce(0) { $0 + $1.xp }
        let level = level(forXP: xp)
        return PlayerLevel(xp: xp, level: level, levelStartXP: self.xp(atLevel: level), nextLevelXP: self.xp(atLevel: level + 1))
    }
}

/// The player's standing: XP, level and what the next level needs.
public struct PlayerLevel: Sendable, Equatable, Codable {
    /// Total XP: exploration plus unlocks.
    public var xp: Int
    /// The current level, from 1.
    public var level: Int
    /// Total XP at which the current level started.
    public var levelStartXP: Int
    /// Total XP at which the next level starts.
    public var nextLevelXP: Int

    /// Creates a standing from its numbers; `ExperienceRules.standing` computes them.
    public init(xp: Int, level: Int, levelStartXP: Int, nextLevelXP: Int) {
        self.xp = xp
        self.level = level
        self.levelStartXP = levelStartXP
        self.nextLevelXP = nextLevelXP
    }

    /// 0…1 of the way from this level to the next.
    public var fraction: Double {
        Double(xp - levelStartXP) / Double(max(nextLevelXP - levelStartXP, 1))
    }
}
