import Foundation
import RoquaAchievements
import RoquaIO
import RoquaRegions

/// `GET /api/visited`: the codes of every unit a region lies in, sorted.
struct VisitedCodes: OrderedJSON {
    let codes: [String]

    func encode(to encoder: any Encoder) throws {
        var list = encoder.singleValueContainer()
        try list.encode(codes)
    }
}

/// `GET /api/changes`: `{"mark":…}`, the store's change mark (the page polls it).
struct ChangeMark: OrderedJSON {
    let mark: String
}

/// `GET /api/regions`: the visited regions as GeoJSON points with their radius in metres (the
/// page draws true-radius circles); a region's unit names and codes where it has them.
struct RegionsGeoJSON: OrderedJSON {
    let regions: [VisitedRegion]

    func encode(to encoder: any Encoder) throws {
        var collection = encoder.container(keyedBy: JSONKey.self)
        try collection.encode("FeatureCollection", forKey: "type")
        var features = collection.nestedUnkeyedContainer(forKey: "features")
        let style = Date.ISO8601FormatStyle()
        for r in regions {
            var feature = features.nestedContainer(keyedBy: JSONKey.self)
            try feature.encode("Feature", forKey: "type")
            var properties = feature.nestedContainer(keyedBy: JSONKey.self, forKey: "properties")
            try properties.encode(r.id ?? 0, forKey: "id")
            try properties.encode(r.radius, forKey: "radius")
            try properties.encode(r.visitCount, forKey: "visit_count")
            try properties.encode(style.format(r.timestampStart), forKey: "first_visit")
            try properties.encode(style.format(r.lastVisit), forKey: "last_visit")
            for (key, value) in [
                ("country", r.country), ("country_code", r.countryCode), ("province", r.province),
                ("province_code", r.provinceCode), ("district", r.district), ("district_code", r.districtCode),
            ] {
                try properties.encodeIfPresent(value, forKey: JSONKey(key))
            }
            var geometry = feature.nestedContainer(keyedBy: JSONKey.self, forKey: "geometry")
            try geometry.encode("Point", forKey: "type")
            try geometry.encode([r.longitude, r.latitude], forKey: "coordinates")
        }
    }
}

/// `GET /api/achievements`: every achievement with its progress; a locked hidden one shows only `???`.
struct AchievementList: OrderedJSON {
    struct Item: Encodable {
        var id: String
        var title: String
        var description: String
        var icon: String
        var rarity: String
        var category: String
        var hidden: Bool
        var xp: Int
        var unlocked: Bool
        /// 0…1, to three decimals.
        var progress: Double
        var unlockedAt: String?

        enum CodingKeys: String, CodingKey {
            case id, title, description, icon, rarity, category, hidden, xp, unlocked, progress, unlockedAt = "unlocked_at"
        }
    }

    var unlocked: Int
    var total: Int
    var achievements: [Item]

    init(_ board: AchievementBoard, catalog: AchievementCatalog, language: String) {
        unlocked = board.unlocks.count
        total = catalog.achievements.count
        let style = Date.ISO8601FormatStyle()
        achievements = board.statuses.compactMap { status in
            guard let definition = catalog.definition(status.id) else { return nil }
            let unlock = board.unlock(status.id)
            let secret = definition.hidden && unlock == nil
            return Item(
                id: secret ? "hidden" : status.id, title: secret ? "???" : definition.title.text(language: language),
                description: secret ? "???" : definition.description.text(language: language),
                icon: secret ? "?" : definition.icon, rarity: definition.rarity.rawValue,
                category: definition.category.rawValue, hidden: secret, xp: definition.xp, unlocked: unlock != nil,
                progress: secret ? 0 : (status.fraction * 1000).rounded() / 1000,
                unlockedAt: unlock.map { style.format($0.unlockedAt) })
        }
    }
}
