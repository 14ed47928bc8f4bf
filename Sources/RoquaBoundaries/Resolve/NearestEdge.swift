/// The nearest point of a unit's listed edges, as GEOS finds it (the first edge at the least
/// planar distance in degrees, then the point of that edge nearest), searched through the
/// tile's boxes of 256 and of 16 vertices so that edges far from the point are never visited.
enum NearestEdge {
    /// What a search found: the nearest point, its edge and planar distance; or nothing within
    /// the limit, with a lower bound of the planar distance (`floor`) for later searches nearby.
    struct Outcome {
        var point: (x: Double, y: Double)?
        var edge: Int
        /// The planar distance to the edges: exact when a point was found, else a lower bound.
        var floor: Double
    }

    /// The nearest point within `limit` degrees. `seed`, an edge of these runs (or -1), is
    /// measured first: a good guess (the edge found for a point just before) bounds the search
    /// at once, and any earlier edge at the same distance still wins, so the answer does not
    /// depend on it.
    @inline(__always)
    static func search(
        _ px: Double, _ py: Double, within limit: Double, seed: Int = -1, tile t: CellTile,
        runs: UnsafePointer<Int32>, runCount: Int
    ) -> Outcome {
        let ceiling = limit * (1 + 1e-9)
        var best = ceiling
        var bestEdge = -1
        var nearestBlock = -1
        // The least distance of any edge or box passed over: with nothing found, no edge is nearer.
        var passed = Double.infinity
        if seed >= 0 {
            let v = t.vertices, d = Predicates.segmentDistance(px, py, v[2 * seed], v[2 * seed + 1], v[2 * seed + 2], v[2 * seed + 3])
            if d < best { (best, bestEdge) = (d, seed) }
        }
        if bestEdge < 0 {
            // First the block nearest to the point, for a tight bound, then every block in ring order.
            var nearestGroup = -1, groupBound = best, nearestBox = Double.infinity
            for k in 0..<runCount {
                let start = Int(runs[2 * k]), end = start + Int(runs[2 * k + 1])
                var group = start / CellFormat.groupVertices
                while group * CellFormat.groupVertices < end {
                    let bound = distance(px, py, t.groups + 4 * group)
                    nearestBox = min(nearestBox, bound)
                    if bound < groupBound { (groupBound, nearestGroup) = (bound, group) }
                    group += 1
                }
            }
            // Every edge is at least as far as its box.
            guard nearestGroup >= 0 else { return Outcome(point: nil, edge: -1, floor: nearestBox) }
            var nearestBound = best
            for k in 0..<runCount {
                let start = max(Int(runs[2 * k]), nearestGroup * CellFormat.groupVertices)
                let end = min(Int(runs[2 * k]) + Int(runs[2 * k + 1]), (nearestGroup + 1) * CellFormat.groupVertices)
                guard start < end else { continue }
                for block in (start / CellFormat.blockVertices)...((end - 1) / CellFormat.blockVertices) {
                    let bound = distance(px, py, t.blocks + 4 * block)
                    if bound < nearestBound { (nearestBound, nearestBlock) = (bound, block) }
                }
            }
            for k in 0..<runCount where nearestBlock >= 0 {
                let start = Int(runs[2 * k]), end = start + Int(runs[2 * k + 1])
                let lo = max(start, nearestBlock * CellFormat.blockVertices), hi = min(end, (nearestBlock + 1) * CellFormat.blockVertices)
                if lo < hi { scan(px, py, t.vertices, lo, hi, &best, &bestEdge, &passed) }
            }
        }
        for k in 0..<runCount {
            let start = Int(runs[2 * k]), end = start + Int(runs[2 * k + 1])
            var i = start
            while i < end {
                let group = i / CellFormat.groupVertices
                let groupEnd = min(end, (group + 1) * CellFormat.groupVertices)
                let groupDistance = distance(px, py, t.groups + 4 * group)
                if groupDistance > best {
                    passed = min(passed, groupDistance)
                    i = groupEnd
                    continue
                }
                while i < groupEnd {
                    let block = i / CellFormat.blockVertices
                    let blockEnd = min(groupEnd, (block + 1) * CellFormat.blockVertices)
                    if block != nearestBlock {
                        let blockDistance = distance(px, py, t.blocks + 4 * block)
                        if blockDistance <= best {
                            scan(px, py, t.vertices, i, blockEnd, &best, &bestEdge, &passed)
                        } else {
                            passed = min(passed, blockDistance)
                        }
                    }
                    i = blockEnd
                }
            }
        }
        // Nothing within the limit: every edge was scanned at `passed` or more, or lies in a box that far.
        guard bestEdge >= 0 else { return Outcome(point: nil, edge: -1, floor: max(passed, ceiling)) }
        let v = t.vertices, i = bestEdge
        return Outcome(point: Predicates.closestPoint(px, py, v[2 * i], v[2 * i + 1], v[2 * i + 2], v[2 * i + 3]), edge: i, floor: best)
    }

    /// The planar distance from p to a box stored as four Floats.
    @inline(__always)
    private static func distance(_ px: Double, _ py: Double, _ box: UnsafePointer<Float>) -> Double {
        let dx = max(Double(box[0]) - px, 0, px - Double(box[2])), dy = max(Double(box[1]) - py, 0, py - Double(box[3]))
        return (dx * dx + dy * dy).squareRoot()
    }

    @inline(__always)
    private static func scan(
        _ px: Double, _ py: Double, _ v: UnsafePointer<Double>, _ from: Int, _ to: Int,
        _ best: inout Double, _ bestEdge: inout Int, _ passed: inout Double
    ) {
        for i in from..<to {
            let d = Predicates.segmentDistance(px, py, v[2 * i], v[2 * i + 1], v[2 * i + 2], v[2 * i + 3])
            if d < best || (d == best && i < bestEdge) { (best, bestEdge) = (d, i) } else { passed = min(passed, d) }
        }
    }
}
