import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import RoquaProgress
import RoquaRegions
import RoquaTestSupport
import Testing

@Suite struct ProfileCardTests {
    @Test func cardIsWellFormedAndShowsLevelXPAndBadges() throws {
        let card = ProfileCard.svg(.init(level: PlayerLevel(xp: 1290, level: 5, levelStartXP: 1000, nextLevelXP: 1500),
                                         regions: 8, districts: 8, provinces: 1, countries: 1,
                                         badges: [("Fatih <Madalyonu> & co", "legendary"), ("First Hectares", "common")],
                                         unlockedCount: 2, totalCount: 87))
        final class Counter: NSObject, XMLParserDelegate {
            var elements = 0
            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                        attributes: [String: String] = [:]) { elements += 1 }
        }
        let parser = XMLParser(data: Data(card.utf8))
        let counter = Counter()
        parser.delegate = counter
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        #expect(card.contains("Level 5") && card.contains("1290 XP") && card.contains("Badges 2/87"))
        #expect(card.contains("Fatih &lt;Madalyon"))  // escaped, cut to fit
        #expect(card.contains("#e0a030"))  // legendary colour
    }

    @Test func hiddenAchievementsShowAsQuestionMarksUntilUnlocked() throws {
        let directory = try TempDirectory()
        let result = try CommandRunner.run(ProductsDirectory.product("roqua"), [
            "achievements", "--all", "--store", directory.file("regions.sqlite"), "--boundaries", Bundled.path(),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let catalog = try AchievementCatalog.load(path: AchievementCatalog.bundledPath())
        let hidden = catalog.achievements.filter(\.hidden)
        #expect(!hidden.isEmpty)
        #expect(result.stdout.components(separatedBy: "???").count - 1 == hidden.count)
        for definition in hidden { #expect(!result.stdout.contains(definition.title.en)) }
        #expect(result.stdout.contains("0 of \(catalog.achievements.count) unlocked"))
    }
}
