import ArgumentParser
import Foundation
import RoquaBoundaries
import RoquaCommandLine
import RoquaCommandOptions
import RoquaRegions

struct RegionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "regions",
        abstract: "List visited regions, or fill in their names offline.",
        subcommands: [List.self, Enrich.self, Repair.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List visited regions (all, or those in one unit).")

        @OptionGroup var storeOptions: StoreOptions

        @Option(
            help: ArgumentHelp(
                "Only regions in this unit: a code (TR-34) or a name (istanbul, Kadıköy).",
                valueName: "NAME|CODE"))
        var unit: String?

        @Flag(help: "Print JSON.")
        var json = false

        func run() throws {
            let store = try storeOptions.open(.readOnly)
            let regions = try unit.map(store.regions(in:)) ?? store.allRegions()
            if json { return try RoquaProgram.printJSON(regions) }  // each region as its stored row
            for r in regions {
                // The locality first, unless it is the district's or province's own name (Şile, Şile).
                let town = r.locality.flatMap { $0 == r.district || $0 == r.province ? nil : $0 }
                let place = [town, r.district, r.province, r.country].compactMap { $0 }.joined(separator: ", ")
                let day = String(try StoreTime.text(r.timestampStart).prefix(10))
                print(
                    "#\(r.id ?? 0)  \(day)  \(r.visitCount) visit(s)  \(r.radius) m  \(r.geohash)  \(place.isEmpty ? "(not enriched)" : place)"
                )
            }
            print("\(regions.count) region(s)" + (unit.map { " in \($0)" } ?? ""))
        }
    }

    struct Enrich: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "enrich",
            abstract: "Fill in country / province / district of regions stored without them, offline.",
            discussion: "With --all, also regions named from another (older) boundary database."
        )

        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var boundaryOptions: BoundaryOptions

        @Flag(help: "Re-resolve every region named from another boundary database too.")
        var all = false

        func run() throws {
            let store = try storeOptions.open()
            let enricher = try RegionEnricher(boundaries: boundaryOptions.path)
            let stale = try store.regionsNeedingEnrichment(current: enricher.identity, all: all)
            let changed = try store.enrich(stale, with: enricher)
            print("Enriched \(stale.count) region(s); \(changed) changed")
        }
    }

    struct Repair: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "repair",
            abstract: "Remove stored regions that cannot be read back (written by an older Roqua or by hand).",
            discussion: "Every other command skips such rows with a warning; this deletes them, in one transaction, and lists them."
        )

        @OptionGroup var storeOptions: StoreOptions

        func run() throws {
            let removed = try storeOptions.open().removeUnreadableRegions()
            for row in removed { print("removed \(row)") }
            print("\(removed.count) unreadable region(s) removed")
        }
    }
}
