import Foundation
import RoquaBoundaries
import RoquaProgress
import RoquaRegions
import RoquaTestSupport
import Testing

@testable import RoquaAchievements

@Suite struct AchievementEvaluatorTests {
    static let start = Date(timeIntervalSince1970: 1_750_000_000)  // 2025-06-15T15:06:40Z
    static let utc = TimeZone(identifier: "UTC")!

    static func region(
        _ minutes: Double, district: String? = nil, province: String? = nil, country: String? = "TR",
        latitude: Double = 41.01, longitude: Double = 28.97, visits: Int = 1
    ) -> VisitedRegion {
        VisitedRegion(
            latitude: latitude, longitude: longitude, radius: 150, timestampStart: start.addingTimeInterval(minutes * 60),
            countryCode: country, provinceCode: province, districtCode: district, geohash: "sxk9", visitCount: visits)
    }

    static func status(
        _ catalog: AchievementCatalog, _ regions: [VisitedRegion], now: Date = start.addingTimeInterval(86_400 * 30),
        hierarchy: BoundaryHierarchy? = nil
    ) throws -> [String: AchievementStatus] {
        let statuses = try AchievementEvaluator(catalog: catalog).evaluate(
            AchievementContext(regions: regions, hierarchy: hierarchy, timeZone: utc, now: now))
        return Dictionary(uniqueKeysWithValues: statuses.map { ($0.id, $0) })
    }

    @Test func fatihMadalyonuUnlocksOnlyWithAll39IstanbulDistricts() throws {
        let hierarchy = try BoundaryHierarchy(database: Bundled.database())
        let districts = try #require(hierarchy.children["TR-34"])
        #expect(districts.count == 39)
        let catalog = try AchievementCatalog.bundled()
        let walk = districts.enumerated().map { Self.region(Double($0.offset) * 90, district: $0.element, province: "TR-34") }

        let missingOne = try Self.status(catalog, Array(walk.dropLast()), hierarchy: hierarchy)
        #expect(missingOne["fatih_madalyonu"]?.current == 38)
        #expect(missingOne["fatih_madalyonu"]?.unlocked == false)
        #expect(missingOne["istanbul_district_master"]?.unlocked == true)

        // Visiting one district twice does not count twice.
        let duplicate = try Self.status(catalog, Array(walk.dropLast()) + [walk[0]], hierarchy: hierarchy)
        #expect(duplicate["fatih_madalyonu"]?.unlocked == false)

        let all = try Self.status(catalog, walk, hierarchy: hierarchy)
        let fatih = try #require(all["fatih_madalyonu"])
        #expect(fatih.current == 39 && fatih.target == 39 && fatih.unlocked && fatih.fraction == 1)
        #expect(all["kasif_puani"]?.unlocked == true)
        #expect(all["district_explorer_25"]?.unlocked == true)
        #expect(all["istanbul_master"]?.unlocked == false)  // 39 regions < 50
        #expect(all["anadolu_ustasi"]?.current == 1 && all["anadolu_ustasi"]?.unlocked == false)

        // Districts of another province do not count towards İstanbul's medallion.
        let ankara = try #require(hierarchy.children["TR-06"])
        let mixed = try Self.status(
            catalog, Array(walk.dropLast()) + [Self.region(0, district: ankara[0], province: "TR-06")], hierarchy: hierarchy)
        #expect(mixed["fatih_madalyonu"]?.current == 38)
    }

    @Test func euroExplorerCountsOnlyEuropeanCountries() throws {
        let hierarchy = try BoundaryHierarchy(database: Bundled.database())
        let catalog = try AchievementCatalog.bundled()
        let european = hierarchy.units.values.filter { $0.level == .country && $0.continent == "Europe" }.map(\.code).sorted()
        let asian = hierarchy.units.values.filter { $0.level == .country && $0.continent == "Asia" }.map(\.code).sorted()
        let regions =
            european.prefix(9).enumerated().map { Self.region(Double($0.offset), country: $0.element) }
            + asian.prefix(3).map { Self.region(100, country: $0) }
        #expect(try Self.status(catalog, regions, hierarchy: hierarchy)["euro_explorer"]?.current == 9)
        let ten = regions + [Self.region(200, country: european[9])]
        #expect(try Self.status(catalog, ten, hierarchy: hierarchy)["euro_explorer"]?.unlocked == true)
    }

    static func catalog(_ entries: [String]) throws -> AchievementCatalog {
        try AchievementCatalog.load(data: AchievementCatalogTests.file(entries))
    }

    @Test func prerequisitesKeepAnAchievementLockedUntilTheyUnlock() throws {
        let catalog = try Self.catalog([
            AchievementCatalogTests.entry("base", "", calculator: "milestone", parameters: #"{"target": 5}"#),
            AchievementCatalogTests.entry("next", #""prerequisites": ["base"]"#, calculator: "milestone", parameters: #"{"target": 2}"#),
            AchievementCatalogTests.entry(
                "last", #""prerequisites": ["next", "base"]"#, calculator: "milestone", parameters: #"{"target": 1}"#),
        ])
        let three = try Self.status(catalog, (0..<3).map { Self.region(Double($0)) })
        #expect(three["base"]?.unlocked == false)
        #expect(three["next"]?.current == 3 && three["next"]?.unlocked == false && three["next"]?.missingPrerequisites == ["base"])
        #expect(three["last"]?.unlocked == false && three["last"]?.missingPrerequisites == ["next", "base"])
        let five = try Self.status(catalog, (0..<5).map { Self.region(Double($0)) })
        #expect(["base", "next", "last"].allSatisfy { five[$0]?.unlocked == true })
    }

    @Test func hiddenFlagIsCarriedToTheStatus() throws {
        let catalog = try AchievementCatalog.bundled()
        let statuses = try Self.status(catalog, [])
        for definition in catalog.achievements { #expect(statuses[definition.id]?.hidden == definition.hidden) }
        #expect(statuses["arctic_circle"]?.hidden == true)
        #expect(statuses["fatih_madalyonu"]?.hidden == false)
    }

    @Test func validityWindowCountsOnlyRegionsInsideIt() throws {
        // start is 2025-06-15 UTC.
        let catalog = try Self.catalog([
            AchievementCatalogTests.entry("june", #""validFrom": "2025-06-15", "validUntil": "2025-06-16""#, parameters: #"{"target": 3}"#),
            AchievementCatalogTests.entry("later", #""validFrom": "2026-01-01""#, parameters: #"{"target": 1}"#),
        ])
        let inside = (0..<3).map { Self.region(Double($0) * 60) }
        let before = Self.region(-60 * 24 * 2), after = Self.region(60 * 24 * 3)
        let open = try Self.status(catalog, inside, now: Self.start.addingTimeInterval(3600 * 5))
        #expect(open["june"]?.unlocked == true && open["june"]?.window == .open)
        #expect(open["later"]?.window == .upcoming && open["later"]?.unlocked == false)
        let outside = try Self.status(catalog, [before, after, inside[0], inside[1]])
        #expect(outside["june"]?.current == 2 && outside["june"]?.unlocked == false && outside["june"]?.window == .closed)
        // Earned inside the window: still unlocked after it closes.
        #expect(try Self.status(catalog, inside + [after])["june"]?.unlocked == true)
    }

    @Test func calculatorsOnSyntheticRegions() throws {
        func progress(
            _ name: String, _ parameters: AchievementParameters, _ regions: [VisitedRegion],
            timeZone: TimeZone = AchievementEvaluatorTests.utc
        ) throws -> Double {
            let calculator = try #require(try AchievementCalculators.make(name: name, parameters: parameters))
            return try calculator.progress(
                AchievementContext(regions: regions, timeZone: timeZone, now: Self.start.addingTimeInterval(86_400 * 60))
            ).current
        }
        let regions = (0..<12).map { Self.region(Double($0) * 4) }  // 12 regions in 44 minutes, from 15:06 UTC
        #expect(try progress("milestone", .init(target: 10), regions) == 12)
        #expect(try progress("regions_per_hour", .init(target: 10), regions + [Self.region(500)]) == 12)
        #expect(try progress("regions_per_hour", .init(target: 5, windowMinutes: 15), regions) == 4)  // 0, 4, 8, 12 min
        #expect(
            try progress(
                "city", .init(target: 1, unit: "TR-34"),
                [Self.region(0, province: "TR-34"), Self.region(1, province: "TR-06")]) == 1)
        #expect(try progress("revisit", .init(target: 1), [Self.region(0, visits: 4), Self.region(1, visits: 2)]) == 4)
        #expect(try progress("revisit", .init(target: 1, mode: "max"), [Self.region(0, visits: 4), Self.region(1, visits: 2)]) == 3)
        let box = AchievementBoundingBox(south: 41.0, west: 29.0, north: 41.2, east: 29.1)
        #expect(
            try progress(
                "bounding_box", .init(target: 1, bbox: box),
                [Self.region(0, latitude: 41.1, longitude: 29.05), Self.region(1, latitude: 41.1, longitude: 28.9)]) == 1)
        // 15:06 UTC is 18:06 in İstanbul.
        #expect(try progress("time_of_day", .init(target: 1, fromHour: 15, toHour: 16), regions) == 12)
        #expect(
            try progress(
                "time_of_day", .init(target: 1, fromHour: 18, toHour: 19), regions,
                timeZone: TimeZone(identifier: "Europe/Istanbul")!) == 12)
        #expect(
            try progress(
                "time_of_day", .init(target: 1, fromHour: 23, toHour: 5, count: "days"),
                [Self.region(60 * 9), Self.region(60 * 10), Self.region(60 * 24 + 60 * 9)]) == 2)
        let days = (0..<7).map { Self.region(Double($0) * 60 * 24) }
        #expect(try progress("daily_streak", .init(target: 7), days) == 7)
        #expect(try progress("weekend_streak", .init(target: 1), days) == 2)  // Sun 15th, then Sat 21st
        #expect(try progress("area", .init(target: 1), [Self.region(0)]) > 0.07)
        #expect(try progress("percentage", .init(target: 1), [Self.region(0)]) > 0)
        #expect(try progress("district", .init(target: 1), [Self.region(0, district: "A"), Self.region(1, district: "A")]) == 1)
        #expect(
            try progress(
                "province", .init(target: 1, unit: "TR"),
                [Self.region(0, province: "TR-34"), Self.region(1, province: "DE-BY", country: "DE")]) == 1)
        #expect(try progress("country", .init(target: 1), [Self.region(0), Self.region(1, country: "GR")]) == 2)
    }
}
