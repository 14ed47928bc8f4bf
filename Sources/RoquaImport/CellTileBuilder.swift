import Foundation
import RoquaBoundaries

/// Limits of the quadtree: how far cells are cut, and when.
package struct CellLimits: Sendable {
    /// A mixed cell with more edges than this (of the units that can matter there) is cut in four.
    package var edgesPerCell = 24
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
        var nearUsesGeometry: Bool
    }

    /// Nearby units with their edges' runs, deepest level first; shared by the leaves of an area.
    typealias NearList = [(unit: Int32, runs: [(Int32, Int32)])]

    let geometry: CellGeometry
    let units: UnitTable
    let limits: CellLimits
    let fallbackMeters: Double
    private(set) var nodes: [UInt32] = [0]
    private(set) var leaves: [Leaf] = []
    private(set) var nearLists: [NearList] = []
    private var grid: TileEdgeGrid?
    /// Areas about twice the search radius wide whose leaves share one list of nearby units:
    /// the box and, once a leaf asked for it, the list's index.
    private var anchors: [(box: BoundingBox, list: Int?)] = []

    init(geometry: CellGeometry, units: UnitTable, limits: CellLimits, fallbackMeters: Double) {
        self.geometry = geometry
        self.units = units
        self.limits = limits
        self.fallbackMeters = fallbackMeters
    }

    /// Fills `nodes` and `leaves` for the tile; the root's value is `nodes[0]`.
    mutating func build(_ seed: TileSeed) {
        grid = TileEdgeGrid(box: seed.box, reach: reach(seed.box), edges: seed.edges, geometry: geometry)
        let inCell = seed.edges.filter { touches($0, seed.box, by: CellFormat.margin) }
        build(node: 0, box: seed.box, depth: 0, reference: seed.reference, status: seed.status, edges: inCell, anchor: nil)
    }

    private func touches(_ edge: Int32, _ box: BoundingBox, by margin: Double) -> Bool {
        let e = geometry.edgeBox(Int(edge))
        return e.maxX >= box.minX - margin && e.minX <= box.maxX + margin && e.maxY >= box.minY - margin && e.minY <= box.maxY + margin
    }

    private func reach(_ box: BoundingBox) -> Double {
        Geodesy.searchRadiusDegrees(meters: fallbackMeters, latitude: max(abs(box.minY), abs(box.maxY))) + CellFormat.margin
    }

    /// Edges grouped by unit (edges are numbered unit by unit, so a sorted list is grouped).
    private func byUnit(_ edges: [Int32]) -> [(unit: Int32, edges: ArraySlice<Int32>)] {
        guard !edges.isEmpty else { return [] }
        var groups: [(Int32, ArraySlice<Int32>)] = []
        var start = 0
        for i in 1...edges.count where i == edges.count || geometry.unitOf[Int(edges[i])] != geometry.unitOf[Int(edges[start])] {
            groups.append((geometry.unitOf[Int(edges[start])], edges[start..<i]))
            start = i
        }
        return groups
    }

    /// Consecutive edges as (first vertex, edge count) runs.
    private func runs(_ edges: ArraySlice<Int32>) -> [(Int32, Int32)] {
        var result: [(Int32, Int32)] = []
        for e in edges {
            if let last = result.last, last.0 + last.1 == e { result[result.count - 1].1 += 1 } else { result.append((e, 1)) }
        }
        return result
    }

    private mutating func build(node: Int, box: BoundingBox, depth: Int, reference: (x: Double, y: Double),
                                status: [(unit: Int32, inside: Bool)], edges: [Int32], anchor: Int?) {
        let units = self.units, geometry = self.geometry
        let radius = reach(box)
        var anchor = anchor
        if anchor == nil, box.width <= 2 * radius {
            anchors.append((box, nil))
            anchor = anchors.count - 1
        }
        let groups = byUnit(edges)
        let withEdges = Dictionary(uniqueKeysWithValues: groups.map { ($0.unit, $0.edges) })
        // The units that matter here, in decision order: those with edges in the cell and those covering it whole.
        var entries = status.filter { withEdges[$0.unit] != nil || $0.inside }.map(\.unit)
        entries.sort { units.priority[Int($0)] < units.priority[Int($1)] }
        if let whole = entries.firstIndex(where: { withEdges[$0] == nil }) {
            // The first unit covering the whole cell always covers: a unit after it can only
            // matter as a deeper unit of a country decided at or before it.
            let countries = Set(entries[...whole].map { units.country[Int($0)] })
            entries = Array(entries[...whole]) + entries[(whole + 1)...].filter { countries.contains(units.country[Int($0)]) }
        }
        if let decider = entries.first, withEdges[decider] == nil {
            // It decides everywhere here: only deeper units of its country can still change the answer.
            entries = [decider] + entries.dropFirst().filter {
                units.country[Int($0)] == units.country[Int(decider)] && units.isDeeper($0, than: decider)
            }
        }
        let inside = Dictionary(uniqueKeysWithValues: status.map { ($0.unit, $0.inside) })
        let edgeCount = entries.reduce(0) { $0 + (withEdges[$1]?.count ?? 0) }
        let canCut = depth < limits.maxDepth
        if canCut, edgeCount > limits.edgesPerCell,
           let children = split(box: box, reference: reference, status: status, groups: groups, inside: inside) {
            cut(node: node, depth: depth, children: children, edges: edges, anchor: anchor)
            return
        }

        // Which nearby units a point here may need: every unit when some part may be in none,
        // else the deeper units of the countries an answer can come from.
        var nearFilter: (Int32) -> Bool
        if !entries.contains(where: { withEdges[$0] == nil }) {
            nearFilter = { _ in true }
        } else {
            let open = entries.filter { !units.isComplete($0) }
            let lowest = Dictionary(open.map { (units.country[Int($0)], Int(units.level[Int($0)])) }, uniquingKeysWith: min)
            nearFilter = { unit in lowest[units.country[Int(unit)]].map { Int(units.level[Int(unit)]) > $0 } ?? false }
        }
        var answer: Int32?
        if let decider = entries.first, withEdges[decider] == nil, !entries.dropFirst().contains(where: { withEdges[$0] != nil }) {
            // Every unit here covers the whole cell: the answer is fixed, unless a deeper unit
            // of its country lies within reach (then a point may take it as the nearest).
            let best = entries.dropFirst().reduce(decider) { units.isDeeper($1, than: $0) ? $1 : $0 }
            if units.isComplete(best) {
                nodes[node] = CellFormat.answer(best)
                return
            }
            let bestLevel = Int(units.level[Int(best)]), country = units.country[Int(best)]
            nearFilter = { unit in units.country[Int(unit)] == country && Int(units.level[Int(unit)]) > bestLevel }
            answer = best
        }
        if answer == nil, !entries.isEmpty, isCoveredDeeply(box, entries: entries, withEdges: withEdges, inside: inside, reference: reference) {
            leaves.append(Leaf(reference: reference, entries: entries.map { unit in
                (unit, withEdges[unit] == nil, inside[unit] ?? false, withEdges[unit].map(runs) ?? [])
            }, near: nil, usesGeometry: false, nearUsesGeometry: true))
            nodes[node] = CellFormat.mixed(leaves.count - 1)
            return
        }
        if radius > limits.maxRadiusDegrees {
            // Near a pole the search radius spans too much to list: GEOS answers these cells.
            leaves.append(Leaf(reference: reference, entries: [], near: nil, usesGeometry: true, nearUsesGeometry: false))
            nodes[node] = CellFormat.mixed(leaves.count - 1)
            return
        }
        let nearBox = BoundingBox(minX: box.minX - radius, minY: box.minY - radius, maxX: box.maxX + radius, maxY: box.maxY + radius)
        let hasNear = grid?.hasEdge(meeting: nearBox, geometry: geometry) { nearFilter(geometry.unitOf[Int($0)]) } ?? false
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
        if canCut, entries.isEmpty, box.width > limits.emptyCellRadii * radius,
           let children = split(box: box, reference: reference, status: status, groups: groups, inside: inside) {
            cut(node: node, depth: depth, children: children, edges: edges, anchor: anchor)
            return
        }
        let list = hasNear ? nearList(anchor: anchor, box: nearBox) : nil
        leaves.append(Leaf(reference: reference,
                           entries: entries.map { unit in (unit, withEdges[unit] == nil, inside[unit] ?? false, withEdges[unit].map(runs) ?? []) },
                           near: list, usesGeometry: false, nearUsesGeometry: false))
        nodes[node] = CellFormat.mixed(leaves.count - 1)
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
        let edges = grid?.edges(meeting: area, geometry: geometry) ?? []
        nearLists.append(byUnit(edges)
            .sorted { (-Int(units.level[Int($0.unit)]), units.codeRank[Int($0.unit)]) < (-Int(units.level[Int($1.unit)]), units.codeRank[Int($1.unit)]) }
            .map { ($0.unit, runs($0.edges)) })
        if let anchor { anchors[anchor].list = nearLists.count - 1 }
        return nearLists.count - 1
    }

    private mutating func cut(node: Int, depth: Int,
                              children: [(box: BoundingBox, reference: (x: Double, y: Double), status: [(unit: Int32, inside: Bool)])],
                              edges: [Int32], anchor: Int?) {
        let first = nodes.count
        nodes[node] = UInt32(first)
        nodes += [0, 0, 0, 0]
        for (i, child) in children.enumerated() {
            let childEdges = edges.filter { touches($0, child.box, by: CellFormat.margin) }
            let present = Set(childEdges.map { geometry.unitOf[Int($0)] })
            build(node: first + i, box: child.box, depth: depth + 1, reference: child.reference,
                  status: child.status.filter { $0.inside || present.contains($0.unit) }, edges: childEdges, anchor: anchor)
        }
    }

    /// Whether every point of a 4 × 4 sample grid in the cell is answered by a unit at its
    /// country's deepest level (as the resolver would find it), so no point is expected to need
    /// the nearest-unit search. A sample whose side is not exact counts as not covered.
    private func isCoveredDeeply(_ box: BoundingBox, entries: [Int32], withEdges: [Int32: ArraySlice<Int32>],
                                 inside: [Int32: Bool], reference: (x: Double, y: Double)) -> Bool {
        let flat = Dictionary(uniqueKeysWithValues: withEdges.map { ($0.key, runs($0.value).flatMap { [$0.0, $0.1] }) })
        for fy in Self.samples {
            for fx in Self.samples {
                let q = (x: box.minX + fx * box.width, y: box.minY + fy * box.height)
                var best: Int32 = -1
                for unit in entries {
                    if best >= 0, units.country[Int(unit)] != units.country[Int(best)] || !units.isDeeper(unit, than: best) { continue }
                    var covered = true
                    if let runs = flat[unit] {
                        let side = geometry.xy.withUnsafeBufferPointer { xy in
                            runs.withUnsafeBufferPointer { r in
                                Predicates.side(qx: q.x, qy: q.y, rx: reference.x, ry: reference.y, rInside: inside[unit] ?? false,
                                                vertices: xy.baseAddress!, runs: r.baseAddress!, runCount: r.count / 2)
                            }
                        }
                        if side == .uncertain { return false }
                        covered = side != .outside
                    }
                    if covered { best = unit }
                }
                if best < 0 || !units.isComplete(best) { return false }
            }
        }
        return true
    }

    static let samples = [0.0613, 0.3571, 0.6429, 0.9387]

    /// The four quarters of a cell with their reference points and each unit's side there, found
    /// by counting crossings from this cell's reference point; nil when no reference point can
    /// be placed where every sign is exact (the cell then stays a leaf).
    private func split(box: BoundingBox, reference: (x: Double, y: Double), status: [(unit: Int32, inside: Bool)],
                       groups: [(unit: Int32, edges: ArraySlice<Int32>)], inside: [Int32: Bool])
        -> [(box: BoundingBox, reference: (x: Double, y: Double), status: [(unit: Int32, inside: Bool)])]? {
        let midX = (box.minX + box.maxX) / 2, midY = (box.minY + box.maxY) / 2
        let quarters = [
            BoundingBox(minX: box.minX, minY: box.minY, maxX: midX, maxY: midY), BoundingBox(minX: midX, minY: box.minY, maxX: box.maxX, maxY: midY),
            BoundingBox(minX: box.minX, minY: midY, maxX: midX, maxY: box.maxY), BoundingBox(minX: midX, minY: midY, maxX: box.maxX, maxY: box.maxY),
        ]
        let runsByUnit = groups.map { ($0.unit, runs($0.edges).flatMap { [$0.0, $0.1] }) }
        var result: [(box: BoundingBox, reference: (x: Double, y: Double), status: [(unit: Int32, inside: Bool)])] = []
        for quarter in quarters {
            var placed: (reference: (x: Double, y: Double), status: [(unit: Int32, inside: Bool)])?
            for offset in Self.offsets {
                let r = (x: quarter.minX + offset.0 * quarter.width, y: quarter.minY + offset.1 * quarter.height)
                guard isClear(r, of: groups) else { continue }
                var sides: [Int32: Bool] = [:]
                var exact = true
                for (unit, flat) in runsByUnit {
                    let side = geometry.xy.withUnsafeBufferPointer { xy in
                        flat.withUnsafeBufferPointer { runs in
                            Predicates.side(qx: r.x, qy: r.y, rx: reference.x, ry: reference.y, rInside: inside[unit] ?? false,
                                            vertices: xy.baseAddress!, runs: runs.baseAddress!, runCount: runs.count / 2)
                        }
                    }
                    guard side == .inside || side == .outside else { exact = false; break }
                    sides[unit] = side == .inside
                }
                guard exact else { continue }
                placed = (r, status.map { ($0.unit, sides[$0.unit] ?? $0.inside) })
                break
            }
            guard let placed else { return nil }
            result.append((quarter, placed.reference, placed.status))
        }
        return result
    }

    /// True when no listed edge's line passes through or within rounding distance of r.
    private func isClear(_ r: (x: Double, y: Double), of groups: [(unit: Int32, edges: ArraySlice<Int32>)]) -> Bool {
        for group in groups {
            for e in group.edges {
                let i = 2 * Int(e)
                let o = Predicates.orientation(geometry.xy[i], geometry.xy[i + 1], geometry.xy[i + 2], geometry.xy[i + 3], r.x, r.y)
                if o == 0 || o == Predicates.uncertain { return false }
            }
        }
        return true
    }

    /// Where reference points are tried, as fractions of the cell: away from the middle and
    /// from simple fractions, where borders drawn along round coordinates would put them.
    static let offsets: [(Double, Double)] = [
        (0.5371, 0.4629), (0.4127, 0.6183), (0.6729, 0.3271), (0.3079, 0.2963), (0.7193, 0.7411),
        (0.2417, 0.6607), (0.6053, 0.2191), (0.3853, 0.8089), (0.8311, 0.5477), (0.1777, 0.3907),
    ]
}
