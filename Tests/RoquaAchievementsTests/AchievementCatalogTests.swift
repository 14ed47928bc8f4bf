import Foundation
import RoquaBoundaries
import RoquaProgress
import RoquaTestSupport
import Testing

@testable import RoquaAchievements

@Suite struct AchievementCatalogTests {
    static let seedTargets: [String: Double] = [
        "first_steps": 10, "explorer_100": 100, "adventurer_1000": 1000, "world_traveler_10000": 10000,
        "istanbul_master": 50, "ankara_master": 30, "district_explorer_10": 10, "district_explorer_25": 25,
        "country_collector_5": 5, "country_collector_10": 10, "area_explorer_1km": 1, "area_explorer_10km": 10,
        "percentage_001": 0.001, "percentage_01": 0.01, "daily_explorer_7": 7, "weekend_warrior": 4,
    ]

    @Test func bundledFileValidatesWithNoProblems() throws {
        let path = Repository.path("Sources/RoquaAchievements/achievements.json")
        #expect(AchievementCatalog.validate(path: path) == [])
        let catalog = try AchievementCatalog.load(path: path)
        #expect(catalog.achievements.count >= 70)
        #expect(catalog.calculators.count == catalog.achievements.count)
        for (id, target) in Self.seedTargets {
            #expect(catalog.definition(id)?.parameters.target == target, "\(id)")
        }
        let fatih = try #require(catalog.definition("fatih_madalyonu"))
        #expect(
            fatih.title.tr == "Fatih Madalyonu" && fatih.calculator == "district" && fatih.parameters.unit == "TR-34"
                && fatih.parameters.target == 39)
        let anadolu = try #require(catalog.definition("anadolu_ustasi"))
        #expect(anadolu.title.tr == "Anadolu Ustası" && anadolu.parameters.unit == "TR" && anadolu.parameters.target == 81)
        let euro = try #require(catalog.definition("euro_explorer"))
        #expect(euro.title.en == "Euro Explorer" && euro.parameters.continent == "Europe" && euro.parameters.target == 10)
        #expect(catalog.definition("kasif_puani")?.title.tr == "Kaşif Puanı +1")
        #expect(catalog.definition("bosphorus_explorer")?.title.tr == "Boğaz Kaşifi")
        for id in ["early_bird", "night_owl", "speed_explorer", "return_visitor"] { #expect(catalog.definition(id) != nil, "\(id)") }
        // Every calculator kind is used, every rarity appears, some are hidden and some windowed.
        #expect(Set(catalog.achievements.map(\.calculator)) == Set(AchievementCalculators.names))
        #expect(Set(catalog.achievements.map(\.rarity)) == Set(AchievementRarity.allCases))
        #expect(catalog.achievements.contains { $0.hidden })
        #expect(catalog.achievements.contains { $0.validFrom != nil })
    }

    static func entry(
        _ id: String, _ overrides: String = "", calculator: String = "milestone",
        parameters: String = #"{"target": 5}"#
    ) -> String {
        var fields: [String: String] = [
            "id": "\"\(id)\"", "calculator": "\"\(calculator)\"", "parameters": parameters,
            "title": #"{"tr": "Başlık", "en": "Title"}"#, "description": #"{"tr": "Açıklama", "en": "Description"}"#,
            "icon": "\"star\"", "rarity": "\"common\"", "category": "\"milestone\"", "hidden": "false",
            "prerequisites": "[]", "xp": "10",
        ]
        if !overrides.isEmpty {
            let extra = try! JSONSerialization.jsonObject(with: Data("{\(overrides)}".utf8)) as! [String: Any]
            for (key, value) in extra {
                if value is NSNull {
                    fields[key] = nil
                    continue
                }
                let data = try! JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])
                fields[key] = String(decoding: data, as: UTF8.self)
            }
        }
        return "{" + fields.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "}"
    }

    static func file(_ entries: [String]) -> Data {
        Data("{\"version\": 1, \"achievements\": [\n\(entries.joined(separator: ",\n"))\n]}".utf8)
    }

    static func problems(_ entries: [String]) -> [AchievementProblem] {
        AchievementCatalog.validate(data: file(entries))
    }

    @Test func aGoodFileLoads() throws {
        let catalog = try AchievementCatalog.load(data: Self.file([Self.entry("a"), Self.entry("b", #""prerequisites": ["a"]"#)]))
        #expect(catalog.achievements.map(\.id) == ["a", "b"])
    }

    @Test(arguments: [
        (#""calculator": "teleport""#, AchievementProblem.Kind.unknownCalculator),
        (#""parameters": {}"#, .invalidParameter),
        (#""parameters": {"target": -3}"#, .invalidParameter),
        (#""parameters": {"target": 3, "continant": "Europe"}"#, .invalidParameter),
        (#""prerequisites": ["nope"]"#, .unknownPrerequisite),
        (#""prerequisites": ["bad"]"#, .prerequisiteCycle),
        (#""rarity": "mythic""#, .invalidRarity),
        (#""category": "cooking""#, .invalidCategory),
        (#""title": {"tr": "Başlık", "en": "  "}"#, .missingText),
        (#""description": {"tr": "Açıklama"}"#, .missingText),
        (#""validFrom": "2025-06-10", "validUntil": "2025-06-01""#, .invalidWindow),
        (#""validFrom": "tomorrow""#, .invalidWindow),
        (#""xp": "lots""#, .invalidEntry),
        (#""icon": null"#, .invalidEntry),
    ])
    func eachKindOfProblemNamesTheID(override: String, kind: AchievementProblem.Kind) {
        let problems = Self.problems([Self.entry("fine"), Self.entry("bad", override)])
        #expect(problems.count >= 1, "\(override)")
        #expect(problems.allSatisfy { $0.id == "bad" && $0.kind == kind }, "\(problems)")
        #expect(problems.first?.description.contains("'bad'") == true)
    }

    @Test func calculatorSpecificParametersAreChecked() {
        let cases: [(String, String)] = [
            ("city", #"{"target": 5}"#),
            ("bounding_box", #"{"target": 5, "bbox": {"south": 42, "west": 29, "north": 41, "east": 30}}"#),
            ("time_of_day", #"{"target": 5, "fromHour": 25, "toHour": 3}"#),
            ("time_of_day", #"{"target": 5, "fromHour": 5, "toHour": 7, "timeZone": "Mars/Olympus"}"#),
            ("revisit", #"{"target": 5, "mode": "median"}"#),
            ("percentage", #"{"target": 150}"#),
            ("regions_per_hour", #"{"target": 5, "windowMinutes": 0}"#),
        ]
        for (calculator, parameters) in cases {
            let problems = Self.problems([Self.entry("x", calculator: calculator, parameters: parameters)])
            #expect(problems.map(\.kind) == [.invalidParameter] && problems.first?.id == "x", "\(calculator) \(parameters): \(problems)")
        }
    }

    @Test func everyProblemIsReportedNotJustTheFirst() {
        let problems = Self.problems([
            Self.entry("a", #""calculator": "nope""#),
            Self.entry("b", #""rarity": "mythic""#),
            Self.entry("c"), Self.entry("c"),
            Self.entry("d", #""prerequisites": ["e"]"#), Self.entry("e", #""prerequisites": ["d"]"#),
            Self.entry("f", #""validFrom": "2025-02-01", "validUntil": "2025-01-01""#),
            Self.entry("", ""),
        ])
        let byKind = Dictionary(grouping: problems, by: \.kind).mapValues { $0.map { $0.id ?? "-" }.sorted() }
        #expect(byKind[.unknownCalculator] == ["a"])
        #expect(byKind[.invalidRarity] == ["b"])
        #expect(byKind[.duplicateID] == ["c"])
        #expect(byKind[.prerequisiteCycle] == ["d", "e"])
        #expect(byKind[.invalidWindow] == ["f"])
        #expect(byKind[.missingID] == ["-"])
        #expect(problems.first { $0.kind == .missingID }?.message.contains("entry #8") == true)
        #expect(throws: AchievementCatalogError.self) {
            try AchievementCatalog.load(data: Self.file([Self.entry("a", #""calculator": "nope""#)]))
        }
    }

    @Test func malformedJSONReportsTheLine() {
        let text = "{\"achievements\": [\n  {\"id\": \"a\",\n   \"calculator\": milestone}\n]}"
        let problems = AchievementCatalog.validate(data: Data(text.utf8))
        #expect(problems.count == 1)
        #expect(problems.first?.kind == .malformedJSON)
        #expect(problems.first?.line == 3, "\(problems)")
        #expect(AchievementCatalog.validate(data: Data(#"{"things": []}"#.utf8)).first?.kind == .malformedJSON)
    }

    @Test func hiddenFlagAndWindowSurviveDecodingAndEncoding() throws {
        let catalog = try AchievementCatalog.load(
            data: Self.file([
                Self.entry("secret", #""hidden": true, "validFrom": "2025-06-01", "validUntil": "2025-06-30T21:00:00Z""#)
            ]))
        let secret = try #require(catalog.definition("secret"))
        #expect(secret.hidden && secret.validFrom == "2025-06-01")
        let again = try JSONDecoder().decode(AchievementDefinition.self, from: JSONEncoder().encode(secret))
        #expect(again == secret)
    }
}
