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
    struct Cell: Hashable {
        var row: Int
        var column: Int
    }

    /// Every centre within this great-circle distance of a query point is found.
    let cellMeters: Double
    /// Row height, degrees of latitude.
    private let rowHeight: Double
    private var cells: [Cell: [Int]] = [:]

    private static let metresPerDegree = Geodesy.earthRadius * .pi / 180

    init(cellMeters: Double) {
        self.cellMeters = max(cellMeters, 1)
        // A great-circle distance d bounds the latitude difference by d (in degrees: d / metresPerDegree); the small
        // margin keeps rounding from pushing a neighbour two rows away.
        rowHeight = self.cellMeters / Self.metresPerDegree * 1.001
    }

    mutating func insert(_ index: Int, latitude: Double, longitude: Double) {
        let row = rowOf(latitude)
        let cell = Cell(row: row, column: column(of: longitude, columns: columnCount(row: row)))
        cells[cell, default: []].append(index)
    }

    /// Calls `body` with the index of every region whose centre may be within `cellMeters` of the point (a
    /// superset; callers measure). Cells are visited in a fixed order, so the sequence is deterministic.
    func forEachCandidate(latitude: Double, longitude: Double, _ body: (Int) -> Void) {
        let centreRow = rowOf(latitude)
        for row in (centreRow - 1)...(centreRow + 1) {
            let count = columnCount(row: row)
            let centreColumn = column(of: longitude, columns: count)
            // With fewer than 3 columns the ±1 ring would wrap onto itself: visit each column once instead.
            let columns = count >= 3 ? [centreColumn - 1, centreColumn, centreColumn + 1] : Array(0..<count)
            for col in columns {
                let wrapped = (col % count + count) % count
                if let indices = cells[Cell(row: row, column: wrapped)] { indices.forEach(body) }
            }
        }
    }

    private func rowOf(_ latitude: Double) -> Int { Int((latitude / rowHeight).rounded(.down)) }

    /// Columns in a row. For two points within d of each other whose latitudes are at most φm in absolute value,
    /// haversine gives sin(Δλ/2) ≤ sin(d/2R) / cos φm, hence Δλ ≤ (π/2)·(d/R) / cos φm; we use 2 instead of π/2
    /// for margin. φm is the row's poleward edge plus one row, because the query point may sit in the next row.
    private func columnCount(row: Int) -> Int {
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
