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

        var box = units.dropFirst().reduce(units[0].box) { box, unit in
            BoundingBox(
                minX: min(box.minX, unit.box.minX), minY: min(box.minY, unit.box.minY),
                maxX: max(box.maxX, unit.box.maxX), maxY: max(box.maxY, unit.box.maxY))
        }
        if scope.code == MapScope.worldCode { box.minY = max(box.minY, -58) }  // Antarctica would fill half of Mercator
        let projection = MapProjection(fitting: box, width: options.width, margin: 12)
        let encoder = PathEncoder(projection: projection, quantum: options.quantum, offsetY: Self.headerHeight)
        let width = options.width, mapHeight = projection.height
        let height = Self.headerHeight + mapHeight + Self.legendHeight

        let visited = units.filter { firstVisits[$0.code] != nil }
        let first = inside.map(\.start).min()
        let last = inside.map { max($0.lastVisit, $0.end ?? $0.lastVisit) }.max()
        let many = units.count > 120
        let fontSize = (min(max(width / 100, 8), 13) * (many ? 0.7 : 1)).rounded()

        var svg = SVGWriter()
        svg.line(#"<?xml version="1.0" encoding="UTF-8"?>"#)
        svg.line(
            #"<svg xmlns="http://www.w3.org/2000/svg" width="\#(n(width))" height="\#(n(height))" "#
                + #"viewBox="0 0 \#(n(width)) \#(n(height))">"#)
        let plural = Self.plural(scope.childLevel)
        svg.line("<title>\(XMLText.escape("\(scope.name): \(visited.count)/\(units.count) \(plural) visited"))</title>")
        svg.line("<style>")
        svg.line("svg{font-family:'DejaVu Sans',Verdana,sans-serif}")
        svg.line(".background{fill:#f3f1ec}.sea{fill:#dde8ef}")
        svg.line(".unit{stroke:#ffffff;stroke-width:\(many ? "0.3" : "0.8");stroke-linejoin:round;fill-rule:evenodd}")
        svg.line(".visited{fill:#e2703a}.unvisited{fill:#cfcabd}")
        svg.line(
            ".label{font-size:\(n(fontSize))px;font-weight:bold;fill:#1c1c1c;text-anchor:middle;"
                + "paint-order:stroke;stroke:#ffffff;stroke-width:\(n(fontSize / 4))px;stroke-linejoin:round}")
        svg.line(".fog{fill:#0e1424;opacity:0.72}")
        svg.line(
            ".tile{fill:#2f6fb3;fill-opacity:0.35;stroke:#2f6fb3;stroke-width:0.4}.cluster{fill:#17457a;fill-opacity:0.6}"
                + ".square{fill:none;stroke:#c2185b;stroke-width:2.5}")
        svg.line(
            ".place{fill:#1c1c1c;stroke:#ffffff;stroke-width:1}.place-label{font-size:\(n(fontSize * 0.85))px;fill:#1c1c1c;"
                + "text-anchor:middle;paint-order:stroke;stroke:#ffffff;stroke-width:\(n(fontSize / 5))px;stroke-linejoin:round}")
        svg.line(".title{font-size:20px;font-weight:bold;fill:#1c1c1c}.subtitle{font-size:12px;fill:#555555}")
        svg.line(".legend{font-size:13px;fill:#2a2a2a}.swatch{stroke:#8a8578;stroke-width:0.5}")
        svg.line("</style>")
        svg.line(#"<rect class="background" width="\#(n(width))" height="\#(n(height))"/>"#)
        svg.line(#"<rect class="sea" x="0" y="\#(n(Self.headerHeight))" width="\#(n(width))" height="\#(n(mapHeight))"/>"#)

        svg.line(
            #"<clipPath id="map-area"><rect x="0" y="\#(n(Self.headerHeight))" width="\#(n(width))" "#
                + #"height="\#(n(mapHeight))"/></clipPath>"#)
        svg.line(#"<g id="units" clip-path="url(#map-area)">"#)
        for unit in units {
            var d = encoder.pathData(unit.polygons)
            if d.isEmpty {  // Too small to show at this scale: a 2-pixel square keeps it on the map.
                let p = projection.point(longitude: unit.labelPoint.longitude, latitude: unit.labelPoint.latitude)
                d = "M\(n(p.x - 1)) \(n(p.y + Self.headerHeight - 1))l2 0 0 2-2 0z"
            }
            let state = firstVisits[unit.code] == nil ? "unvisited" : "visited"
            svg.line(
                #"<path class="unit \#(state)" data-code="\#(XMLText.escape(unit.code))" d="\#(d)"><title>\#(XMLText.escape(unit.name))</title></path>"#
            )
        }
        svg.line("</g>")

        var circles = 0
        if options.fog {
            let top = Self.headerHeight, bottom = Self.headerHeight + mapHeight
            svg.line(
                #"<g id="fog"><mask id="fog-mask" maskUnits="userSpaceOnUse" x="0" y="\#(n(top))" "#
                    + #"width="\#(n(width))" height="\#(n(mapHeight))">"#)
            svg.line(#"<rect x="0" y="\#(n(top))" width="\#(n(width))" height="\#(n(mapHeight))" fill="white"/>"#)
            // Regions drawn at the smallest radius (smaller in truth) whose centres fall in the same
            // quarter pixel as one already drawn light nothing more: one circle stands for them all
            // (a million regions on the world map are a few thousand circles, not a 300 MB mask).
            var drawnDots = Set<Int64>()
            for region in regions {
                let p = projection.point(longitude: region.longitude, latitude: region.latitude)
                // At least 2 px, so a walk stays visible at a province's or a country's scale.
                let r = max(Double(region.radius) * projection.pixelsPerMetre(atLatitude: region.latitude), Self.minimumLitRadius)
                let y = p.y + top
                guard p.x + r >= 0, p.x - r <= width, y + r >= top, y - r <= bottom else { continue }
                circles += 1
                if r == Self.minimumLitRadius,
                    !drawnDots.insert(Int64((p.x * 4).rounded()) << 32 | Int64((y * 4).rounded()) & 0xFFFF_FFFF).inserted
                {
                    continue
                }
                svg.line(#"<circle cx="\#(n(p.x))" cy="\#(n(y))" r="\#(n(r))" fill="black"/>"#)
            }
            svg.line("</mask>")
            svg.line(#"<rect class="fog" x="0" y="\#(n(top))" width="\#(n(width))" height="\#(n(mapHeight))" mask="url(#fog-mask)"/></g>"#)
        }

        var tilesDrawn = 0
        if let tiles = options.tiles {
            let zoom = tiles.stats.zoom, top = Self.headerHeight, bottom = Self.headerHeight + mapHeight
            let cluster = Set(tiles.stats.cluster)
            func rect(_ tile: Tile, _ size: Int = 1) -> (x: Double, y: Double, w: Double, h: Double)? {
                let a = tile.bounds(zoom: zoom), b = Tile(x: tile.x + size - 1, y: tile.y + size - 1).bounds(zoom: zoom)
                let p = projection.point(longitude: a.west, latitude: a.north), q = projection.point(longitude: b.east, latitude: b.south)
                // At least a pixel, so a tile stays visible at a country's scale.
                let w = max(q.x - p.x, 1), h = max(q.y - p.y, 1)
                guard p.x + w >= 0, p.x <= width, p.y + top + h >= top, p.y + top <= bottom else { return nil }
                return (p.x, p.y + top, w, h)
            }
            svg.line(#"<g id="tiles" clip-path="url(#map-area)">"#)
            for tile in tiles.visited.sorted() {
                guard let r = rect(tile) else { continue }
                tilesDrawn += 1
                svg.line(
                    #"<rect class="tile\#(cluster.contains(tile) ? " cluster" : "")" x="\#(n(r.x))" y="\#(n(r.y))" "#
                        + #"width="\#(n(r.w))" height="\#(n(r.h))"/>"#)
            }
            if let square = tiles.stats.square, let r = rect(Tile(x: square.x, y: square.y), square.size) {
                svg.line(#"<rect class="square" x="\#(n(r.x))" y="\#(n(r.y))" width="\#(n(r.w))" height="\#(n(r.h))"/>"#)
            }
            svg.line("</g>")
        }

        var placer = LabelPlacer(fontSize: fontSize, dropCrowded: many)
        let biggestFirst = visited.sorted {
            ($0.box.maxX - $0.box.minX) * ($0.box.maxY - $0.box.minY) > ($1.box.maxX - $1.box.minX) * ($1.box.maxY - $1.box.minY)
        }
        for unit in biggestFirst {
            let p = projection.point(longitude: unit.labelPoint.longitude, latitude: unit.labelPoint.latitude)
            placer.place(unit.name, x: p.x, y: p.y + Self.headerHeight)
        }
        // Visited towns and cities below the world's scale: a dot each, names where there is room.
        let places = scope.code == MapScope.worldCode ? [] : try MapLocality.load(inside, from: database)
        var placeLabels: [LabelPlacer.Label] = []
        var dots: [(x: Double, y: Double)] = []
        let unitNames = Set(units.map(\.name))  // a town named as its district (Ataşehir) is not named twice
        for place in places {
            let p = projection.point(longitude: place.longitude, latitude: place.latitude)
            let y = p.y + Self.headerHeight
            guard p.x >= 0, p.x <= width, y >= Self.headerHeight, y <= Self.headerHeight + mapHeight else { continue }
            dots.append((p.x, y))
            if !unitNames.contains(place.name),
                let label = placer.placeIfFree(place.name, x: p.x, y: y - fontSize, fontSize: fontSize * 0.85)
            {
                placeLabels.append(label)
            }
        }
        if !dots.isEmpty {
            svg.line(#"<g id="localities">"#)
            for dot in dots { svg.line(#"<circle class="place" cx="\#(n(dot.x))" cy="\#(n(dot.y))" r="2.5"/>"#) }
            for label in placeLabels {
                svg.line(
                    #"<text class="place-label" x="\#(n(label.x))" y="\#(n(label.y + fontSize * 0.3))">\#(XMLText.escape(label.text))</text>"#
                )
            }
            svg.line("</g>")
        }
        svg.line(#"<g id="labels">"#)
        for label in placer.labels {
            let y = label.y + fontSize * 0.35  // the baseline, so the text is centred on the anchor
            svg.line(#"<text class="label" x="\#(n(label.x))" y="\#(n(y))">\#(XMLText.escape(label.text))</text>"#)
        }
        svg.line("</g>")

        svg.line(#"<text class="title" x="16" y="30">\#(XMLText.escape(scope.name))</text>"#)
        svg.line(#"<text class="subtitle" x="16" y="46">\#(XMLText.escape(plural.capitalized)) drawn from Roqua's boundary data</text>"#)
        let dates = Self.dateRange(first, last, options.timeZone)
        let legendTop = Self.headerHeight + mapHeight + 14
        svg.line(#"<g class="legend" transform="translate(16,\#(n(legendTop)))">"#)
        // Each swatch is drawn as the map draws that state: under the fog where the map has fog.
        func swatch(_ state: String, x: Int, fogged: Bool) {
            svg.line(
                #"<rect class="swatch \#(state)" x="\#(x)" width="14" height="14"/>"#
                    + (fogged ? #"<rect class="fog" x="\#(x)" width="14" height="14"/>"# : ""))
        }
        let count = "Visited \(visited.count)/\(units.count) \(plural)"
        if options.fog {
            swatch("visited", x: 0, fogged: false)
            svg.line(#"<text x="20" y="11">\#(count), lit where you went</text>"#)
            swatch("visited", x: 330, fogged: true)
            svg.line(#"<text x="350" y="11">Visited, unexplored</text>"#)
            swatch("unvisited", x: 500, fogged: true)
            svg.line(#"<text x="520" y="11">Not yet visited</text>"#)
        } else {
            swatch("visited", x: 0, fogged: false)
            svg.line(#"<text x="20" y="11">\#(count)</text>"#)
            swatch("unvisited", x: 220, fogged: false)
            svg.line(#"<text x="240" y="11">Not yet visited</text>"#)
        }
        if let tiles = options.tiles {
            let stats = tiles.stats
            svg.line(
                #"<rect class="swatch tile" x="360" y="22" width="14" height="14"/><rect class="swatch cluster" x="380" y="22" width="14" height="14"/>"#
            )
            svg.line(#"<text x="400" y="34">\#(stats.tiles) zoom-\#(stats.zoom) tiles, max cluster \#(stats.maxCluster)</text>"#)
            svg.line(#"<rect class="square" x="660" y="22" width="14" height="14"/>"#)
            svg.line(#"<text x="680" y="34">Max square \#(stats.maxSquare)×\#(stats.maxSquare)</text>"#)
        }
        svg.line(#"<text y="34">\#(XMLText.escape(dates + (options.fog ? " · \(circles) regions lit" : "")))</text>"#)
        svg.line("</g>")
        svg.line("</svg>")
        var map = RenderedMap(
            svg: svg.text, scope: scope, visited: visited.count, total: units.count, fogCircles: circles,
            firstVisit: first, lastVisit: last, width: width, height: height,
            projection: projection, mapTop: Self.headerHeight)
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
