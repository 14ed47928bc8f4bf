import ArgumentParser
import Foundation
import RoquaBoundaries
import RoquaCommandOptions
import RoquaIO
import RoquaMaps
import RoquaProgress
import RoquaRegions

struct MapCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "map",
        abstract: "Draw a unit's districts, provinces or countries as an SVG map: visited ones filled, with fog of war.",
        discussion: """
            Drawn offline from the boundary database, no tiles. --unit world draws every country; \
            --level draws deeper units (e.g. --unit TR --level district: Türkiye's 973 districts).
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var boundaryOptions: BoundaryOptions

    @Option(help: ArgumentHelp("The unit: a code (TR-34), a name (istanbul, Türkiye), or world.", valueName: "NAME|CODE"))
    var unit: String

    @Option(help: ArgumentHelp("The SVG file to write.", valueName: "FILE.svg"))
    var out: String

    @Flag(help: "Also write a PNG next to the SVG (needs rsvg-convert, Debian package librsvg2-bin).")
    var png = false

    @Flag(help: "Cover the map in fog, lit where the visited regions are.")
    var fog = false

    @Option(help: ArgumentHelp("Picture width in pixels.", valueName: "PX"))
    var width = 1200

    @Option(
        help: ArgumentHelp(
            "Draw the unit's units at this level (country, province, district) instead of its children.",
            valueName: "LEVEL"))
    var level: String?

    @Option(help: ArgumentHelp("Time zone of the legend's dates (default: the system's).", valueName: "TZ"))
    var timeZone: String?

    @Flag(help: "Draw the explorer tiles: visited zoom-14 tiles, the largest cluster darker, the max square outlined.")
    var tiles = false

    @Option(help: ArgumentHelp("The tiles' zoom with --tiles: 14 or 17.", valueName: "ZOOM"))
    var tileZoom = 14

    func validate() throws {
        guard (100...20000).contains(width) else { throw ValidationError("--width must be between 100 and 20000 pixels") }
        if let level, AdminLevel(name: level) == nil {
            throw ValidationError("unknown level '\(level)' (use country, province or district)")
        }
        _ = try TimeZones.named(timeZone)
        guard tileZoom == 14 || tileZoom == 17 else { throw ValidationError("--tile-zoom must be 14 or 17") }
    }

    func run() throws {
        var options = MapOptions(
            width: Double(width), fog: fog, level: level.flatMap(AdminLevel.init(name:)),
            timeZone: timeZone.flatMap(TimeZone.init(identifier:)) ?? .current)
        let store = try storeOptions.open(.readOnly)
        if tiles {
            let visited = try store.visitedTiles(zoom: tileZoom)
            options.tiles = MapTiles(visited: visited, stats: TileStats(zoom: tileZoom, visited: visited))
        }
        let renderer = try MapRenderer(database: boundaryOptions.open())
        let map = try renderer.render(unit: unit, facts: try storeOptions.regionFacts(store), options: options)
        try OutputFile.write(Array(map.svg.utf8), to: out)
        let size = ByteCountFormatter.string(fromByteCount: Int64(map.svg.utf8.count), countStyle: .file)
        print(
            "\(out): \(map.scope.name), \(map.visited)/\(map.total) \(map.scope.childLevel == "country" ? "countries" : map.scope.childLevel + "s") visited"
                + (fog ? ", \(map.fogCircles) regions lit" : "")
                + (tiles ? ", \(map.tilesDrawn) tile\(map.tilesDrawn == 1 ? "" : "s")" : "")
                + " (\(Int(map.width))×\(Int(map.height)) px, \(size))")
        if png {
            let pngPath = PNGConverter.pngPath(for: out)
            try PNGConverter.convert(svg: out, to: pngPath)
            print(pngPath)
        }
    }
}
