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
        abstract: "Draw a unit's districts, provinces or countries as an SVG map: visited ones filled, with fog of war; "
            + "or, with --heat, a PNG of everywhere you have been.",
        discussion: """
            Drawn offline from the boundary database, no tiles. --unit world draws every country; \
            --level draws deeper units (e.g. --unit TR --level district: Türkiye's 973 districts). \
            --heat draws the kept fixes' heat map (the same as roqua serve's heat layer) over a light \
            ground: the box every fix lies in, or --bbox, at the deepest zoom that fits --width.
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var boundaryOptions: BoundaryOptions

    @Option(help: ArgumentHelp("The unit: a code (TR-34), a name (istanbul, Türkiye), or world.", valueName: "NAME|CODE"))
    var unit: String?

    @Option(help: ArgumentHelp("The SVG file to write (a PNG with --heat).", valueName: "FILE"))
    var out: String

    @Flag(help: "Draw the heat map of every kept fix as a PNG instead (no --unit).")
    var heat = false

    @Option(help: ArgumentHelp("With --heat: the area, south,west,north,east in degrees (default: all your fixes).", valueName: "S,W,N,E"))
    var bbox: String?

    @Option(help: ArgumentHelp("With --heat: only the fixes of this day on (in --time-zone).", valueName: "DAY"))
    var from: String?

    @Option(help: ArgumentHelp("With --heat: only the fixes through this day.", valueName: "DAY"))
    var to: String?

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
        if heat {
            guard unit == nil, !fog, !tiles, !png, level == nil else {
                throw ValidationError("--heat draws every kept fix: no --unit, --fog, --tiles, --png or --level")
            }
            _ = try box()
            _ = try span()
        } else {
            guard unit != nil else { throw ValidationError("--unit is required (or --heat)") }
            guard bbox == nil, from == nil, to == nil else { throw ValidationError("--bbox, --from and --to go with --heat") }
        }
        if let level, AdminLevel(name: level) == nil {
            throw ValidationError("unknown level '\(level)' (use country, province or district)")
        }
        _ = try TimeZones.named(timeZone)
        guard tileZoom == 14 || tileZoom == 17 else { throw ValidationError("--tile-zoom must be 14 or 17") }
    }

    /// `--bbox` read: nil when not given.
    /// - Throws: `ValidationError` naming what is wrong.
    func box() throws -> (south: Double, west: Double, north: Double, east: Double)? {
        guard let bbox else { return nil }
        let parts = bbox.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 4, let s = parts[0], let w = parts[1], let n = parts[2], let e = parts[3] else {
            throw ValidationError("--bbox \(Echo.quoted(bbox)) is not south,west,north,east (e.g. 40.8,28.6,41.3,29.4)")
        }
        guard (-90...90).contains(s), (-90...90).contains(n), s < n, (-180...180).contains(w), (-180...180).contains(e), w < e else {
            throw ValidationError("--bbox \(Echo.quoted(bbox)): south < north within ±90, west < east within ±180")
        }
        return (s, w, n, e)
    }

    /// `--from`/`--to` as an instant span (the days in --time-zone, both included); nil for neither.
    /// - Throws: `ValidationError` naming what is wrong.
    func span() throws -> (from: Date, to: Date)? {
        guard from != nil || to != nil else { return nil }
        guard let from, let to else { throw ValidationError("--from and --to go together") }
        let (start, end) = try LocalTime.span(from: from, to: to, zone: timeZone, toDayIncluded: true)
        return (start, end)
    }

    func run() throws {
        if heat { return try drawHeat() }
        guard let unit else { throw ValidationError("--unit is required (or --heat)") }
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

    private func drawHeat() throws {
        let store = try storeOptions.open(.readOnly)
        let poster = try HeatPoster(store: store, box: try box(), width: width, span: try span())
        try OutputFile.write(poster.png, to: out)
        let size = ByteCountFormatter.string(fromByteCount: Int64(poster.png.count), countStyle: .file)
        let b = poster.box
        print(
            "\(out): heat of \(from.map { "\($0) … \(to ?? $0)" } ?? "every kept fix"), "
                + String(format: "%.4f,%.4f,%.4f,%.4f", b.south, b.west, b.north, b.east)
                + " at zoom \(poster.zoom), \(poster.litTiles) tile(s) lit (\(poster.width)×\(poster.height) px, \(size))")
    }
}
