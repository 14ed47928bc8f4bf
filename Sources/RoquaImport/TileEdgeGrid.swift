import RoquaBoundaries

/// The edges near one tile in a uniform grid of bins, so a cell asks "which edges lie within
/// the search radius of me" by looking at a few bins instead of every edge of the tile.
struct TileEdgeGrid {
    static let bins = 64
    private let origin: (x: Double, y: Double)
    private let binSize: Double
    private var starts: [Int32]
    private var members: [Int32]

    /// `edges`: the tile's edge list (edges within the search radius of `box`), ascending.
    init(box: BoundingBox, reach: Double, edges: [Int32], geometry: CellGeometry) {
        let origin = (x: box.minX - reach, y: box.minY - reach)
        let binSize = (box.width + 2 * reach) / Double(Self.bins)
        (self.origin, self.binSize) = (origin, binSize)
        var counts = [Int32](repeating: 0, count: Self.bins * Self.bins + 1)
        func range(_ e: Int32) -> (ClosedRange<Int>, ClosedRange<Int>) {
            let b = geometry.edgeBox(Int(e))
            return (Self.bin(b.minX - origin.x, binSize)...Self.bin(b.maxX - origin.x, binSize),
                    Self.bin(b.minY - origin.y, binSize)...Self.bin(b.maxY - origin.y, binSize))
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
    func hasEdge(meeting box: BoundingBox, geometry: CellGeometry, where filter: (Int32) -> Bool) -> Bool {
        for y in bin(box.minY - origin.y)...bin(box.maxY - origin.y) {
            for x in bin(box.minX - origin.x)...bin(box.maxX - origin.x) {
                for e in members[Int(starts[y * Self.bins + x])..<Int(starts[y * Self.bins + x + 1])] {
                    let b = geometry.edgeBox(Int(e))
                    if b.maxX >= box.minX, b.minX <= box.maxX, b.maxY >= box.minY, b.minY <= box.maxY, filter(e) { return true }
                }
            }
        }
        return false
    }

    /// The edges whose box meets `box` (a superset from the bins, filtered exactly), ascending.
    func edges(meeting box: BoundingBox, geometry: CellGeometry) -> [Int32] {
        var found: [Int32] = []
        for y in bin(box.minY - origin.y)...bin(box.maxY - origin.y) {
            for x in bin(box.minX - origin.x)...bin(box.maxX - origin.x) {
                for e in members[Int(starts[y * Self.bins + x])..<Int(starts[y * Self.bins + x + 1])] {
                    let b = geometry.edgeBox(Int(e))
                    if b.maxX >= box.minX, b.minX <= box.maxX, b.maxY >= box.minY, b.minY <= box.maxY { found.append(e) }
                }
            }
        }
        found.sort()
        var unique = 0
        for e in found where unique == 0 || found[unique - 1] != e {
            found[unique] = e
            unique += 1
        }
        found.removeLast(found.count - unique)
        return found
    }
}
