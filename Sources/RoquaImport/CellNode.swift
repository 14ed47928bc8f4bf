import RoquaBoundaries

/// A unit's side of a cell's reference point.
struct UnitSide: Sendable {
    var unit: Int32
    var inside: Bool
}

/// One cell of the quadtree under construction: its box, reference point, the side of that
/// point for each unit that matters, and its edges grouped by unit with each group's runs of
/// consecutive edges (as `Predicates.side` reads them). Plain arrays and loops: it is built for
/// every one of a few hundred thousand cells, also by debug builds.
struct CellNode {
    var box: BoundingBox
    var reference: (x: Double, y: Double)
    var status: [UnitSide]
    /// Edges touching the cell (widened by `CellFormat.margin`), ascending, so grouped by unit.
    let edges: [Int32]
    private(set) var groupUnit: [Int32] = []
    private(set) var groupEdges: [Range<Int>] = []
    /// Per group, its runs as (first vertex, edge count) pairs in `runWords`.
    private(set) var groupRuns: [Range<Int>] = []
    private(set) var runWords: [Int32] = []

    init(box: BoundingBox, reference: (x: Double, y: Double), status: [UnitSide], edges: [Int32], geometry: CellEdges) {
        self.box = box
        self.reference = reference
        self.edges = edges
        var start = 0
        while start < edges.count {
            let unit = geometry.unit(edges[start])
            var end = start + 1
            while end < edges.count, geometry.unit(edges[end]) == unit { end += 1 }
            groupUnit.append(unit)
            groupEdges.append(start..<end)
            let first = runWords.count
            var i = start
            while i < end {
                var j = i + 1
                while j < end, edges[j] == edges[j - 1] + 1 { j += 1 }
                runWords.append(edges[i])
                runWords.append(Int32(j - i))
                i = j
            }
            groupRuns.append(first..<runWords.count)
            start = end
        }
        // Units with no edge here that do not cover the cell cannot matter below it.
        let present = groupUnit
        self.status = status.filter { $0.inside || present.contains($0.unit) }
    }

    /// The group of `unit`'s edges, or nil when it has none here.
    func group(of unit: Int32) -> Int? {
        for g in 0..<groupUnit.count where groupUnit[g] == unit { return g }
        return nil
    }

    func inside(_ unit: Int32) -> Bool {
        for s in status where s.unit == unit { return s.inside }
        return false
    }

    /// The (first vertex, edge count) runs of a group.
    func runs(_ group: Int) -> [(Int32, Int32)] {
        stride(from: groupRuns[group].lowerBound, to: groupRuns[group].upperBound, by: 2).map { (runWords[$0], runWords[$0 + 1]) }
    }

    /// The side of q for the unit of `group`, counted from this cell's reference point.
    func side(_ group: Int, x: Double, y: Double, geometry: CellEdges) -> Predicates.Side {
        let runs = groupRuns[group]
        return runWords.withUnsafeBufferPointer { words in
            Predicates.side(
                qx: x, qy: y, rx: reference.x, ry: reference.y, rInside: inside(groupUnit[group]),
                vertices: geometry.xy, runs: words.baseAddress! + runs.lowerBound, runCount: runs.count / 2)
        }
    }

    /// True when no edge's line here passes through or within rounding distance of (x, y).
    func isClear(x: Double, y: Double, geometry: CellEdges) -> Bool {
        for e in edges {
            let o = geometry.orientation(e, x, y)
            if o == 0 || o == Predicates.uncertain { return false }
        }
        return true
    }

    /// The four quarters, each with a reference point where every sign is exact and each unit's
    /// side there (counted crossings from this reference point); nil when some quarter gets no
    /// such point (the cell then stays a leaf).
    func quarters(geometry: CellEdges) -> [CellNode]? {
        let midX = (box.minX + box.maxX) / 2, midY = (box.minY + box.maxY) / 2
        let boxes = [
            BoundingBox(minX: box.minX, minY: box.minY, maxX: midX, maxY: midY),
            BoundingBox(minX: midX, minY: box.minY, maxX: box.maxX, maxY: midY),
            BoundingBox(minX: box.minX, minY: midY, maxX: midX, maxY: box.maxY),
            BoundingBox(minX: midX, minY: midY, maxX: box.maxX, maxY: box.maxY),
        ]
        var children: [CellNode] = []
        for quarter in boxes {
            var placed: ((x: Double, y: Double), [UnitSide])?
            for offset in Self.offsets where placed == nil {
                let r = (x: quarter.minX + offset.0 * quarter.width, y: quarter.minY + offset.1 * quarter.height)
                guard isClear(x: r.x, y: r.y, geometry: geometry) else { continue }
                var sides = status
                var exact = true
                for k in sides.indices {
                    guard let g = group(of: sides[k].unit) else { continue }
                    switch side(g, x: r.x, y: r.y, geometry: geometry) {
                    case .inside: sides[k].inside = true
                    case .outside: sides[k].inside = false
                    case .boundary, .uncertain: exact = false
                    }
                    if !exact { break }
                }
                if exact { placed = (r, sides) }
            }
            guard let placed else { return nil }
            var childEdges: [Int32] = []
            for e in edges where geometry.touches(e, quarter, by: CellFormat.margin) { childEdges.append(e) }
            children.append(CellNode(box: quarter, reference: placed.0, status: placed.1, edges: childEdges, geometry: geometry))
        }
        return children
    }

    /// Where reference points are tried, as fractions of the cell: away from the middle and
    /// from simple fractions, where borders drawn along round coordinates would put them.
    static let offsets: [(Double, Double)] = [
        (0.5371, 0.4629), (0.4127, 0.6183), (0.6729, 0.3271), (0.3079, 0.2963), (0.7193, 0.7411),
        (0.2417, 0.6607), (0.6053, 0.2191), (0.3853, 0.8089), (0.8311, 0.5477), (0.1777, 0.3907),
    ]
}
