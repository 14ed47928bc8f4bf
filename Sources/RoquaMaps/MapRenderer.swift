import Foundation
import RoquaBoundaries
import RoquaIO
import RoquaProgress
import RoquaRegions

/// How `MapRenderer.render` draws: picture size, level of the drawn units, fog and date zone.
public struct MapOptions: Sendable {
    /// Picture width in pixels; the height follows from the unit's shape.
    public var width: Double
    /// Draw the fog of war: a dark layer with the visited regions' circles lit.
    public var fog: Bool
    /// Draw the unit's descendants at this level instead of its children (e.g. Türkiye's districts).
    public var level: AdminLevel?
    /// The zone the legend's dates are days in.
    public var timeZone: TimeZone
    /// Grid step of the display simplification, pixels.
    public var quantum: Double
    /// Explorer tiles to draw over the units: the visited ones, the largest cluster, the max square.
    public var tiles: MapTiles?

    /// Creates options; the defaults draw a 1200-pixel-wide map of the unit's children without fog,
    /// with dates in the current time zone and a half-pixel simplification grid.
    public init(
        width: Double = 1200, fog: Bool = false, level: AdminLevel? = nil, timeZone: TimeZone = .current,
        quantum: Double = 0.5
    ) {
        self.width = width
        self.fog = fog
        self.level = level
        self.timeZone = timeZone
        self.quantum = quantum
    }
}

/// The explorer tiles a map draws (`roqua map --tiles`).
public struct MapTiles: Sendable {
    public var visited: Set<Tile>
    public var stats: TileStats

    public init(visited: Set<Tile>, stats: TileStats) {
        self.visited = visited
        self.stats = stats
    }

}

/// An SVG map and what it shows.
public struct RenderedMap: Sendable {
    /// The complete SVG document, UTF-8 text.
    public var svg: String
    /// The unit drawn and the codes of the units inside it.
    public var scope: MapScope
    /// How many of the drawn units the regions have visited.
    public var visited: Int
    /// How many units are drawn.
    public var total: Int
    /// Visited regions lit in the fog (those reaching into the picture); regions smaller than a
    /// pixel that share a quarter pixel are drawn as one circle, so the SVG may hold fewer.
    public var fogCircles: Int
    /// Visited explorer tiles drawn (those reaching into the picture).
    public var tilesDrawn = 0
    /// Start of the earliest region inside the unit, or `nil` when none is.
    public var firstVisit: Date?
    /// Latest visit (or end) of the regions inside the unit, or `nil` when none is.
    public var lastVisit: Date?
    /// Picture width in pixels, as asked for in `MapOptions.width`.
    public var width: Double
    /// Picture height in pixels: header, map area and legend.
    public var height: Double
    /// Longitude/latitude → pixels of the map area; the map area starts `mapTop` pixels down.
    public var projection: MapProjection
    /// Pixels from the top of the picture to the top of the map area (below the header).
    public var mapTop: Double
}

/// Draws a unit's children from the boundary DB: visited ones filled and labelled, the others
/// dim, with a legend and, on request, the fog of war.
public struct MapRenderer: Sendable {
    /// The boundary DB the unit geometry is read from.
    public let database: BoundaryDatabase
    /// The administrative tree of `database`, used to find the unit and its children.
    public let hierarchy: BoundaryHierarchy

    static let headerHeight = 52.0
    static let legendHeight = 64.0

    /// Creates a renderer over `database` with a hierarchy already read from it.
    public init(database: BoundaryDatabase, hierarchy: BoundaryHierarchy) {
        self.database = database
        self.hierarchy = hierarchy
    }

    /// Creates a renderer over `database`, reading its hierarchy first.
    ///
    /// - Throws: GRDB's `DatabaseError` when the units cannot be read from the DB.
    public init(database: BoundaryDatabase) throws {
        self.init(database: database, hierarchy: try BoundaryHierarchy(database: database))
    }

    /// Draws the children of the unit named `query` (or `world`), or its descendants at
    /// `options.level`, with the ones `regions` visited filled and labelled.
    ///
    /// - Parameters:
    ///   - query: A unit code or name, matched as `BoundaryHierarchy.unit(named:)` does, or `world`.
    ///   - regions: The visited regions; they decide which units are visited, the legend's dates
    ///     and, with `options.fog`, the lit circles.
    ///   - options: Size, level, fog and time zone.
    /// - Returns: The SVG and what it shows.
    /// - Throws: `MapError.badWidth` for a width outside 100…20000 pixels; `BoundaryHierarchy.LookupError`
    ///   for an unknown, ambiguous or too long `query`; `MapError.noSubdivisions` or
    ///   `MapError.nothingAtLevel` when there is nothing to draw at the wanted level;
    ///   `MapError.missingGeometry` when a unit has no geometry row; `GEOSError` when a unit's geometry
    ///   cannot be decoded; GRDB's `DatabaseError` when the DB cannot be read.
    public func render(unit query: String, regions: [VisitedRegion], options: MapOptions = MapOptions()) throws -> RenderedMap {
        try render(unit: query, facts: regions.map(RegionFacts.init), options: options)
    }

    /// As `render(unit:regions:options:)`, from what the map needs of each region (a million
    /// regions' facts are read in well under a second: `RegionStore.forEachRegionFacts`).
    public func render(unit query: String, facts regions: [RegionFacts], options: MapOptions = MapOptions()) throws -> RenderedMap {
        guard (100...20000).contains(options.width) else { throw MapError.badWidth(options.width) }
        let scope = try MapScope.resolve(query, level: options.level, in: hierarchy)
        let units = try MapUnit.load(scope.children, from: database)
        let firstVisits = ProgressCalculator(hierarchy: hierarchy, facts: regions).firstVisits
        let inside = regions.filter { scope.contains([$0.countryCode, $0.provinceCode, $0.districtCode]) }
        let visited = units.filter { firstVisits[$0.code] != nil }
        let first = inside.map(\.start).min()
        let last = inside.map { max($0.lastVisit, $0.end ?? $0.lastVisit) }.max()
        let plural = Self.plural(scope.childLevel)

        var drawing = MapDrawing(units: units, world: scope.code == MapScope.worldCode, options: options)
        drawing.begin(title: "\(scope.name): \(visited.count)/\(units.count) \(plural) visited")
        drawing.drawUnits(units, visited: { firstVisits[$0.code] != nil })
        let circles = options.fog ? drawing.drawFog(regions) : 0
        let tilesDrawn = options.tiles.map { drawing.drawTiles($0) } ?? 0
        // Visited towns and cities below the world's scale: a dot each, names where there is room.
        let places = scope.code == MapScope.worldCode ? [] : try MapLocality.load(inside, from: database)
        drawing.drawLabels(visited: visited, places: places, unitNames: Set(units.map(\.name)))
        drawing.drawLegend(
            title: scope.name, plural: plural,
            count: "Visited \(visited.count)/\(units.count) \(plural)",
            dates: Self.dateRange(first, last, options.timeZone), circles: circles)
        var map = RenderedMap(
            svg: drawing.svg.text, scope: scope, visited: visited.count, total: units.count, fogCircles: circles,
            firstVisit: first, lastVisit: last, width: options.width, height: drawing.height,
            projection: drawing.projection, mapTop: Self.headerHeight)
        map.tilesDrawn = tilesDrawn
        return map
    }

    /// The smallest lit circle drawn, pixels.
    package static let minimumLitRadius = 2.0

    static func plural(_ level: String) -> String { level == "country" ? "countries" : level + "s" }

    /// `Visits 1 May 2024 – 3 May 2024`, or a note that there are none.
    static func dateRange(_ first: Date?, _ last: Date?, _ zone: TimeZone) -> String {
        guard let first, let last else { return "No visits here yet" }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "d MMM yyyy"
        let a = formatter.string(from: first), b = formatter.string(from: last)
        return a == b ? "Visits on \(a)" : "Visits \(a) – \(b)"
    }
}

/// A pixel quantity to a tenth.
func n(_ value: Double) -> String { SVGNumber.format(value) }

struct SVGWriter {
    private(set) var text = ""
    mutating func line(_ s: String) {
        text += s
        text += "\n"
    }
}
