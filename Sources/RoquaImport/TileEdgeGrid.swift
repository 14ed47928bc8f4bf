import RoquaBoundaries

/// The edges near one tile in a uniform grid of bins, so a cell asks "which edges lie within
/// the search radius of me" by looking at a few bins instead of every edge of the tile.
struct TileEdgeGrid {
    static let bins = 32
    private let origin: (x: Double, y: Double)
    private let binSize: Double
    private var starts: [Int32]
    private var members: [Int32]

    /// `edges`: the tile's edge list (edges within the search radius of `box`), ascending.
    init(box: BoundingBox, reach: Double, edges: [Int32], geometry: CellEdges) {
        let origin = (x: box.minX - reach, y: box.minY - reach)
        let binSize = (box.width + 2 * reach) / Double(Self.bins)
        (self.origin, self.binSize) = (origin, binSize)
        var counts = [Int32](repeating: 0, count: Self.bins * Self.bins + 1)
        func range(_ e: Int32) -> (ClosedRange<Int>, ClosedRange<Int>) {
            let p = geometry.xy + 2 * Int(e)
            return (
                Self.bin(min(p[0], p[2]) - origin.x, binSize)...Self.bin(max(p[0], p[2]) - origin.x, binSize),
                Self.bin(min(p[1], p[3]) - origin.y, binSize)...Self.bin(max(p[1], p[3]) - origin.y, binSize)
            )
        }
        for e in edges {
            let (xs, ys) = range(e)
            for y in ys { for x in xs { counts[y * Self.bins + x + 1] += 1 } }
        }
        for i in 1..<counts.count { counts[i] += counts[i - 1] }
        var fill = counts
        var members = [Int32](repeating: 0, count: Int(counts.last ?? 0))
        for e in edges {
            let (xs, ys) = range(e)
            for y in ys {
                for x in xs {
                    members[Int(fill[y * Self.bins + x])] = e
                    fill[y * Self.bins + x] += 1
                }
            }
        }
        starts = counts
        self.members = members
    }

    private static func bin(_ offset: Double, _ size: Double) -> Int { min(max(Int((offset / size).rounded(.down)), 0), bins - 1) }
    private func bin(_ offset: Double) -> Int { Self.bin(offset, binSize) }

    /// Whether some edge whose box meets `box` passes `filter`.
    func hasEdge(meeting box: BoundingBox, geometry: CellEdges, where filter: (Int32) -> Bool) -> Bool {
        for y in bin(box.minY - origin.y)...bin(box.maxY - origin.y) {
            for x in bin(box.minX - origin.x)...bin(box.maxX - origin.x) {
                for e in members[Int(starts[y * Self.bins + x])..<Int(starts[y * Self.bins + x + 1])] {
                    if geometry.touches(e, box.minX, box.minY, box.maxX, box.maxY), filter(e) { return true }
                }
            }
        }
        return false
    }

    /// The edges whose box meets `box` (a superset from the bins, filtered exactly), ascending.
    func edges(meeting box: BoundingBox, geometry: CellEdges) -> [Int32] {
        var found: [Int32] = []
        for y in bin(box.minY - origin.y)...bin(box.maxY - origin.y) {
            for x in bin(box.minX - origin.x)...bin(box.maxX - origin.x) {
                for e in members[Int(starts[y * Self.bins + x])..<Int(starts[y * Self.bins + x + 1])] {
                    if geometry.touches(e, box.minX, box.minY, box.maxX, box.maxY) { found.append(e) }
                }
            }
        }
        return Self.sortedUnique(found)
    }

    /// Non-negative values in ascending order without repeats, sorted by plain loops that stay
    /// fast in debug builds (where `sort` is unspecialised generic code): insertion sort for
    /// short lists, else a radix sort on bytes.
    static func sortedUnique(_ values: [Int32]) -> [Int32] {
        guard values.count > 1 else { return values }
        var a = values
        if a.count < 64 {
            for i in 1..<a.count {
                let v = a[i]
                var j = i
                while j > 0, a[j - 1] > v {
                    a[j] = a[j - 1]
                    j -= 1
                }
                a[j] = v
            }
        } else {
            var b = [Int32](repeating: 0, count: a.count)
            var counts = [Int](repeating: 0, count: 257)
            for shift: Int32 in [0, 8, 16, 24] {
                for i in counts.indices { counts[i] = 0 }
                for v in a { counts[Int((v >> shift) & 0xFF) + 1] += 1 }
                for i in 1..<counts.count { counts[i] += counts[i - 1] }
                for v in a {
                    let digit = Int((v >> shift) & 0xFF)
                    b[counts[digit]] = v
                    counts[digit] += 1
                }
                swap(&a, &b)
            }
        }
        var unique = 1
        for i in 1..<a.count where a[i] != a[unique - 1] {
            a[unique] = a[i]
            unique += 1
        }
        a.removeLast(a.count - unique)
        return a
    }
}
