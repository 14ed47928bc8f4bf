import Foundation
import RoquaAchievements
import RoquaMaps
import RoquaRegions
import RoquaTestSupport
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite struct ProfileCardTests {
    @Test func cardIsWellFormedAndShowsLevelXPAndBadges() throws {
        let badges = [("Fatih <Madalyonu> & co", "legendary"), ("First Hectares", "common")].map {
            Profile.Badge(id: $0.0, title: LocalizedText(tr: $0.0, en: $0.0), rarity: $0.1, unlockedAt: Date())
        }
        let card = ProfileCard.svg(
            Profile(
                level: PlayerLevel(xp: 1290, level: 5, levelStartXP: 1000, nextLevelXP: 1500),
                regions: 8, districts: 8, provinces: 1, countries: 1, badges: badges, achievementCount: 87))
        final class Counter: NSObject, XMLParserDelegate {
            var elements = 0
            func parser(
                _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]
            ) { elements += 1 }
        }
        let parser = XMLParser(data: Data(card.utf8))
        let counter = Counter()
        parser.delegate = counter
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        #expect(card.contains("Level 5") && card.contains("1290 XP") && card.contains("Badges 2/87"))
        #expect(card.contains("Fatih &lt;Madalyon"))  // escaped, cut to fit
        #expect(card.contains("#e0a030"))  // legendary colour
    }
}
