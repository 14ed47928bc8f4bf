import Foundation
import GRDB
import RoquaRegions

/// An import of track files as every front end runs it (`roqua track import`, `roqua serve`'s
/// uploads): the inputs in the order given, each file in its own transaction together with the
/// achievements its new regions complete, one step reported per input. A file that fails is
/// reported and the next one goes on; how a file is read and written is the caller's (the CLI
/// streams it into the store, the server reads it into a spool first and waits for the store).
package struct TrackImportSession {
    package let importer: TrackImporter
    package let tracker: AchievementTracker

    package init(importer: TrackImporter, tracker: AchievementTracker) {
        self.importer = importer
        self.tracker = tracker
    }

    /// What became of one input.
    package enum Step {
        /// A file read and written (or found already imported: then its summary says so).
        case imported(name: String, summary: TrackImportSummary, events: [AchievementEvent])
        /// A file whose import failed (nothing of it kept), with the reason.
        case failed(name: String, error: any Error)
        /// A path that could not be opened or expanded (a missing file, a damaged archive).
        case unreadable(path: String, error: any Error)
        /// Files in a folder or archive that hold no track (images, notes), counted.
        case passedOver(count: Int)
    }

    /// Writes a file's facts' achievements inside the transaction that writes its regions.
    package typealias Alongside = (Database, TrackImportSummary) throws -> [AchievementEvent]

    /// Imports one source, calling the given `Alongside` inside its transaction.
    package typealias ImportFile = (TrackSource, Alongside) throws -> (summary: TrackImportSummary, extra: [AchievementEvent]?)

    /// Runs every input: `importFile` imports one source, `step` hears of each outcome in order.
    /// Photos (`TrackInputs.expand(_:photos:)` finds them for the CLI only) are imported with
    /// `photoTimeZone` for local times without an offset.
    /// - Throws: only what `step` throws (a caller that wants to stop: a server shutting down, an
    ///   upload of one file that failed).
    package func run(
        _ inputs: [TrackInput], photoTimeZone: TimeZone? = nil, importFile: ImportFile,
        step: (Step) throws -> Void
    ) throws {
        let tracker = tracker
        let alongside: Alongside = { db, summary in try tracker.consume(db, events: summary.events, stored: summary.storedRegions) }
        for input in inputs {
            switch input {
            case let .failed(path, error):
                try step(.unreadable(path: path, error: error))
            case let .skipped(_, count):
                try step(.passedOver(count: count))
            case let .photos(batch):
                let outcome: Step
                do {
                    let (summary, events) = try importer.importPhotos(batch, timeZone: photoTimeZone, alongside: alongside)
                    outcome = .imported(name: batch.name, summary: summary, events: events ?? [])
                } catch {
                    outcome = .failed(name: batch.name, error: error)
                }
                try step(outcome)
            case let .source(source):
                let outcome: Step
                do {
                    let (summary, events) = try importFile(source, alongside)
                    outcome = .imported(name: source.name, summary: summary, events: events ?? [])
                } catch {
                    outcome = .failed(name: source.name, error: error)
                }
                try step(outcome)
            }
        }
    }

    /// The CLI's way to import a file: read and written in one pass, straight into the store.
    package func streaming(options: TrackReadOptions, progress: ((Int) throws -> Void)? = nil) -> ImportFile {
        { [importer] source, alongside in try importer.importSource(source, options: options, progress: progress, alongside: alongside) }
    }
}
