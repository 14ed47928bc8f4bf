import Foundation
import RoquaProgress
import RoquaRegions

/// XP for exploring (the achievements file's `experience` object; these are the defaults) and the
/// level curve: reaching level L takes `levelBase · L · (L − 1) / 2` XP in total, so each level
/// costs `levelBase` more than the one before (100, 200, 300, … with the default base).
public struct ExperienceRules: Sendable, Codable, Equatable {
    public var region = 10
    public var district = 50
    public var province = 200
    public var country = 500
    public var levelBase = 100

    public init() {}

    /// Missing keys keep their defaults.
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
            problems.append(AchievementProblem(id: nil, kind: .invalidEntry, message: "experience.levelBase must be 1…1000000, not \(levelBase)"))
        }
        return problems
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

    /// The standing of a player with these regions and unlocks.
    public func standing(regions: [VisitedRegion], unlocks: [AchievementUnlock]) -> PlayerLevel {
        let xp = explorationXP(regions) + unlocks.reduce(0) { $0 + $1.xp }
        let level = level(forXP: xp)
        return PlayerLevel(xp: xp, level: level, levelStartXP: self.xp(atLevel: level), nextLevelXP: self.xp(atLevel: level + 1))
    }
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

    /// 0…1 of the way from this level to the next.
    public var fraction: Double {
        Double(xp - levelStartXP) / Double(max(nextLevelXP - levelStartXP, 1))
    }
}
