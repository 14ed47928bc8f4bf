import ArgumentParser
import Foundation
import RoquaBoundaries
import RoquaRegions

struct RegionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "regions",
        abstract: "List visited regions, or fill in their names offline.",
        subcommands: [List.self, Enrich.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List visited regions (all, or those in one unit).")

        @OptionGroup var storeOptions: StoreOptions

        @Option(help: ArgumentHelp("Only regions in this unit: a code (TR-34) or a name (istanbul, Kadıköy).",
                                   valueName: "NAME|CODE"))
        var unit: String?

        @Flag(help: "Print JSON.")
        var json = false

        func run() throws {
            let store = try storeOptions.open()
            let regions = try failing { try unit.map(store.regions(in:)) ?? store.allRegions() }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                encoder.keyEncodingStrategy = .convertToSnakeCase
                encoder.dateEncodingStrategy = .custom { date, encoder in
                    var container = encoder.singleValueContainer()
                    try container.encode(StoreTime.text(date))
                }
                print(String(decoding: try encoder.encode(regions), as: UTF8.self))
                return
            }
            for r in regions {
                let place = [r.district, r.city, r.country].compactMap { $0 }.joined(separator: ", ")
                let day = String(StoreTime.text(r.timestampStart).prefix(10))
                print("#\(r.id ?? 0)  \(day)  \(r.visitCount) visit(s)  \(r.radius) m  \(r.geohash)  \(place.isEmpty ? "(not enriched)" : place)")
            }
            print("\(regions.count) region(s)" + (unit.map { " in \($0)" } ?? ""))
        }
    }

    struct Enrich: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fill in country / province / district of regions stored without them, offline.",
            discussion: "With --all, also regions named from another (older) boundary database."
        )

        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var boundaryOptions: BoundaryOptions

        @Flag(help: "Re-resolve every region named from another boundary database too.")
        var all = false

        func run() throws {
            let store = try storeOptions.open()
            let changed = try failing {
                let enricher = try RegionEnricher(boundaries: boundaryOptions.path)
                let stale = try store.regionsNeedingEnrichment(current: enricher.identity, all: all)
                return (stale.count, try store.enrich(stale, with: enricher))
            }
            print("Enriched \(changed.0) region(s); \(changed.1) changed")
        }
    }
}
