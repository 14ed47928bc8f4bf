import ArgumentParser
import Foundation
import RoquaBoundaries
import RoquaCommandLine
import RoquaCommandOptions
import RoquaIO
import RoquaProgress
import RoquaRegions
import Synchronization

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Progress, flights, days per place and explorer tiles.",
        subcommands: [Summary.self, DaysCommand.self, TilesCommand.self],
        defaultSubcommand: Summary.self
    )

    static func day(_ date: Date, _ zone: TimeZone) -> String {
        Streaks.day(of: date, in: zone).description
    }
}

struct Summary: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "summary",
        abstract: "Progress: countries, x/N provinces and districts, explored area, world %, streaks; flights, tiles, days.",
        discussion: "With --unit, x/N for one unit with its visited and not-yet-visited children and first-visit dates."
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var boundaryOptions: BoundaryOptions

    @Option(help: ArgumentHelp("One unit: a code (TR-34) or a name (istanbul, Kadıköy, Türkiye).", valueName: "NAME|CODE"))
    var unit: String?

    @Flag(help: "Print one JSON document.")
    var json = false

    @Option(help: "Decimals of the world percentage (4–9).")
    var decimals = 5

    @Option(help: ArgumentHelp("Time zone that days and weekends are counted in (default: the system's).", valueName: "TZ"))
    var timeZone: String?

    func validate() throws {
        guard (4...9).contains(decimals) else { throw ValidationError("--decimals must be between 4 and 9") }
        _ = try TimeZones.named(timeZone)
    }

    func run() throws {
        let zone = TimeZones.chosen(timeZone)
        let store = try storeOptions.open(.readOnly)
        let hierarchy = try BoundaryHierarchy(database: boundaryOptions.open())
        if let unit {
            let found = try hierarchy.unit(named: unit)
            let calculator = ProgressCalculator(hierarchy: hierarchy, regions: try store.allRegions())
            guard let progress = calculator.progress(of: found.code) else {
                throw Failure("\(found.name) (\(found.code)) has no subdivisions in the boundary database")
            }
            if json { return try RoquaProgram.printJSON(progress, dates: zone) }
            print(progress.label + (progress.firstVisit.map { ", first visited \(StatsCommand.day($0, zone))" } ?? ""))
            print("Visited:")
            for child in progress.visitedChildren {
                print("  \(child.name) (\(child.code)), since \(StatsCommand.day(child.firstVisit!, zone))")
            }
            print("Not yet visited:")
            print("  " + (progress.notVisitedChildren.isEmpty ? "none" : progress.notVisitedChildren.map(\.name).joined(separator: ", ")))
            return
        }
        // Flights, tiles and days are read on a second connection beside the report (the two
        // cores share a big store's reading: ~0.35 s of ~1.6 s at a million regions).
        let side = try storeOptions.open(.readOnly)
        let travel = Mutex<Result<Travel, any Error>?>(nil)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { travel.withLock { $0 = Result { try Travel(side, zone: zone) } } }
        // A big writable store's regions are read in two halves at once on one snapshot.
        let writable = storeOptions.writable(regions: try store.regionCount())
        let report = try ProgressReport(
            store: store, hierarchy: hierarchy, options: .init(timeZone: zone, decimals: decimals),
            memory: StoredFigures(store: writable ?? store),
            together: try writable.map { (second: try storeOptions.open(.readOnly), lock: $0) })
        group.wait()
        let (flights, tiles, days) = try travel.withLock { try $0!.get() }.parts
        if json {
            return try RoquaProgram.printJSON(SummaryDocument(report: report, flights: flights, tiles: tiles, days: days), dates: zone)
        }
        print(report.text)
        print(Self.flightLines(flights, zone: zone).joined(separator: "\n"))
        print(TilesCommand.line(tiles))
        print(DaysCommand.summaryLine(days))
        for note in try store.upgradeNotes() where note.at > Date().addingTimeInterval(-30 * 86_400) { print(note.message) }
    }

    /// The flights, zoom-14 tiles and days per country `stats` shows beside the progress.
    struct Travel: Sendable {
        var flights: [FlightRecord]
        var tiles: TileStats
        var days: DaysReport
        var parts: ([FlightRecord], TileStats, DaysReport) { (flights, tiles, days) }

        init(_ store: RegionStore, zone: TimeZone) throws {
            flights = try store.flights()
            tiles = TileStats(zoom: 14, visited: try store.visitedTiles(zoom: 14))
            // The days of the last year with a ground fix (this year's are often none yet).
            let year = Calendar.current.dateComponents(in: zone, from: try store.lastOnTheGround() ?? Date()).year ?? 2026
            days = try store.days(year: year, level: .country, zone: zone)
        }
    }

    /// The report's fields with `flights` (`{"from","from_code","to","to_code","start","end","km","fixes"}`,
    /// km to 0.1), `tiles` and `days` beside them: one JSON document, encoded in one pass.
    struct SummaryDocument: Encodable {
        var report: ProgressReport
        var flights: [FlightRecord]
        var tiles: TileStats
        var days: DaysReport

        private enum Key: String, CodingKey { case flights, tiles, days }

        func encode(to encoder: any Encoder) throws {
            try report.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(
                flights.map { flight in
                    var flight = flight
                    flight.km = (flight.km * 10).rounded() / 10
                    return flight
                }, forKey: .flights)
            try container.encode(tiles, forKey: .tiles)
            try container.encode(days, forKey: .days)
        }
    }

    static let shownFlights = 10

    static func flightLines(_ flights: [FlightRecord], zone: TimeZone) -> [String] {
        guard !flights.isEmpty else { return ["Flights: none (fixes above the flight speed light nothing)"] }
        let km = Int(flights.reduce(0) { $0 + $1.km }.rounded())
        var lines = ["Flights: \(flights.count), \(km.formatted(.number.grouping(.automatic))) km (their fixes count towards no unit)"]
        for flight in flights.suffix(shownFlights).reversed() {
            let from = flight.from.map { "\($0)\(flight.fromCode.map { " (\($0))" } ?? "")" } ?? "?"
            let to = flight.to.map { "\($0)\(flight.toCode.map { " (\($0))" } ?? "")" } ?? "?"
            lines.append(
                "  \(StatsCommand.day(flight.start, zone)) \(from) → \(to), \(Int(flight.km.rounded()).formatted(.number.grouping(.automatic))) km"
            )
        }
        if flights.count > shownFlights { lines.append("  … and \(flights.count - shownFlights) earlier") }
        return lines
    }
}

/// `roqua stats days`: calendar days with a ground fix per unit.
struct DaysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "days",
        abstract: "Days per country, province or district in a year: days with at least one ground fix there.",
        discussion: """
            A day spent in two units counts for both (the convention of tax residency's presence tests, e.g. the 183-day \
            rule). Fixes in flight count nowhere. A unit at 183 days or more is flagged.
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    /// Days are named when the fixes are imported, so the boundary DB is not read; `--boundaries`
    /// is accepted (not shown) so that one set of options works for every `stats` verb.
    @OptionGroup(visibility: .hidden) var boundaryOptions: BoundaryOptions

    @Option(help: "The year (default: this year in the time zone).")
    var year: Int?

    @Option(help: "country, province or district.")
    var level = "country"

    @Option(help: ArgumentHelp("Time zone whose calendar days are counted (default: the system's).", valueName: "TZ"))
    var timeZone: String?

    @Flag(help: "Print one JSON document.")
    var json = false

    @Flag(help: "Print CSV: code,name,days.")
    var csv = false

    func validate() throws {
        guard AdminLevel(name: level) != nil else { throw ValidationError("--level must be country, province or district") }
        _ = try TimeZones.named(timeZone)
        if let year, !(1970...2099).contains(year) { throw ValidationError("--year must be between 1970 and 2099") }
        if json && csv { throw ValidationError("--json and --csv: choose one") }
    }

    func run() throws {
        let zone = TimeZones.chosen(timeZone)
        let year = year ?? Calendar.current.dateComponents(in: zone, from: Date()).year ?? 2026
        let report = try storeOptions.open(.readOnly).days(year: year, level: AdminLevel(name: level) ?? .country, zone: zone)
        if json { return try RoquaProgram.printJSON(report) }
        if csv {
            print("code,name,days")
            for unit in report.units { print([unit.code, unit.name, String(unit.days)].map(Self.csvField).joined(separator: ",")) }
            return
        }
        print("Days in \(year) (\(zone.identifier)) by \(level), a day in two places counting for both:")
        if report.units.isEmpty { print("  none") }
        for unit in report.units {
            print("  \(unit.name) (\(unit.code)): \(unit.days)" + (unit.days >= 183 ? "  — 183 days or more: check residency rules" : ""))
        }
    }

    static func csvField(_ text: String) -> String {
        text.contains(where: { ",\"\n\r".contains($0) }) ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
    }

    static func summaryLine(_ report: DaysReport) -> String {
        guard !report.units.isEmpty else { return "Days in \(report.year): none on the ground yet" }
        let top = report.units.prefix(5).map { "\($0.name) \($0.days)" }.joined(separator: ", ")
        let more = report.units.count > 5 ? ", … and \(report.units.count - 5) more" : ""
        return "Days in \(report.year) (\(report.timeZone)): \(top)\(more) (roqua stats days)"
    }
}

/// `roqua stats tiles`: explorer tiles, max cluster, max square.
struct TilesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tiles",
        abstract: "Explorer tiles (VeloViewer/Statshunters): visited tiles, max cluster, max square.",
        discussion: """
            Web-Mercator tiles at zoom 14 (~2.4 km at the equator, ~1.8 km in Türkiye) or 17 ("squadratinhos"), \
            visited when a ground fix lies in them; a cluster tile has its four neighbours visited; the max cluster \
            is the largest edge-connected group of those; the max square the largest N×N block of visited tiles.
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    /// Tiles come from the kept fixes alone; `--boundaries` is accepted (not shown) as for `stats days`.
    @OptionGroup(visibility: .hidden) var boundaryOptions: BoundaryOptions

    @Option(help: "14 or 17.")
    var zoom = 14

    @Flag(help: "Print one JSON document.")
    var json = false

    func validate() throws {
        guard zoom == 14 || zoom == 17 else { throw ValidationError("--zoom must be 14 or 17") }
    }

    func run() throws {
        let stats = TileStats(zoom: zoom, visited: try storeOptions.open(.readOnly).visitedTiles(zoom: zoom))
        if json { return try RoquaProgram.printJSON(stats) }
        print(Self.line(stats))
    }

    static func line(_ stats: TileStats) -> String {
        var line =
            "Explorer tiles (zoom \(stats.zoom)): \(stats.tiles.formatted(.number.grouping(.automatic))) visited, "
            + "max cluster \(stats.maxCluster), max square \(stats.maxSquare)×\(stats.maxSquare)"
        if let square = stats.square, square.size > 0 { line += " (top-left tile \(square.x),\(square.y))" }
        return line
    }
}

/// The time zone a command counts days in: `--time-zone`, else the system's (`TZ`), named as the
/// user named it (Foundation on Linux calls `TZ=UTC` "GMT").
enum TimeZones {
    /// The zone called `name` (an `--time-zone`), nil when none was given.
    /// - Throws: `ValidationError` naming an unknown zone.
    static func named(_ name: String?) throws -> TimeZone? {
        guard let name else { return nil }
        guard let zone = TimeZone(identifier: name) else {
            throw ValidationError("unknown time zone \(Echo.quoted(name)) (use an IANA name such as Europe/Istanbul)")
        }
        return zone
    }

    /// The zone called `name`, else `chosen(nil)`'s.
    /// - Throws: `ValidationError` naming an unknown zone.
    static func checked(_ name: String?) throws -> TimeZone { try named(name) ?? chosen(nil) }

    static func chosen(_ name: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> TimeZone {
        if let name, let zone = TimeZone(identifier: name) { return zone }
        if let tz = environment["TZ"], !tz.isEmpty, let zone = TimeZone(identifier: tz.hasPrefix(":") ? String(tz.dropFirst()) : tz) {
            return zone
        }
        return .current
    }
}
