/// The locality shortcut: GPS tracks revisit the same few hundred metres again and again.
/// The second time a ~100 m cell is hit, the resolver checks whether one unit holds the whole
/// cell; if so, every later point in it is answered with no geometry test at all. Exact, because
/// "holds the whole cell" is GEOS `covers` on the cell's rectangle. Bounded: cleared when full.
/// Random, scattered points never revisit a cell; when a window of lookups finds (almost) no
/// revisits, the cache steps aside for a while instead of paying a dictionary insert per point.
final class CellCache {
    static let cellsPerDegree = 1024.0
    private enum State { case seen, pure(Int32), mixed }
    private var states: [Int64: State] = [:]
    private let capacity: Int
    private var lastKey: Int64 = -1
    private var lastUnit: Int32?
    private var window = (lookups: 0, revisits: 0)
    private var bypass = 0
    static let windowSize = 4096

    init(capacity: Int = 1 << 17) {
        self.capacity = capacity
    }

    /// The unit holding the whole cell of (x, y) when known; nil means "test the point itself".
    func unit(x: Double, y: Double, classify: (BoundingBox) throws -> Int32?) rethrows -> Int32? {
        let column = ((x + 180) * Self.cellsPerDegree).rounded(.down)
        let row = ((y + 90) * Self.cellsPerDegree).rounded(.down)
        let key = Int64(row) * Int64(400 * Self.cellsPerDegree) + Int64(column)
        if key == lastKey { return lastUnit }
        if bypass > 0 {
            bypass -= 1
            return nil
        }
        window.lookups += 1
        if window.lookups == Self.windowSize {
            if window.revisits < Self.windowSize / 16 { bypass = Self.windowSize * 4 }
            window = (0, 0)
        }
        let state = states[key]
        if state != nil { window.revisits += 1 }
        switch state {
        case let .pure(unit)?:
            (lastKey, lastUnit) = (key, unit)
            return unit
        case .mixed?:
            return nil
        case .seen?:
            let box = BoundingBox(minX: column / Self.cellsPerDegree - 180, minY: row / Self.cellsPerDegree - 90,
                                  maxX: (column + 1) / Self.cellsPerDegree - 180, maxY: (row + 1) / Self.cellsPerDegree - 90)
            let unit = try classify(box)
            states[key] = unit.map { .pure($0) } ?? .mixed
            if let unit { (lastKey, lastUnit) = (key, unit) }
            return unit
        case nil:
            if states.count >= capacity { states.removeAll(keepingCapacity: true) }
            states[key] = .seen
            return nil
        }
    }
}
