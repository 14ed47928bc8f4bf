import ArgumentParser
import Foundation
import RoquaBoundaries
import RoquaProgress
import RoquaRegions

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Progress: countries, x/N provinces and districts, explored area, world %, streaks.",
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
        if let timeZone, TimeZone(identifier: timeZone) == nil {
            throw ValidationError("unknown time zone '\(timeZone)' (use an IANA name such as Europe/Istanbul)")
        }
    }

    func run() throws {
        let zone = timeZone.flatMap(TimeZone.init(identifier:)) ?? .current
        let regions = try storeOptions.open(.readOnly).allRegions()
        let hierarchy = try BoundaryHierarchy(database: boundaryOptions.open())
        if let unit {
            let found = try hierarchy.unit(named: unit)
            let calculator = ProgressCalculator(hierarchy: hierarchy, regions: regions)
            guard let progress = calculator.progress(of: found.code) else {
                throw Failure("\(found.name) (\(found.code)) has no subdivisions in the boundary database")
            }
            if json { return try Terminal.printJSON(progress, dates: zone) }
            print(progress.label + (progress.firstVisit.map { ", first visited \(Self.day($0, zone))" } ?? ""))
            print("Visited:")
            for child in progress.visitedChildren { print("  \(child.name) (\(child.code)), since \(Self.day(child.firstVisit!, zone))") }
            print("Not yet visited:")
            print("  " + (progress.notVisitedChildren.isEmpty ? "none" : progress.notVisitedChildren.map(\.name).joined(separator: ", ")))
            return
        }
        let report = try ProgressReport(regions: regions, hierarchy: hierarchy, options: .init(timeZone: zone, decimals: decimals))
        if json { return try Terminal.printJSON(report, dates: zone) }
        print(report.text)
    }

    static func day(_ date: Date, _ zone: TimeZone) -> String {
        Streaks.day(of: date, in: zone).description
    }
}
