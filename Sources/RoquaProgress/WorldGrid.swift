import Foundation

/// The share of the world explored, on a 0.001° latitude/longitude grid whose cells are weighted by
/// their true area: a cell between latitudes φ1…φ2 spanning Δλ radians covers R²·Δλ·(sin φ2 − sin φ1)
/// on the authalic sphere (R = 6,371,007.2 m), so a cell at 60° counts half as much as one at the
/// equator. Counting cells instead would overstate exploration towards the poles.
///
/// A cell is visited when it intersects a circle: the great-circle (haversine) distance from the
/// circle's centre to the cell's nearest point is at most the radius. The nearest point is taken by
/// clamping the centre's latitude and longitude into the cell. That is exact for the cell's meridian
/// edges and for points due north or south; across a parallel it is off by a factor ~(r/R)², i.e.
/// far below a millimetre for explored circles.
///
/// Cell key: `row · 360,000 + column`, row = ⌊(latitude + 90) · 1000⌋ in 0..<180,000 (90° itself
/// goes to the top row), column = ⌊(longitude + 180) · 1000⌋ in 0..<360,000 (longitudes wrap).
/// `visitedCells` costs one set insertion per covered cell: about 12 per 150 m circle at the
/// equator, more towards the poles where cells narrow (a circle around a pole touches every cell of
/// the rows it covers, 360,000 per row). `percentage(of:)` sets bits in 64-cell words instead.
public enum WorldGrid {
    /// Side of a grid cell, degrees.
    public static let cellDegrees = 0.001
    /// Rows of cells from -90° to 90°.
    public static let rows = 180_000
    /// Columns of cells from -180° to 180°.
    public static let columns = 360_000
    /// 4πR² on the authalic sphere, m².
    public static let earthArea = 4 * Double.pi * ExploredArea.sphereRadius * ExploredArea.sphereRadius

    /// The cell holding a point (latitudes clamped to ±90°, longitudes wrapped); nil when not finite.
    public static func cell(latitude: Double, longitude: Double) -> Int64? {
        guard latitude.isFinite, longitude.isFinite else { return nil }
        return key(row: row(latitude), column: column(longitude))
    }

    /// The true area of a cell, m².
    public static func area(ofCell key: Int64) -> Double {
        rowArea(Int(key / Int64(columns)))
    }

    /// The cells the circles touch. Circles with a non-finite value, a latitude outside ±90° or a
    /// negative radius are skipped (`ExploredArea.squareMeters` reports them as errors).
    public static func visitedCells(of circles: [ExploredCircle]) -> Set<Int64> {
        var cells = Set<Int64>()
        cells.reserveCapacity(circles.count * 8)
        for circle in circles where (try? circle.validate(index: 0)) != nil {
            insertCells(of: circle, into: &cells)
        }
        return cells
    }

    /// Percentage (0…100) of the Earth's surface the cells cover.
    public static func percentage(ofCells cells: Set<Int64>) -> Double {
        // Cells of a row share one area: count per row, then add rows in order, so equal sets give
        // bit-equal results whatever order the set iterates in.
        var perRow: [Int64: Int] = [:]
        for key in cells { perRow[key / Int64(columns), default: 0] += 1 }
        var total = 0.0
        for row in perRow.keys.sorted() { total += Double(perRow[row]!) * rowArea(Int(row)) }
        return min(100, total / earthArea * 100)
    }

    /// Percentage (0…100) of the Earth's surface in cells the circles touch.
    public static func percentage(of circles: [ExploredCircle]) -> Double {
        percentageByWords(of: circles)
    }

    /// A percentage with a fixed number of decimals (clamped to 4…9), "." as the separator and no
    /// "%" sign, e.g. `format(0.0012345)` → "0.00123".
    public static func format(_ percentage: Double, decimals: Int = 5) -> String {
        String(format: "%.\(min(9, max(4, decimals)))f", percentage)
    }

    /// A percentage as a person reads it: two significant digits however small (`0.00000036 %`,
    /// `2.5 %`), never a row of zeros.
    public static func readable(_ percentage: Double) -> String {
        guard percentage.isFinite, percentage > 0 else { return "0 %" }
        let decimals = min(12, max(1, 1 - Int(floor(log10(percentage)))))
        return String(format: "%.\(decimals)f %%", percentage)
    }

    /// The Earth's surface on the sphere the percentages are taken on, km².
    public static var earthSquareKilometres: Double { 4 * .pi * ExploredArea.sphereRadius * ExploredArea.sphereRadius / 1e6 }

    // MARK: - Cells of one circle

    /// Row by row: on the row's band, the nearest latitude to the centre is the clamped one, and the
    /// haversine inequality hav(Δφ) + cos φc·cos φn·hav(Δλ) ≤ hav(ρ) gives the longitude half-width
    /// directly, so no cell is tested one by one. `body(row, first, last)` gets each row's run of
    /// columns, unwrapped (`first` may be below 0 or `last` past the last column; never more than
    /// a whole row), a whole row as `0, columns - 1`.
    @inline(__always)
    private static func forEachRun(of circle: ExploredCircle, _ body: (Int, Int64, Int64) -> Void) {
        let rho = circle.radius / ExploredArea.sphereRadius
        let rhoDegrees = rho * 180 / .pi
        let φc = circle.latitude * .pi / 180
        let longitude = remainder(circle.longitude, 360)
        let havRho = rho >= .pi ? 1 : sinSquaredHalf(rho)
        let firstRow = row(circle.latitude - rhoDegrees), lastRow = row(circle.latitude + rhoDegrees)
        for r in firstRow...lastRow {
            let south = edgeLatitude(r), north = edgeLatitude(r + 1)
            let φn = min(max(φc, south), north)
            let slack = havRho - sinSquaredHalf(φn - φc)
            if slack < 0 { continue }
            let spread = cos(φc) * cos(φn)
            if spread <= slack {  // every longitude is within reach: the row circles a pole
                body(r, 0, Int64(columns) - 1)
                continue
            }
            let halfWidth = 2 * asin((slack / spread).squareRoot()) * 180 / .pi
            let first = unwrappedColumn(longitude - halfWidth), last = unwrappedColumn(longitude + halfWidth)
            if last - first + 1 >= Int64(columns) {
                body(r, 0, Int64(columns) - 1)
                continue
            }
            body(r, first, last)
        }
    }

    private static func insertCells(of circle: ExploredCircle, into cells: inout Set<Int64>) {
        forEachRun(of: circle) { r, first, last in
            let base = Int64(r) * Int64(columns)
            for c in first...last { cells.insert(base + Int64(wrapped(c))) }
        }
    }

    /// The percentage of `visitedCells(of:)` without a set of cells: each row's runs set bits in
    /// 64-column words kept in an open-addressing table (a 150 m circle touches about four words,
    /// against twelve set insertions), then each row's bits are counted. The same cells, so the
    /// same counts per row, added in row order as `percentage(ofCells:)` adds them: the same result
    /// to the bit.
    private static func percentageByWords(of circles: [ExploredCircle]) -> Double {
        percentage(ofWords: words(of: circles))
    }

    /// The cells `circles` touch, as words (invalid circles skipped).
    private static func words(of circles: some Sequence<ExploredCircle>) -> CellWords {
        var words = CellWords()
        for circle in circles where (try? circle.validate(index: 0)) != nil {
            forEachRun(of: circle) { r, first, last in
                // A run across the antimeridian is two runs within the row.
                if first < 0 {
                    words.set(row: r, from: Int(first) + columns, to: columns - 1)
                    words.set(row: r, from: 0, to: Int(last))
                } else if last >= Int64(columns) {
                    words.set(row: r, from: Int(first), to: columns - 1)
                    words.set(row: r, from: 0, to: Int(last) - columns)
                } else {
                    words.set(row: r, from: Int(first), to: Int(last))
                }
            }
        }
        return words
    }

    /// Percentage of the Earth's surface in the cells of `words` not in `except`'s, added up by
    /// row in order (equal sets give bit-equal results).
    private static func percentage(ofWords words: CellWords, except: CellWords? = nil) -> Double {
        var perRow = [Int](repeating: 0, count: rows)
        words.forEach { key, bits in
            perRow[Int(key / CellWords.wordsPerRow)] += (bits & ~(except?.word(key) ?? 0)).nonzeroBitCount
        }
        var total = 0.0
        for row in 0..<rows where perRow[row] > 0 { total += Double(perRow[row]) * rowArea(row) }
        return min(100, total / earthArea * 100)
    }

    /// The share of the cells `added` touches and `earlier` does not (see `percentageAdded`).
    static func percentage(of added: [ExploredCircle], notTouchedBy earlier: [ExploredCircle]) -> Double {
        percentage(ofWords: words(of: added), except: words(of: earlier))
    }

    /// 64-column words of visited cells, keyed `row · wordsPerRow + column / 64`, in an
    /// open-addressing table with linear probing (keys are never removed).
    private struct CellWords {
        static let wordsPerRow = Int64((columns + 63) / 64)
        private var keys = [Int64](repeating: -1, count: 1 << 12)
        private var bits = [UInt64](repeating: 0, count: 1 << 12)
        private var count = 0

        mutating func set(row: Int, from first: Int, to last: Int) {
            var column = first
            while column <= last {
                let word = column >> 6, end = min(last, word << 6 | 63)
                let width = end - column + 1
                let mask = (width == 64 ? UInt64.max : (UInt64(1) << UInt64(width)) - 1) << UInt64(column & 63)
                insert(Int64(row) * Self.wordsPerRow + Int64(word), mask)
                column = end + 1
            }
        }

        private mutating func insert(_ key: Int64, _ mask: UInt64) {
            var slot = Self.slot(key, keys.count)
            while true {
                if keys[slot] == key {
                    bits[slot] |= mask
                    return
                }
                if keys[slot] == -1 { break }
                slot = (slot + 1) & (keys.count - 1)
            }
            keys[slot] = key
            bits[slot] = mask
            count += 1
            if count * 2 > keys.count { grow() }
        }

        private static func slot(_ key: Int64, _ capacity: Int) -> Int {
            Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> 20) & (capacity - 1)
        }

        private mutating func grow() {
            let oldKeys = keys, oldBits = bits
            keys = [Int64](repeating: -1, count: oldKeys.count * 2)
            bits = [UInt64](repeating: 0, count: oldKeys.count * 2)
            for (key, word) in zip(oldKeys, oldBits) where key != -1 {
                var slot = Self.slot(key, keys.count)
                while keys[slot] != -1 { slot = (slot + 1) & (keys.count - 1) }
                keys[slot] = key
                bits[slot] = word
            }
        }

        /// The word at `key` (0 when no cell of it is set).
        func word(_ key: Int64) -> UInt64 {
            var slot = Self.slot(key, keys.count)
            while true {
                if keys[slot] == key { return bits[slot] }
                if keys[slot] == -1 { return 0 }
                slot = (slot + 1) & (keys.count - 1)
            }
        }

        func forEach(_ body: (Int64, UInt64) -> Void) {
            for (key, word) in zip(keys, bits) where key != -1 { body(key, word) }
        }
    }

    // MARK: - Grid arithmetic

    private static func key(row: Int, column: Int) -> Int64 { Int64(row) * Int64(columns) + Int64(column) }

    private static func row(_ latitude: Double) -> Int {
        let r = ((latitude + 90) / cellDegrees).rounded(.down)
        return Int(min(max(r, 0), Double(rows - 1)))
    }

    private static func column(_ longitude: Double) -> Int {
        wrapped(unwrappedColumn(remainder(longitude, 360)))
    }

    private static func wrapped(_ column: Int64) -> Int {
        Int(((column % Int64(columns)) + Int64(columns)) % Int64(columns))
    }

    /// Column index before wrapping (for longitudes within ±540°), so a range across the
    /// antimeridian stays increasing.
    private static func unwrappedColumn(_ longitude: Double) -> Int64 {
        Int64(((longitude + 180) / cellDegrees).rounded(.down))
    }

    /// Southern edge of a row, radians.
    private static func edgeLatitude(_ row: Int) -> Double {
        (Double(row) * cellDegrees - 90) * .pi / 180
    }

    /// R²·Δλ·(sin φ2 − sin φ1), with the sine difference as 2·cos(mid)·sin(half) so the equatorial
    /// rows keep their digits.
    private static func rowArea(_ row: Int) -> Double {
        let south = edgeLatitude(row), north = edgeLatitude(row + 1)
        let sineDifference = 2 * cos((south + north) / 2) * sin((north - south) / 2)
        let width = cellDegrees * .pi / 180
        return ExploredArea.sphereRadius * ExploredArea.sphereRadius * width * sineDifference
    }
}
