import Foundation
import RoquaBoundaries

/// Limits of the quadtree: how far cells are cut, and when.
package struct CellLimits: Sendable {
    /// A mixed cell with more edges than this (of the units that can matter there) is cut in four.
    package var edgesPerCell = 48
    /// A cell with nothing in it but units near its edge is cut while wider than this many search radii.
    package var emptyCellRadii = 8.0
    package var maxDepth = 18
    /// Beyond this search radius (degrees, near the poles) a cell that needs the fallback is left to GEOS.
    package var maxRadiusDegrees = 2.0

    package init() {}
}

/// What the quadtree of one tile is built from: its box, the edges near it and the units
/// covering its reference point.
struct TileSeed: Sendable {
    var tile: Int
    var box: BoundingBox
    var reference: (x: Double, y: Double)
    /// Edges whose box meets the tile widened by the search radius (ascending).
    var edges: [Int32]
    /// Units whose box meets the tile: whether each covers the reference point (only units
    /// with edges in the tile, or covering it, are kept).
    var status: [(unit: Int32, inside: Bool)]
}

/// Builds one tile's quadtree (see `CellFormat`): cuts cells until each is empty, one answer,
/// or few enough edges, and writes each mixed leaf's record with edge runs as global vertex
/// numbers (`CellTileEncoder` renumbers them).
struct CellTileBuilder {
    struct Leaf {
        var reference: (x: Double, y: Double)
        /// Per unit in decision order: covers the whole leaf, reference inside, runs (global).
        var entries: [(unit: Int32, coversAll: Bool, inside: Bool, runs: [(Int32, Int32)])]
        /// Index into `nearLists`, nil for none.
        var near: Int?
        var usesGeometry: Bool
    }

    /// Nearby units with their edges' runs, deepest level first; shared by the leaves of an area.
    typealias NearList = [(unit: Int32, runs: [(Int32, Int32)])]

    let geometry: CellEdges
    let units: UnitTable
    let limits: CellLimits
    let fallbackMeters: Double
    private(set) var nodes: [UInt32] = [0]
    private(set) var leaves: [Leaf] = []
    private(set) var nearLists: [NearList] = []
    private var grid: TileEdgeGrid?
    /// Areas up to four search radii wide whose leaves share one list of nearby units:
    /// the box and, once a leaf asked for it, the list's index.
    private var anchors: [(box: BoundingBox, list: Int?)] = []

    init(geometry: CellEdges, units: UnitTable, limits: CellLimits, fallbackMeters: Double) {
        self.geometry = geometry
        self.units = units
        self.limits = limits
        self.fallbackMeters = fallbackMeters
    }

    /// Fills `nodes` and `leaves` for the tile; the root's value is `nodes[0]`.
    mutating func build(_ seed: TileSeed) {
        grid = TileEdgeGrid(box: seed.box, reach: reach(seed.box), edges: seed.edges, geometry: geometry)
        var inCell: [Int32] = []
        for e in seed.edges where geometry.touches(e, seed.box, by: CellFormat.margin) { inCell.append(e) }
        let root = CellNode(
            box: seed.box, reference: seed.reference, status: seed.status.map { UnitSide(unit: $0.unit, inside: $0.inside) },
            edges: inCell, geometry: geometry)
        build(node: 0, root, depth: 0, anchor: nil)
    }

    private func reach(_ box: BoundingBox) -> Double {
        Geodesy.searchRadiusDegrees(meters: fallbackMeters, latitude: max(abs(box.minY), abs(box.maxY))) + CellFormat.margin
    }

    /// Who can need the nearest-unit search in a cell, and for which units: everyone and every
    /// unit when some part may lie in no unit; else, per country an answer can come from, the
    /// units deeper than its shallowest answer there that is not at its country's deepest level.
    private struct NearNeed {
        var all = false
        var levels: [(country: Int32, above: Int)] = []

        func wants(_ unit: Int32, _ units: UnitTable) -> Bool {
            if all { return true }
            for need in levels where need.country == units.country[Int(unit)] { return Int(units.level[Int(unit)]) > need.above }
            return false
        }
    }

    private mutating func build(node: Int, _ cell: CellNode, depth: Int, anchor: Int?) {
        let units = self.units
        let box = cell.box
        let radius = reach(box)
        var anchor = anchor
        if anchor == nil, box.width <= 4 * radius {
            anchors.append((box, nil))
            anchor = anchors.count - 1
        }
        // The units that matter here, in decision order: those with edges in the cell and those covering it whole.
        var entries: [Int32] = []
        for s in cell.status where s.inside || cell.group(of: s.unit) != nil { entries.append(s.unit) }
        entries.sort { units.priority[Int($0)] < units.priority[Int($1)] }
        let whole = entries.map { cell.group(of: $0) == nil }
        if let first = whole.firstIndex(of: true) {
            // The first unit covering the whole cell always covers: a unit after it can only
            // matter as a deeper unit of a country decided at or before it; and if it comes
            // first, it decides everywhere here and only deeper units of its country remain.
            var kept = Array(entries[...first])
            for unit in entries[(first + 1)...] {
                let country = units.country[Int(unit)]
                if first == 0 {
                    if country == units.country[Int(entries[0])], units.isDeeper(unit, than: entries[0]) { kept.append(unit) }
                } else if kept.contains(where: { units.country[Int($0)] == country }) {
                    kept.append(unit)
                }
            }
            entries = kept
        }
        var edgeCount = 0
        for unit in entries { if let g = cell.group(of: unit) { edgeCount += cell.groupEdges[g].count } }
        let canCut = depth < limits.maxDepth
        if canCut, edgeCount > limits.edgesPerCell, let children = cell.quarters(geometry: geometry) {
            cut(node: node, children, depth: depth, anchor: anchor)
            return
        }

        var need = NearNeed()
        var answer: Int32?
        let fixed = !entries.isEmpty && !entries.contains { cell.group(of: $0) != nil }
        if fixed {
            // Every unit here covers the whole cell: the answer is fixed, unless a deeper unit
            // of its country lies within reach (then a point may take it as the nearest).
            let best = entries.dropFirst().reduce(entries[0]) { units.isDeeper($1, than: $0) ? $1 : $0 }
            if units.isComplete(best) {
                nodes[node] = CellFormat.answer(best)
                return
            }
            need.levels = [(units.country[Int(best)], Int(units.level[Int(best)]))]
            answer = best
        } else if entries.contains(where: { cell.group(of: $0) == nil }) {
            for unit in entries where !units.isComplete(unit) {
                let country = units.country[Int(unit)], level = Int(units.level[Int(unit)])
                if let k = need.levels.firstIndex(where: { $0.country == country }) {
                    need.levels[k].above = min(need.levels[k].above, level)
                } else {
                    need.levels.append((country, level))
                }
            }
        } else {
            need.all = true
        }
        if radius > limits.maxRadiusDegrees {
            // Near a pole the search radius spans too much to list: GEOS answers these cells.
            leaves.append(Leaf(reference: cell.reference, entries: [], near: nil, usesGeometry: true))
            nodes[node] = CellFormat.mixed(leaves.count - 1)
            return
        }
        let nearBox = BoundingBox(minX: box.minX - radius, minY: box.minY - radius, maxX: box.maxX + radius, maxY: box.maxY + radius)
        let geometry = self.geometry
        let hasNear = grid?.hasEdge(meeting: nearBox, geometry: geometry) { need.wants(geometry.unit($0), units) } ?? false
        if !hasNear {
            if let answer {
                nodes[node] = CellFormat.answer(answer)
                return
            }
            if entries.isEmpty {
                nodes[node] = CellFormat.empty
                return
            }
        }
        if canCut, entries.isEmpty, box.width > limits.emptyCellRadii * radius, let children = cell.quarters(geometry: geometry) {
            cut(node: node, children, depth: depth, anchor: anchor)
            return
        }
        addLeaf(node: node, cell, entries: entries, near: hasNear ? nearList(anchor: anchor, box: nearBox) : nil)
    }

    private mutating func addLeaf(node: Int, _ cell: CellNode, entries: [Int32], near: Int?) {
        let records = entries.map { unit in
            let group = cell.group(of: unit)
            return (unit: unit, coversAll: group == nil, inside: cell.inside(unit), runs: group.map { cell.runs($0) } ?? [])
        }
        leaves.append(Leaf(reference: cell.reference, entries: records, near: near, usesGeometry: false))
        nodes[node] = CellFormat.mixed(leaves.count - 1)
    }

    private mutating func cut(node: Int, _ children: [CellNode], depth: Int, anchor: Int?) {
        let first = nodes.count
        nodes[node] = UInt32(first)
        nodes += [0, 0, 0, 0]
        for (i, child) in children.enumerated() { build(node: first + i, child, depth: depth + 1, anchor: anchor) }
    }

    /// The list of units within reach of the anchor area (made once for all its leaves), or of
    /// `box` when the leaf is wider than an anchor.
    private mutating func nearList(anchor: Int?, box: BoundingBox) -> Int {
        if let anchor, let list = anchors[anchor].list { return list }
        var area = box
        if let anchor {
            let a = anchors[anchor].box, r = reach(a)
            area = BoundingBox(minX: a.minX - r, minY: a.minY - r, maxX: a.maxX + r, maxY: a.maxY + r)
        }
        let units = self.units
        let near = CellNode(
            box: area, reference: (0, 0), status: [], edges: grid?.edges(meeting: area, geometry: geometry) ?? [],
            geometry: geometry)
        let order = near.groupUnit.indices.sorted {
            let a = near.groupUnit[$0], b = near.groupUnit[$1]
            return (-Int(units.level[Int(a)]), units.codeRank[Int(a)]) < (-Int(units.level[Int(b)]), units.codeRank[Int(b)])
        }
        nearLists.append(order.map { (near.groupUnit[$0], near.runs($0)) })
        if let anchor { anchors[anchor].list = nearLists.count - 1 }
        return nearLists.count - 1
    }
}
