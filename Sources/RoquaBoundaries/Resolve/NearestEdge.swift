/// The nearest point of a unit's listed edges, as GEOS finds it (the first edge at the least
/// planar distance in degrees, then the point of that edge nearest), searched through the
/// tile's boxes of 256 and of 16 vertices so that edges far from the point are never visited.
enum NearestEdge {
    /// The point, or nil when no edge comes within `limit` degrees.
    @inline(__always)
    static func point(_ px: Double, _ py: Double, within limit: Double, tile t: CellTile,
                      runs: UnsafePointer<Int32>, runCount: Int) -> (x: Double, y: Double)? {
        var best = limit * (1 + 1e-9)
        var bestEdge = -1
        // First the block nearest to the point, for a tight bound, then every block in ring order.
        var nearestGroup = -1, groupBound = best
        for k in 0..<runCount {
            let start = Int(runs[2 * k]), end = start + Int(runs[2 * k + 1])
            var group = start / CellFormat.groupVertices
            while group * CellFormat.groupVertices < end {
                let bound = distance(px, py, t.groups + 4 * group)
                if bound < groupBound { (groupBound, nearestGroup) = (bound, group) }
                group += 1
            }
        }
        guard nearestGroup >= 0 else { return nil }
        var nearestBlock = -1, nearestBound = best
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
            if lo < hi { scan(px, py, t.vertices, lo, hi, &best, &bestEdge) }
        }
        for k in 0..<runCount {
            let start = Int(runs[2 * k]), end = start + Int(runs[2 * k + 1])
            var i = start
            while i < end {
                let group = i / CellFormat.groupVertices
                let groupEnd = min(end, (group + 1) * CellFormat.groupVertices)
                if distance(px, py, t.groups + 4 * group) > best {
                    i = groupEnd
                    continue
                }
                while i < groupEnd {
                    let block = i / CellFormat.blockVertices
                    let blockEnd = min(groupEnd, (block + 1) * CellFormat.blockVertices)
                    if block != nearestBlock, distance(px, py, t.blocks + 4 * block) <= best {
                        scan(px, py, t.vertices, i, blockEnd, &best, &bestEdge)
                    }
                    i = blockEnd
                }
            }
        }
        guard bestEdge >= 0 else { return nil }
        let v = t.vertices, i = bestEdge
        return Predicates.closestPoint(px, py, v[2 * i], v[2 * i + 1], v[2 * i + 2], v[2 * i + 3])
    }

    /// The planar distance from p to a box stored as four Floats.
    @inline(__always)
    private static func distance(_ px: Double, _ py: Double, _ box: UnsafePointer<Float>) -> Double {
        let dx = max(Double(box[0]) - px, 0, px - Double(box[2])), dy = max(Double(box[1]) - py, 0, py - Double(box[3]))
        return (dx * dx + dy * dy).squareRoot()
    }

    @inline(__always)
    private static func scan(_ px: Double, _ py: Double, _ v: UnsafePointer<Double>, _ from: Int, _ to: Int,
                             _ best: inout Double, _ bestEdge: inout Int) {
        for i in from..<to {
            let d = Predicates.segmentDistance(px, py, v[2 * i], v[2 * i + 1], v[2 * i + 2], v[2 * i + 3])
            if d < best || (d == best && i < bestEdge) { (best, bestEdge) = (d, i) }
        }
    }
}
