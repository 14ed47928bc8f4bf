import Foundation
import Hummingbird
import RoquaAchievements
import RoquaBoundaries
import RoquaIO
import RoquaRegions

/// What one upload imported: a single file's summary, or one per track file of an archive.
struct UploadOutcome {
    /// The accuracy limit the import used (the store's remembered setting).
    var maxAccuracy: Double
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

    /// A single file: its answer as `roqua track import --json` gives it. An archive: the totals
    /// the page shows (`new_regions`, `first_districts`, `text`) and every file's answer under
    /// `files`. `maxAccuracy` is the accuracy limit the import used.
    /// - Throws: `EncodingError` for a value that cannot be encoded.
    func response(name: String, catalog: AchievementCatalog, maxAccuracy: Double) throws -> Response {
        let answers = summaries.map {
            TrackImportAnswer($0.summary, name: $0.name, events: $0.events, catalog: catalog, maxAccuracy: maxAccuracy)
        }
        if answers.count == 1, failures.isEmpty, passedOver == 0, summaries[0].name == name {
            return try JSONBody.encoded(answers[0])
        }
        var tally = TrackImportTally()
        for entry in summaries { tally.add(entry.summary) }
        tally.failures = failures.count
        tally.passedOver = passedOver
        var run = TrackImportRunAnswer(
            files: answers, failed: failures.map { .init(file: $0.name, error: $0.message) }, passedOver: passedOver)
        run.file = name
        run.format = "archive"
        run.newRegions = newRegions
        run.firstDistricts = answers.flatMap(\.firstDistricts)
        let lines = answers.map(\.text) + failures.map { "error: \($0.message)" } + [tally.summaryLine(named: 1)].compactMap { $0 }
        run.text = lines.joined(separator: "\n")
        return try JSONBody.encoded(run)
    }
}
