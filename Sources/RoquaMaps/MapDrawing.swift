import Foundation
import RoquaBoundaries
import RoquaIO
import RoquaProgress
import RoquaRegions

/// One SVG map as `MapRenderer.render` draws it, layer by layer from the bottom: the frame and
/// style, the units, the fog, the explorer tiles, the labels and places, the title and legend.
struct MapDrawing {
    private(set) var svg = SVGWriter()
    let projection: MapProjection
    let encoder: PathEncoder
    let width: Double
    /// The map area's height; the area starts `top` pixels down, below the header.
    let mapHeight: Double
    let top = MapRenderer.headerHeight
    /// Header, map area and legend.
    let height: Double
    /// Over 120 units: thinner strokes, smaller labels, crowded labels dropped.
    let many: Bool
    let fontSize: Double
    let options: MapOptions

    /// The frame around `units` (the world's without Antarctica, which would fill half of Mercator).
    init(units: [MapUnit], world: Bool, options: MapOptions) {
        var box = units.dropFirst().reduce(units[0].box) { box, unit in
            BoundingBox(
                minX: min(box.minX, unit.box.minX), minY: min(box.minY, unit.box.minY),
                maxX: max(box.maxX, unit.box.maxX), maxY: max(box.maxY, unit.box.maxY))
        }
        if world { box.minY = max(box.minY, -58) }
        projection = MapProjection(fitting: box, width: options.width, margin: 12)
        encoder = PathEncoder(projection: projection, quantum: options.quantum, offsetY: MapRenderer.headerHeight)
        width = options.width
        mapHeight = projection.height
        height = MapRenderer.headerHeight + mapHeight + MapRenderer.legendHeight
        many = units.count > 120
        fontSize = (min(max(width / 100, 8), 13) * (many ? 0.7 : 1)).rounded()
        self.options = options
    }

    /// The document's opening, its title, the style of every layer, the background and the sea.
    mutating func begin(title: String) {
        svg.line(#"<?xml version="1.0" encoding="UTF-8"?>"#)
        svg.line(
            #"<svg xmlns="http://www.w3.org/2000/svg" width="\#(n(width))" height="\#(n(height))" "#
                + #"viewBox="0 0 \#(n(width)) \#(n(height))">"#)
        svg.line("<title>\(XMLText.escape(title))</title>")
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
        svg.line(#"<rect class="sea" x="0" y="\#(n(top))" width="\#(n(width))" height="\#(n(mapHeight))"/>"#)
    }

    /// Every unit, filled as visited or not, clipped to the map area.
    mutating func drawUnits(_ units: [MapUnit], visited: (MapUnit) -> Bool) {
        svg.line(
            #"<clipPath id="map-area"><rect x="0" y="\#(n(top))" width="\#(n(width))" "#
                + #"height="\#(n(mapHeight))"/></clipPath>"#)
        svg.line(#"<g id="units" clip-path="url(#map-area)">"#)
        for unit in units {
            var d = encoder.pathData(unit.polygons)
            if d.isEmpty {  // Too small to show at this scale: a 2-pixel square keeps it on the map.
                let p = projection.point(longitude: unit.labelPoint.longitude, latitude: unit.labelPoint.latitude)
                d = "M\(n(p.x - 1)) \(n(p.y + top - 1))l2 0 0 2-2 0z"
            }
            let state = visited(unit) ? "visited" : "unvisited"
            svg.line(
                #"<path class="unit \#(state)" data-code="\#(XMLText.escape(unit.code))" d="\#(d)"><title>\#(XMLText.escape(unit.name))</title></path>"#
            )
        }
        svg.line("</g>")
    }

    /// The fog with a circle lit for each region reaching into the picture; returns how many.
    mutating func drawFog(_ regions: [RegionFacts]) -> Int {
        let bottom = top + mapHeight
        var circles = 0
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
            let r = max(Double(region.radius) * projection.pixelsPerMetre(atLatitude: region.latitude), MapRenderer.minimumLitRadius)
            let y = p.y + top
            guard p.x + r >= 0, p.x - r <= width, y + r >= top, y - r <= bottom else { continue }
            circles += 1
            if r == MapRenderer.minimumLitRadius,
                !drawnDots.insert(Int64((p.x * 4).rounded()) << 32 | Int64((y * 4).rounded()) & 0xFFFF_FFFF).inserted
            {
                continue
            }
            svg.line(#"<circle cx="\#(n(p.x))" cy="\#(n(y))" r="\#(n(r))" fill="black"/>"#)
        }
        svg.line("</mask>")
        svg.line(#"<rect class="fog" x="0" y="\#(n(top))" width="\#(n(width))" height="\#(n(mapHeight))" mask="url(#fog-mask)"/></g>"#)
        return circles
    }

    /// The visited explorer tiles, the largest cluster's darker, and the max square; returns how
    /// many tiles reach into the picture.
    mutating func drawTiles(_ tiles: MapTiles) -> Int {
        let zoom = tiles.stats.zoom, bottom = top + mapHeight
        let cluster = Set(tiles.stats.cluster)
        let (projection, width, top) = (projection, width, top)
        func rect(_ tile: Tile, _ size: Int = 1) -> (x: Double, y: Double, w: Double, h: Double)? {
            let a = tile.bounds(zoom: zoom), b = Tile(x: tile.x + size - 1, y: tile.y + size - 1).bounds(zoom: zoom)
            let p = projection.point(longitude: a.west, latitude: a.north), q = projection.point(longitude: b.east, latitude: b.south)
            // At least a pixel, so a tile stays visible at a country's scale.
            let w = max(q.x - p.x, 1), h = max(q.y - p.y, 1)
            guard p.x + w >= 0, p.x <= width, p.y + top + h >= top, p.y + top <= bottom else { return nil }
            return (p.x, p.y + top, w, h)
        }
        var drawn = 0
        svg.line(#"<g id="tiles" clip-path="url(#map-area)">"#)
        for tile in tiles.visited.sorted() {
            guard let r = rect(tile) else { continue }
            drawn += 1
            svg.line(
                #"<rect class="tile\#(cluster.contains(tile) ? " cluster" : "")" x="\#(n(r.x))" y="\#(n(r.y))" "#
                    + #"width="\#(n(r.w))" height="\#(n(r.h))"/>"#)
        }
        if let square = tiles.stats.square, let r = rect(Tile(x: square.x, y: square.y), square.size) {
            svg.line(#"<rect class="square" x="\#(n(r.x))" y="\#(n(r.y))" width="\#(n(r.w))" height="\#(n(r.h))"/>"#)
        }
        svg.line("</g>")
        return drawn
    }

    /// The visited units' names (the biggest placed first), then a dot for each visited place in
    /// the picture and its name where there is room (not when a unit has the same name).
    mutating func drawLabels(visited: [MapUnit], places: [MapLocality], unitNames: Set<String>) {
        var placer = LabelPlacer(fontSize: fontSize, dropCrowded: many)
        let biggestFirst = visited.sorted {
            ($0.box.maxX - $0.box.minX) * ($0.box.maxY - $0.box.minY) > ($1.box.maxX - $1.box.minX) * ($1.box.maxY - $1.box.minY)
        }
        for unit in biggestFirst {
            let p = projection.point(longitude: unit.labelPoint.longitude, latitude: unit.labelPoint.latitude)
            placer.place(unit.name, x: p.x, y: p.y + top)
        }
        var placeLabels: [LabelPlacer.Label] = []
        var dots: [(x: Double, y: Double)] = []
        for place in places {
            let p = projection.point(longitude: place.longitude, latitude: place.latitude)
            let y = p.y + top
            guard p.x >= 0, p.x <= width, y >= top, y <= top + mapHeight else { continue }
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
    }

    /// The title above the map, the legend below it (each swatch drawn as the map draws that
    /// state), and the document's end.
    mutating func drawLegend(title: String, plural: String, count: String, dates: String, circles: Int) {
        svg.line(#"<text class="title" x="16" y="30">\#(XMLText.escape(title))</text>"#)
        svg.line(#"<text class="subtitle" x="16" y="46">\#(XMLText.escape(plural.capitalized)) drawn from Roqua's boundary data</text>"#)
        let legendTop = top + mapHeight + 14
        svg.line(#"<g class="legend" transform="translate(16,\#(n(legendTop)))">"#)
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
    }

    /// A legend swatch drawn as the map draws that state: under the fog where the map has fog.
    private mutating func swatch(_ state: String, x: Int, fogged: Bool) {
        svg.line(
            #"<rect class="swatch \#(state)" x="\#(x)" width="14" height="14"/>"#
                + (fogged ? #"<rect class="fog" x="\#(x)" width="14" height="14"/>"# : ""))
    }
}
