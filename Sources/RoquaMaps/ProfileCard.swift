import Foundation
import RoquaAchievements
import RoquaIO

/// The profile card as an SVG picture: level, XP bar, headline numbers and the latest badges.
public enum ProfileCard {
    static let rarityColours = ["common": "#8a9aa9", "rare": "#3b82c4", "epic": "#9b59b6", "legendary": "#e0a030"]

    /// A 420 × 260 pixel SVG card of `c`: level, XP bar, headline numbers and the latest badges.
    public static func svg(_ c: Profile) -> String {
        let fill = 360.0 * c.level.fraction
        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" width="420" height="260" viewBox="0 0 420 260">
            <style>text{font-family:DejaVu Sans,sans-serif;fill:#f4f1ea}.small{font-size:12px;fill:#c9c4b8}</style>
            <rect width="420" height="260" rx="18" fill="#2b3440"/>
            <text x="30" y="52" font-size="30" font-weight="bold">Level \(c.level.level)</text>
            <text x="390" y="52" font-size="14" text-anchor="end" class="small">\(c.level.xp) XP · next at \(c.level.nextLevelXP)</text>
            <rect x="30" y="70" width="360" height="14" rx="7" fill="#46505c"/>
            <rect x="30" y="70" width="\(String(format: "%.1f", fill))" height="14" rx="7" fill="#e07b39"/>
            <text x="30" y="120" font-size="16">\(c.regions) regions · \(c.districts) districts</text>
            <text x="30" y="144" font-size="16">\(c.provinces) provinces · \(c.countries) countries</text>
            <text x="30" y="180" font-size="14">Badges \(c.badges.count)/\(c.achievementCount)</text>

            """
        for (i, badge) in c.badges.prefix(6).enumerated() {
            let x = 30 + (i % 3) * 125, y = 196 + (i / 3) * 30
            out +=
                "<rect x=\"\(x)\" y=\"\(y)\" width=\"118\" height=\"24\" rx=\"12\" fill=\"\(rarityColours[badge.rarity] ?? "#8a9aa9")\"/>"
            out +=
                "<text x=\"\(x + 59)\" y=\"\(y + 16)\" font-size=\"11\" text-anchor=\"middle\">\(XMLText.escape(String(badge.title.en.prefix(18))))</text>\n"
        }
        return out + "</svg>\n"
    }
}
