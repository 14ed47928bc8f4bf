import ArgumentParser
import Foundation
import RoquaAchievements
import RoquaCommandLine
import RoquaCommandOptions
import RoquaIO
import RoquaRegions
import RoquaTimeline

/// `roqua history`: what the store keeps of the fixes themselves.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "The kept fixes: how many, from when to when, their size, and from which sources.",
        discussion: "Every fix an import or a phone's live post brings is kept (compactly, each once); "
            + "regions, days, tiles and flights are derived from them and can be again (`roqua rebuild`)."
    )

    @OptionGroup var storeOptions: StoreOptions
    @Flag(help: "Print one JSON document: {fixes, first, last, bytes, sources: [{name, fixes}]}.") var json = false
    /// Only the fixes taken during those days.
    @OptionGroup var days: DaySpanOptions

    func validate() throws { _ = try days.span() }

    func run() throws {
        let store = try storeOptions.open(.readOnly)
        let span = try days.span()
        let history = try span.map { try store.history(from: $0.0, to: $0.1) } ?? store.history()
        if json { return try RoquaProgram.printJSON(history) }
        if history.fixes == 0 {
            print(span == nil ? "No fixes kept yet." : "No fixes kept in that span.")
        } else if let first = history.first, let last = history.last {
            let perFix = Double(history.bytes) / Double(history.fixes)
            // A span's blocks hold fixes of other times too: their size says nothing of the span's.
            let size = span != nil ? "" : ", \(Self.size(history.bytes)) (\(String(format: "%.1f", perFix)) bytes a fix)"
            print("\(history.fixes) fixes kept, \(Self.moment(first)) … \(Self.moment(last)) (UTC)\(size)")
            print("\(history.sources.count) source(s):")
            for source in history.sources { print("  \(source.name): \(source.fixes)") }
        }
        if history.importsBeforeHistory > 0 {
            print(
                "\(history.importsBeforeHistory) file(s) were imported before the store kept fixes: their regions stand, but "
                    + "their fixes are not kept; import them again to keep them (nothing is counted twice).")
        }
    }

    static func moment(_ date: Date) -> String {
        String(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!).format(date).prefix(16)).replacingOccurrences(
            of: "T", with: " ")
    }

    static func size(_ bytes: Int) -> String {
        bytes < 1 << 20 ? String(format: "%.1f kB", Double(bytes) / 1000) : String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }
}

/// `roqua backup FILE`.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Write one file holding everything the store holds (fixes, regions, days, tiles, flights, devices, unlocks, settings).",
        discussion: "The file is private (0600) and checksummed; `roqua restore FILE` brings it back into an empty store "
            + "(or with --replace), where every query answers as before."
    )

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The backup file to write.") var file: String

    func run() throws {
        let store = try storeOptions.open(.readOnly)
        let history = try store.history()
        let size = try StoreBackup.write(store, to: file)
        print("Backed up \(history.fixes) fixes and \(try store.regionCount()) regions to \(file) (\(HistoryCommand.size(size)))")
    }
}

/// The settings a rebuild (or an import) derives with, as options: unset ones keep what the store remembers.
struct DeriveOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "A fix within this many metres of a region's centre joins it; a new region gets this radius.",
            valueName: "metres"))
    var clusteringRadius: Int?

    @Option(
        help: ArgumentHelp(
            "The radius each region lights on the maps and in the explored area (default: its clustering radius).",
            valueName: "metres"))
    var explorationRadius: Int?

    @Option(help: ArgumentHelp("No new region starts closer than this to a region's centre (0: off).", valueName: "metres"))
    var minDistance: Int?

    @Option(help: ArgumentHelp("Fixes less accurate than this are dropped.", valueName: "metres"))
    var accuracy: Double?

    /// `remembered` with the options given.
    func applied(to remembered: DeriveSettings) throws -> DeriveSettings {
        var settings = remembered
        if let clusteringRadius { settings.clustering.radius = clusteringRadius }
        if let explorationRadius { settings.clustering.explorationRadius = explorationRadius }
        if let minDistance { settings.clustering.minDistance = minDistance }
        if let accuracy { settings.clustering.maxAccuracy = accuracy }
        do { try settings.validate() } catch { throw ValidationError("\(error)") }
        return settings
    }
}

/// `roqua rebuild [settings]`.
struct RebuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rebuild",
        abstract: "Derive everything again from the kept fixes, with the given settings (then remembered).",
        discussion: "Regions, days per place, tiles, flights and achievements are made again from the kept fixes, in the order "
            + "they were recorded, in one transaction (killed at any point, the store stays as it was). Settings not given keep "
            + "their remembered values; a rebuild with the same settings changes nothing."
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var boundaryOptions: BoundaryOptions
    @OptionGroup var achievementOptions: AchievementOptions
    @OptionGroup var derive: DeriveOptions
    @OptionGroup var stays: StayOptions
    @Flag(help: "Rebuild even though files imported before the store kept fixes made regions that will be lost.")
    var discardUnkept = false

    func run() throws {
        let store = try storeOptions.open()
        let settings = try derive.applied(to: try store.derivedWith())
        let timeline = try stays.applied(to: try store.timelineSettings() ?? .standard)
        let importer = try TrackImporter(
            store: store, enricher: RegionEnricher(boundaries: boundaryOptions.path),
            settings: settings.clustering, flights: settings.flights)
        let tracker = try achievementOptions.tracker(boundaries: boundaryOptions)
        let (summary, unlocks) = try store.write { db in
            let summary = try importer.rederive(db, discardingUnkept: discardUnkept, timeline: timeline)
            return (summary, try tracker.rederived(db, stored: summary.storedRegions ?? []))
        }
        print(Self.report(summary, unlocks: unlocks.count, settings: settings, timeline: timeline))
    }

    static func report(_ summary: RebuildSummary, unlocks: Int, settings: DeriveSettings, timeline: TimelineSettings) -> String {
        let clustering = settings.clustering
        var lines = [
            "Rebuilt from \(summary.fixes) kept fixes of \(summary.sources) source(s): \(summary.regionsBefore) → "
                + "\(summary.regions) regions, \(summary.flights) flight(s), \(unlocks) achievement(s) unlocked"
        ]
        lines.append(
            "  settings: clustering radius \(clustering.radius) m, exploration radius "
                + "\(clustering.explorationRadius.map { "\($0) m" } ?? "the same"), minimum distance \(clustering.minDistance) m, "
                + "accuracy \(Int(clustering.maxAccuracy)) m; stays of \(timeline.stayMinutes) min within \(Int(timeline.stayMeters)) m")
        if summary.importsWithoutFixes > 0 {
            lines.append(
                "  \(summary.importsWithoutFixes) file(s) imported before the store kept fixes made no region now "
                    + "(--discard-unkept); import them again to bring their places back")
        }
        return lines.joined(separator: "\n")
    }
}

/// `roqua forget --from T1 --to T2 [--yes]`.
struct ForgetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Delete the fixes taken in a span of time and everything only they made.",
        discussion: "Deletes the kept fixes taken from --from (included) to --to (excluded), and the import records made "
            + "then, and derives everything else again from the fixes that remain, in one transaction. The deleted bytes are "
            + "overwritten (SQLite's secure delete) and the write-ahead log emptied, so neither the store's files nor a later "
            + "backup hold anything of the span; the thumbnails made from photos are removed (made again when asked for). "
            + "Dates mean midnight in --time-zone."
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var boundaryOptions: BoundaryOptions
    @OptionGroup var achievementOptions: AchievementOptions

    @Option(
        help: ArgumentHelp(
            "The span's start: a date (2024-05-03) or a time (2024-05-03T14:00, 2024-05-03T14:00:00Z).",
            valueName: "time"))
    var from: String

    @Option(help: ArgumentHelp("The span's end (excluded), as --from.", valueName: "time"))
    var to: String

    @Option(help: ArgumentHelp("The zone of dates and times without an offset (default: $TZ or the system's).", valueName: "zone"))
    var timeZone: String?

    @Flag(help: "Do not ask: forget at once (needed when not on a terminal).") var yes = false
    @Flag(help: "Forget even though files imported before the store kept fixes made regions that will be lost.")
    var discardUnkept = false

    func validate() throws { _ = try span() }

    func span() throws -> (Date, Date) { try LocalTime.span(from: from, to: to, zone: timeZone, toDayIncluded: false) }

    func run() throws {
        let (start, end) = try span()
        let store = try storeOptions.open()
        let shown = "\(LocalTime.text(start, timeZone)) … \(LocalTime.text(end, timeZone))"
        let count = try store.fixes(from: start, to: end).count
        if !yes {
            guard Terminal.isInteractive else {
                throw Failure("forgetting cannot be undone: pass --yes to forget \(count) fixes of \(shown)")
            }
            FileHandle.standardError.write(
                Data("Forget \(count) fixes taken \(shown) and what only they made? This cannot be undone. [y/N] ".utf8))
            guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased()) else { throw Failure("nothing forgotten") }
        }
        let settings = try store.derivedWith()
        let timeline = try store.timelineSettings() ?? .standard
        let importer = try TrackImporter(
            store: store, enricher: RegionEnricher(boundaries: boundaryOptions.path),
            settings: settings.clustering, flights: settings.flights)
        let tracker = try achievementOptions.tracker(boundaries: boundaryOptions)
        let ms = { (date: Date) in Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
        let (summary, unlocks) = try store.writeScrubbing { db in
            let summary = try importer.forget(from: ms(start), to: ms(end), discardingUnkept: discardUnkept, db)
            return (summary, try tracker.rederived(db, stored: summary.rebuild.storedRegions ?? []))
        }
        print(
            "Forgot \(summary.fixes) fixes taken \(shown), \(summary.imports) import record(s) made then"
                + (summary.sources > 0 ? " and \(summary.sources) source(s) left empty" : ""))
        print(RebuildCommand.report(summary.rebuild, unlocks: unlocks.count, settings: settings, timeline: timeline))
        print("The deleted bytes were overwritten and the write-ahead log emptied.")
    }
}

/// Times as the history commands take them: a date (midnight), a local time, or a time with an offset.
/// `--from DAY --to DAY [--time-zone ZONE]`: a span of local days (or exact times), shared by the
/// commands that read the kept fixes of a span.
struct DaySpanOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The kept fixes from this day (2024-05-03) or time (2024-05-03T14:00, 2024-05-03T14:00:00Z) on.",
            valueName: "day"))
    var from: String?

    @Option(help: ArgumentHelp("With --from: to this day (included; a time is excluded).", valueName: "day"))
    var to: String?

    @Option(help: ArgumentHelp("The zone of --from and --to (default: $TZ or the system's).", valueName: "zone"))
    var timeZone: String?

    /// `--from`'s start and `--to`'s end (a day given as `--to` is included); nil when neither is given.
    /// - Throws: `ValidationError` for one without the other or a span that is not one.
    func span() throws -> (Date, Date)? {
        guard from != nil || to != nil else { return nil }
        guard let from, let to else { throw ValidationError("give both --from and --to") }
        return try LocalTime.span(from: from, to: to, zone: timeZone, toDayIncluded: true)
    }
}

enum LocalTime {
    /// `--from` and `--to` (in `zone`, an IANA name; nil: `$TZ` or the system's) as a span. With
    /// `toDayIncluded`, a date given as `--to` ends at the next midnight (its day is in the span).
    /// - Throws: `ValidationError` naming the option and the value, or an empty span.
    static func span(from: String, to: String, zone name: String?, toDayIncluded: Bool) throws -> (Date, Date) {
        let zone = try TimeZones.checked(name)
        guard let start = parse(from, zone: zone) else {
            throw ValidationError("--from \(Echo.quoted(from)) is not a date or time (e.g. 2024-05-03 or 2024-05-03T14:00)")
        }
        guard var end = parse(to, zone: zone) else {
            throw ValidationError("--to \(Echo.quoted(to)) is not a date or time (e.g. 2024-05-04 or 2024-05-03T18:30)")
        }
        if toDayIncluded, !to.contains("T") {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            end = calendar.date(byAdding: .day, value: 1, to: end) ?? end
        }
        guard end > start else { throw ValidationError("--to must be after --from") }
        return (start, end)
    }

    static func parse(_ text: String, zone: TimeZone) -> Date? {
        if let exact = TimeText.iso8601(text), text.hasSuffix("Z") || text.dropFirst(10).contains("+") || text.dropFirst(10).contains("-") {
            return exact
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = text.split(whereSeparator: { "-T:".contains($0) }).map { Int($0) }
        guard parts.allSatisfy({ $0 != nil }), [3, 5, 6].contains(parts.count), text.count >= 10 else { return nil }
        let values = parts.compactMap { $0 }
        var components = DateComponents(year: values[0], month: values[1], day: values[2])
        if values.count >= 5 { (components.hour, components.minute) = (values[3], values[4]) }
        if values.count == 6 { components.second = values[5] }
        guard let date = calendar.date(from: components),
            calendar.dateComponents([.year, .month, .day], from: date) == DateComponents(year: values[0], month: values[1], day: values[2]),
            (components.hour ?? 0) < 24, (components.minute ?? 0) < 60, (components.second ?? 0) < 60
        else {
            return nil
        }
        return date
    }

    static func text(_ date: Date, _ zone: String?) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZones.chosen(zone)
        formatter.dateFormat = "yyyy-MM-dd HH:mm xxx"
        return formatter.string(from: date)
    }
}
