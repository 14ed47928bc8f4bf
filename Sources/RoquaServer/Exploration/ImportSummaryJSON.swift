import Foundation
import RoquaAchievements
import RoquaBoundaries
import RoquaIO
import RoquaRegions

/// The answer to a track upload: what `roqua track import` prints, as fields and as its text.
enum ImportSummaryJSON {
    static func document(
        _ summary: TrackImportSummary, events: [AchievementEvent], name: String,
        catalog: AchievementCatalog
    ) -> String {
        var unlocked: [String] = []
        var levelUp = "null"
        for event in events {
            switch event {
            case let .unlocked(unlock):
                let title = catalog.definition(unlock.id)?.title
                let en = title?.en ?? unlock.id, tr = title?.tr ?? unlock.id
                unlocked.append(
                    "{\"id\":\(JSONText.quote(unlock.id)),\"title\":{\"en\":\(JSONText.quote(en)),\"tr\":\(JSONText.quote(tr))},"
                        + "\"xp\":\(unlock.xp)}")
            case let .levelUp(from, to):
                levelUp = "{\"from\":\(from),\"to\":\(to)}"
            }
        }
        func firsts(_ level: AdminLevel) -> String {
            "["
                + summary.firsts.filter { $0.level == level }
                .map { "{\"code\":\(JSONText.quote($0.code)),\"name\":\(JSONText.quote($0.name))}" }.joined(separator: ",") + "]"
        }
        let dropped = summary.dropped.map { ("\($0.key)", $0.value) }.sorted { $0.0 < $1.0 }
            .map { "\(JSONText.quote($0.0)):\($0.1)" }.joined(separator: ",")
        let skipped = summary.skipped.byReason.sorted { $0.key < $1.key }
            .map { "\(JSONText.quote($0.key)):\($0.value)" }.joined(separator: ",")
        let text = text(summary, events: events, name: name, catalog: catalog)
        return "{\"file\":\(JSONText.quote(name)),\"format\":\(JSONText.quote(summary.format)),"
            + "\"already_imported\":\(summary.alreadyImported),\"fixes_read\":\(summary.fixesRead),"
            + "\"dropped\":\(summary.droppedTotal),\"dropped_by_reason\":{\(dropped)},"
            + "\"skipped\":\(summary.skipped.count),\"skipped_by_reason\":{\(skipped)},"
            + "\"skipped_lines\":[\(summary.skipped.lines.map(String.init).joined(separator: ","))],\"new_regions\":\(summary.newRegions),"
            + "\"revisits\":\(summary.revisits),\"first_districts\":\(firsts(.district)),\"first_provinces\":\(firsts(.province)),"
            + "\"first_countries\":\(firsts(.country)),\"unlocked\":[\(unlocked.joined(separator: ","))],\"level_up\":\(levelUp),"
            + "\"text\":\(JSONText.quote(text))}"
    }

    /// The lines `roqua track import` prints for the file, its unlocks and level-up included.
    static func text(_ summary: TrackImportSummary, events: [AchievementEvent], name: String, catalog: AchievementCatalog) -> String {
        var named = summary
        named.file = name
        var lines = [named.report(maxAccuracy: ClusteringSettings.default.maxAccuracy)]
        for event in events {
            switch event {
            case let .unlocked(unlock):
                let title = catalog.definition(unlock.id)?.title
                lines.append("  unlocked: \(title?.en ?? unlock.id) / \(title?.tr ?? unlock.id) (+\(unlock.xp) XP)")
            case let .levelUp(from, to):
                lines.append("  level up: \(from) → \(to)")
            }
        }
        return lines.joined(separator: "\n")
    }

}

/// What one upload imported: a single file's summary, or one per track file of an archive.
struct UploadOutcome {
    var summaries: [(name: String, summary: TrackImportSummary, events: [AchievementEvent])] = []
    var failures: [(name: String, message: String)] = []
    var passedOver = 0

    var newRegions: Int { summaries.reduce(0) { $0 + $1.summary.newRegions } }

    /// An error's text naming the upload instead of its temporary file: by its file field. An
    /// error with none (Foundation's, say) has the path taken out of its words, so that no answer
    /// shows the temporary path.
    static func uploadName(_ error: any Error, path: String, name: String) -> String {
        if let error = error as? any InputFileError { return error.renaming(path, as: name).description }
        return "\(error)".replacingOccurrences(of: path, with: name)
    }

    /// A single file: its summary document. An archive: the totals the page shows
    /// (`new_regions`, `first_districts`, `text`) and every file's document under `files`.
    func document(name: String, catalog: AchievementCatalog) -> String {
        let documents = summaries.map { ImportSummaryJSON.document($0.summary, events: $0.events, name: $0.name, catalog: catalog) }
        if summaries.count == 1, failures.isEmpty, passedOver == 0, summaries[0].name == name { return documents[0] }
        let firstDistricts = summaries.flatMap { entry in
            entry.summary.firsts.filter { $0.level == .district }
                .map { "{\"code\":\(JSONText.quote($0.code)),\"name\":\(JSONText.quote($0.name))}" }
        }
        let failed = failures.map { "{\"file\":\(JSONText.quote($0.name)),\"message\":\(JSONText.quote($0.message))}" }
        var tally = TrackImportTally()
        for entry in summaries { tally.add(entry.summary) }
        tally.failures = failures.count
        tally.passedOver = passedOver
        let lines =
            summaries.map { ImportSummaryJSON.text($0.summary, events: $0.events, name: $0.name, catalog: catalog) }
            + failures.map { "error: \($0.message)" } + [tally.summaryLine(named: 1)].compactMap { $0 }
        return "{\"file\":\(JSONText.quote(name)),\"format\":\"archive\",\"new_regions\":\(newRegions),"
            + "\"first_districts\":[\(firstDistricts.joined(separator: ","))],\"files\":[\(documents.joined(separator: ","))],"
            + "\"failed\":[\(failed.joined(separator: ","))],\"passed_over\":\(passedOver),"
            + "\"text\":\(JSONText.quote(lines.joined(separator: "\n")))}"
    }
}
