import Foundation
import RoquaBoundaries

/// Spatial index over region centres: finds every centre that may lie within `cellMeters` of a point by looking
/// at 3 rows × 3 columns of integer cells — O(1) per query whatever the number of regions.
///
/// Why not geohash-6 cells + neighbours: their east-west size shrinks with cos(latitude) (≈ 210 m at 80°), so a
/// fixed ring of neighbours stops covering a 200 m circle at high latitudes. Here rows have a fixed height in
/// latitude and each row gets as many columns as keep a column wider than any qualifying longitude difference in
/// that row, so the 3 × 3 look-up is exact everywhere, across the antimeridian and up to the poles (where a
/// row becomes one single column).
struct RegionGrid {
    /// Every centre within this great-circle distance of a query point is found.
    let cellMeters: Double
    /// Row height, degrees of latitude.
    private let rowHeight: Double
    /// Open-addressing table of occupied cells (row and column packed in one word; `emptyKey`
    /// marks a free slot), each with the latest region inserted there; `chain[i]` is the region
    /// inserted in the same cell before region `i` (-1: none). Flat arrays, no hashing of
    /// structures and no array per cell: a query is a few multiplications and loads.
    private var keys: [Int64]
    private var heads: [Int32]
    private var chain: [Int32] = []
    private var occupied = 0
    /// Columns per row, computed once per row the first time a query or an insert meets it.
    private var columnCounts: [Int32: Int32] = [:]
    private var lastRow = Int.min, lastRowColumns = 0

    private static let metresPerDegree = Geodesy.earthRadius * .pi / 180
    private static let emptyKey = Int64.min

    init(cellMeters: Double) {
        self.cellMeters = max(cellMeters, 1)
        // A great-circle distance d bounds the latitude difference by d (in degrees: d / metresPerDegree); the small
        // margin keeps rounding from pushing a neighbour two rows away.
        rowHeight = self.cellMeters / Self.metresPerDegree * 1.001
        keys = Array(repeating: Self.emptyKey, count: 1024)
        heads = Array(repeating: -1, count: 1024)
    }

    /// Adds region `index`; indices are inserted in increasing order, 0 first (the engine's order).
    mutating func insert(_ index: Int, latitude: Double, longitude: Double) {
        let row = rowOf(latitude)
        // Not as an argument of `column(of:columns:)`: `self` is taken for that call before its
        // arguments run, so the mutation found the table of column counts shared and copied all of
        // it for every new row (0.9 s of a one-fix import into a store of a million regions).
        let columns = columnCount(row: row)
        let key = Self.key(row: row, column: column(of: longitude, columns: columns))
        if chain.count <= index { chain.append(contentsOf: repeatElement(-1, count: index + 1 - chain.count)) }
        if (occupied + 1) * 2 > keys.count { grow() }
        let slot = find(key)
        if keys[slot] == Self.emptyKey {
            keys[slot] = key
            occupied += 1
        }
        chain[index] = heads[slot]
        heads[slot] = Int32(index)
        neighbourhood.listed = false
    }

    /// The lowest index for which `matches` holds among the regions whose centre may be within
    /// `cellMeters` of the point (a superset; `matches` measures), tried in increasing order so
    /// that the first match ends the search.
    mutating func firstCandidate(latitude: Double, longitude: Double, where matches: (Int) -> Bool) -> Int? {
        let centreRow = rowOf(latitude)
        if centreRow != neighbourhood.row {
            neighbourhood.row = centreRow
            neighbourhood.counts = (columnCount(row: centreRow - 1), columnCount(row: centreRow), columnCount(row: centreRow + 1))
            neighbourhood.listed = false
        }
        let counts = neighbourhood.counts
        let columns = (
            column(of: longitude, columns: counts.0), column(of: longitude, columns: counts.1), column(of: longitude, columns: counts.2)
        )
        // Consecutive fixes nearly always fall in the same nine cells: their candidates are listed
        // once, until the cells change or a region is added.
        if !neighbourhood.listed || columns != neighbourhood.columns {
            neighbourhood.candidates.removeAll(keepingCapacity: true)
            for (row, count, centreColumn) in [
                (centreRow - 1, counts.0, columns.0), (centreRow, counts.1, columns.1), (centreRow + 1, counts.2, columns.2),
            ] {
                // With fewer than 3 columns the ±1 ring would wrap onto itself: visit each column once instead.
                if count >= 3 {
                    for col in (centreColumn - 1)...(centreColumn + 1) { list(row: row, column: (col % count + count) % count) }
                } else {
                    for col in 0..<count { list(row: row, column: col) }
                }
            }
            // Oldest first: a fix is most often inside a region, and the oldest one containing it is the answer.
            neighbourhood.candidates.sort()
            neighbourhood.columns = columns
            neighbourhood.listed = true
        }
        for index in neighbourhood.candidates where matches(Int(index)) { return Int(index) }
        return nil
    }

    /// The rows around the last query, their column counts, and the candidates of its nine cells.
    private struct Neighbourhood {
        var row = Int.min
        var counts = (0, 0, 0)
        var columns = (Int.min, Int.min, Int.min)
        /// Whether `candidates` lists the cells of `row` and `columns`, in increasing order (false
        /// once a region is added or the row changes).
        var listed = false
        var candidates: [Int32] = []
    }
    private var neighbourhood = Neighbourhood()

    private mutating func list(row: Int, column: Int) {
        let slot = find(Self.key(row: row, column: column))
        var index = heads[slot]
        while index >= 0 {
            neighbourhood.candidates.append(index)
            index = chain[Int(index)]
        }
    }

    private static func key(row: Int, column: Int) -> Int64 { Int64(row) << 32 | Int64(UInt32(truncatingIfNeeded: column)) }

    /// The slot holding `key`, or the free slot where it would go (linear probing).
    private func find(_ key: Int64) -> Int {
        let mask = keys.count - 1
        var slot = Int(truncatingIfNeeded: UInt64(bitPattern: key &* -7_046_029_254_386_353_131) >> 20) & mask
        while keys[slot] != key && keys[slot] != Self.emptyKey { slot = (slot + 1) & mask }
        return slot
    }

    private mutating func grow() {
        let (oldKeys, oldHeads) = (keys, heads)
        keys = Array(repeating: Self.emptyKey, count: oldKeys.count * 2)
        heads = Array(repeating: -1, count: oldKeys.count * 2)
        for (key, head) in zip(oldKeys, oldHeads) where key != Self.emptyKey {
            let slot = find(key)
            keys[slot] = key
            heads[slot] = head
        }
    }

    private func rowOf(_ latitude: Double) -> Int { Int((latitude / rowHeight).rounded(.down)) }

    private mutating func columnCount(row: Int) -> Int {
        if row == lastRow { return lastRowColumns }
        let count: Int
        if let known = columnCounts[Int32(truncatingIfNeeded: row)] {
            count = Int(known)
        } else {
            count = computedColumnCount(row: row)
            columnCounts[Int32(truncatingIfNeeded: row)] = Int32(count)
        }
        (lastRow, lastRowColumns) = (row, count)
        return count
    }

    /// Columns in a row. For two points within d of each other whose latitudes are at most φm in absolute value,
    /// haversine gives sin(Δλ/2) ≤ sin(d/2R) / cos φm, hence Δλ ≤ (π/2)·(d/R) / cos φm; we use 2 instead of π/2
    /// for margin. φm is the row's poleward edge plus one row, because the query point may sit in the next row.
    private func computedColumnCount(row: Int) -> Int {
        let south = Double(row) * rowHeight, north = Double(row + 1) * rowHeight
        let poleward = min(90, max(abs(south), abs(north)) + rowHeight)
        let cosine = cos(poleward * .pi / 180)
        let maxLongitudeDifference = 2 * (cellMeters / Self.metresPerDegree) / max(cosine, 1e-12)
        guard maxLongitudeDifference < 120 else { return 1 }
        return max(1, Int((360 / maxLongitudeDifference).rounded(.down)))
    }

    private func column(of longitude: Double, columns: Int) -> Int {
        let fraction = (Geohash.wrapLongitude(longitude) + 180) / 360
        let col = Int((fraction * Double(columns)).rounded(.down))
        return min(max(col, 0), columns) % columns  // 180° is the same meridian as -180°: column 0
    }
}
