import Foundation
import RoquaAchievements
import RoquaBoundaries
import RoquaIO
import RoquaRegions

/// The answer to a track upload: what `roqua track import` prints, as fields and as its text.
enum ImportSummaryJSON {
    static func document(_ summary: TrackImportSummary, events: [AchievementEvent], name: String,
                         catalog: AchievementCatalog) -> String {
        var unlocked: [String] = []
        var textUnlocks: [String] = []
        var levelUp = "null"
        for event in events {
            switch event {
            case let .unlocked(unlock):
                let title = catalog.definition(unlock.id)?.title
                let en = title?.en ?? unlock.id, tr = title?.tr ?? unlock.id
                unlocked.append("{\"id\":\(JSONText.quote(unlock.id)),\"title\":{\"en\":\(JSONText.quote(en)),\"tr\":\(JSONText.quote(tr))},"
                                + "\"xp\":\(unlock.xp)}")
                textUnlocks.append("  unlocked: \(en) / \(tr) (+\(unlock.xp) XP)")
            case let .levelUp(from, to):
                levelUp = "{\"from\":\(from),\"to\":\(to)}"
                textUnlocks.append("  level up: \(from) → \(to)")
            }
        }
        func firsts(_ level: AdminLevel) -> String {
            "[" + summary.firsts.filter { $0.level == level }
                .map { "{\"code\":\(JSONText.quote($0.code)),\"name\":\(JSONText.quote($0.name))}" }.joined(separator: ",") + "]"
        }
        let dropped = summary.dropped.map { ("\($0.key)", $0.value) }.sorted { $0.0 < $1.0 }
            .map { "\(JSONText.quote($0.0)):\($0.1)" }.joined(separator: ",")
        let text = ([report(summary, name: name)] + textUnlocks).joined(separator: "\n")
        return "{\"file\":\(JSONText.quote(name)),\"format\":\(JSONText.quote(summary.format)),"
            + "\"already_imported\":\(summary.alreadyImported),\"fixes_read\":\(summary.fixesRead),"
            + "\"dropped\":\(summary.droppedTotal),\"dropped_by_reason\":{\(dropped)},\"new_regions\":\(summary.newRegions),"
            + "\"revisits\":\(summary.revisits),\"first_districts\":\(firsts(.district)),\"first_provinces\":\(firsts(.province)),"
            + "\"first_countries\":\(firsts(.country)),\"unlocked\":[\(unlocked.joined(separator: ","))],\"level_up\":\(levelUp),"
            + "\"text\":\(JSONText.quote(text))}"
    }

    /// The lines `roqua track import` prints for the file.
    static func report(_ summary: TrackImportSummary, name: String) -> String {
        if summary.alreadyImported { return "\(name): imported before (same content); nothing added" }
        var lines = ["\(name) (\(summary.format)): \(summary.fixesRead) fixes read, \(summary.droppedTotal) dropped"]
        lines.append("  \(summary.newRegions) new region(s), \(summary.revisits) revisit(s)")
        for (level, label) in [(AdminLevel.district, "districts"), (.province, "provinces"), (.country, "countries")] {
            let names = summary.firsts.filter { $0.level == level }.map(\.name)
            if !names.isEmpty { lines.append("  first time in \(names.count) \(label): \(names.joined(separator: ", "))") }
        }
        return lines.joined(separator: "\n")
    }
}
