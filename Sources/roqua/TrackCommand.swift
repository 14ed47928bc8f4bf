import ArgumentParser
import Foundation
import RoquaAchievements
import RoquaBoundaries
import RoquaCommandLine
import RoquaCommandOptions
import RoquaIO
import RoquaRegions

struct TrackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "track",
        abstract: "Turn GPS tracks into visited regions.",
        subcommands: [Import.self]
    )

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import track files, folders of them or archives into the region store, offline.",
            discussion: """
                Formats: GPX, KML/KMZ, TCX, FIT, CSV, GeoJSON, Overland, OwnTracks .rec, Google Takeout \
                Records.json, Semantic Location History and the on-device Timeline exports; any of them \
                gzip-compressed (.gz) or inside a .zip archive (a Strava or Takeout export). Folders are \
                walked. Each file is read streaming and written in its own transaction: a malformed file \
                changes nothing and the others are still imported; a file imported before (same content) \
                adds nothing. Points without a time are skipped and counted; a file with no timed point is \
                an error unless --assume-time gives one. Photos (JPEG, HEIC/HEIF, AVIF, PNG) and Google \
                Takeout's photo sidecars give one fix each, read from their metadata only: their GPS \
                position and the time taken; a folder's photos are imported together, counted by what \
                each gave. The exit status is 1 when any file failed.
                """
        )

        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var boundaryOptions: BoundaryOptions
        @OptionGroup var achievementOptions: AchievementOptions

        @Argument(help: "Track files, folders or .zip archives.")
        var files: [String]

        @Option(help: "Region radius in metres (default: what the store was last rebuilt with, 150 m at first).")
        var radius: Int?

        @Flag(help: "Radius by speed: 100 m walking, 200 m in a vehicle.")
        var speedBased = false

        @Option(help: "Drop fixes whose accuracy is worse than this many metres (default: the store's, 50 m at first).")
        var accuracy: Double?

        @Option(help: "Minutes between fixes in one region that still make one visit (default: the store's, 30 at first).")
        var visitGap: Double?

        @Option(
            help: ArgumentHelp(
                "The time for points that have none (ISO 8601, e.g. 2024-05-01T10:00:00Z): a route you did walk.",
                valueName: "time"))
        var assumeTime: String?

        @Option(
            help: ArgumentHelp(
                "Ground speed above which a fix is in flight: it lights no region (km/h, 50–1000; default: "
                    + "the store's, 250 at first).", valueName: "km/h"))
        var flightSpeed: Double?

        @Option(
            help: ArgumentHelp(
                "The zone of photos whose time has no offset (default: such photos are skipped and counted).",
                valueName: "zone"))
        var timeZone: String?

        @Flag(help: "Print one JSON document: per file, fixes read, skipped (by reason, first lines), dropped, new regions, unlocks.")
        var json = false

        func validate() throws {
            do { try settings(.default).validate() } catch { throw ValidationError("\(error)") }
            _ = try readOptions()
            _ = try photoZone()
        }

        /// - Throws: `ValidationError` naming an unknown zone.
        func photoZone() throws -> TimeZone? { try TimeZones.named(timeZone) }

        /// The store's remembered settings with this import's options: they apply to this import
        /// only (`roqua rebuild` changes what is remembered).
        func settings(_ remembered: DeriveSettings) -> DeriveSettings {
            var settings = remembered
            if let radius { settings.clustering.radius = radius }
            if speedBased { settings.clustering.speedBasedRadius = true }
            if let accuracy { settings.clustering.maxAccuracy = accuracy }
            if let visitGap { settings.clustering.visitGap = visitGap * 60 }
            if let flightSpeed { settings.flightSpeedKmh = flightSpeed }
            return settings
        }

        func readOptions() throws -> TrackReadOptions {
            guard let assumeTime else { return TrackReadOptions() }
            guard let date = TimeText.iso8601(assumeTime) else {
                throw ValidationError("--assume-time \(Echo.quoted(assumeTime)) is not an ISO 8601 date-time (e.g. 2024-05-01T10:00:00Z)")
            }
            guard TrackValues.isInWindow(date) else {
                throw ValidationError("--assume-time \(Echo.quoted(assumeTime)) is outside 1970-01-01 … 2100-01-01")
            }
            return TrackReadOptions(assumedTime: date)
        }

        func run() throws {
            let store = try storeOptions.open()
            let settings = settings(try store.derivedWith())
            let importer = try TrackImporter(
                store: store, enricher: RegionEnricher(boundaries: boundaryOptions.path),
                settings: settings.clustering, flights: settings.flights)
            let session = try TrackImportSession(importer: importer, tracker: achievementOptions.tracker(boundaries: boundaryOptions))
            let inputs = TrackInputs.expand(files)
            var tally = TrackImportTally()
            let total = inputs.reduce(0) {
                switch $1 {
                case .source, .photos: $0 + 1
                case .failed, .skipped: $0
                }
            }
            let progress = TrackImportProgress(total: total)
            var answers: [TrackImportAnswer] = []
            var failures: [TrackImportRunAnswer.Failure] = []
            let streaming = session.streaming(options: try readOptions(), progress: progress.fixes)
            try session.run(
                inputs, photoTimeZone: try photoZone(),
                importFile: { source, alongside in
                    progress.begin(source.name)
                    do {
                        let result = try streaming(source, alongside)
                        progress.end(fixes: result.summary.fixesRead)
                        return result
                    } catch {
                        progress.end(fixes: 0)
                        throw error
                    }
                }
            ) { step in
                switch step {
                case let .failed(name, error), let .unreadable(name, error):
                    tally.failures += 1
                    let text = String(describing: error)
                    failures.append(TrackImportRunAnswer.Failure(file: name, error: text))
                    fflush(nil)  // the error lands after the reports of the files before it, even in a pipe
                    RoquaProgram.error(text.hasPrefix(name) ? text : "\(name): \(text)")
                case let .passedOver(count):
                    tally.passedOver += count
                case let .imported(_, summary, events):
                    tally.add(summary)
                    let answer = TrackImportAnswer(
                        summary, name: summary.file, events: events, catalog: session.tracker.catalog,
                        maxAccuracy: settings.clustering.maxAccuracy)
                    if json { answers.append(answer) } else { print(answer.text) }
                }
            }
            if json {
                try RoquaProgram.printJSON(TrackImportRunAnswer(files: answers, failed: failures, passedOver: tally.passedOver))
            } else if let line = tally.summaryLine(named: files.count) {
                print(line)
            }
            if tally.failures > 0 { throw ExitCode.failure }
        }
    }
}

/// The one-line progress shown on a terminal: files done / total and the reading speed.
final class TrackImportProgress {
    let total: Int
    private var done = 0
    private var name = ""
    private var started = Date()
    private var lastShown = Date.distantPast

    init(total: Int) {
        self.total = total
    }

    func begin(_ name: String) {
        self.name = name
        started = Date()
        show(fixes: 0)
    }

    /// Called by the importer every few thousand fixes.
    func fixes(_ count: Int) {
        guard Date().timeIntervalSince(lastShown) > 0.2 else { return }
        show(fixes: count)
    }

    func end(fixes: Int) {
        done += 1
        Terminal.endStatus()
    }

    private func show(fixes: Int) {
        lastShown = Date()
        let seconds = max(Date().timeIntervalSince(started), 0.001)
        let rate = fixes > 0 ? ", \(Int(Double(fixes) / seconds)) fixes/s" : ""
        Terminal.status("[\(done + 1)/\(total)] \(Echo.cut(name)): \(fixes) fixes\(rate)")
    }
}
