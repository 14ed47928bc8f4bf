import Foundation
import RoquaProgress
import RoquaTestSupport
import Testing

private let sphereRadius = 6_371_007.2
private let earthArea = 4 * Double.pi * sphereRadius * sphereRadius
private let columns: Int64 = 360_000

/// The test's own cell geometry, from the key alone.
private struct Cell {
    let row: Int64, column: Int64
    init(_ key: Int64) { (row, column) = (key / columns, key % columns) }
    var south: Double { Double(row) / 1000 - 90 }
    var west: Double { Double(column) / 1000 - 180 }
    /// R²·Δλ·(sin φ2 − sin φ1).
    var area: Double {
        sphereRadius * sphereRadius * (0.001 * .pi / 180)
            * (sin((south + 0.001) * .pi / 180) - sin(south * .pi / 180))
    }
}

private func haversine(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
    let φ1 = lat1 * .pi / 180, φ2 = lat2 * .pi / 180
    let dφ = φ2 - φ1, dλ = (lon2 - lon1) * .pi / 180
    let h = sin(dφ / 2) * sin(dφ / 2) + cos(φ1) * cos(φ2) * sin(dλ / 2) * sin(dλ / 2)
    return 2 * sphereRadius * asin(min(1, h.squareRoot()))
}

/// Distance from the circle's centre to the cell's point nearest by clamping (the documented rule).
private func distance(from circle: ExploredCircle, to cell: Cell) -> Double {
    let latitude = min(max(circle.latitude, cell.south), cell.south + 0.001)
    var dλ = circle.longitude - (cell.west + 0.0005)
    dλ -= 360 * (dλ / 360).rounded()  // relative to the cell's middle, across the antimeridian too
    let longitude = cell.west + 0.0005 + min(max(dλ, -0.0005), 0.0005)
    return haversine(circle.latitude, circle.longitude, latitude, longitude)
}

struct WorldGridTests {
    @Test func cellAreasAddUpToTheEarth() {
        var total = 0.0
        for row in 0..<Int64(WorldGrid.rows) { total += WorldGrid.area(ofCell: row * columns) * Double(columns) }
        #expect(abs(total - earthArea) / earthArea < 1e-9)
        #expect(abs(WorldGrid.earthArea - earthArea) / earthArea < 1e-15)
    }

    @Test func cellsShrinkTowardsThePoles() throws {
        let equator = WorldGrid.area(ofCell: try #require(WorldGrid.cell(latitude: 0.0005, longitude: 10)))
        let sixty = WorldGrid.area(ofCell: try #require(WorldGrid.cell(latitude: 60.0005, longitude: 10)))
        #expect(abs(sixty / equator - 0.5) / 0.5 < 0.001)
        #expect(abs(equator - 111_195.1 * 111_195.1 * 0.001 * 0.001) / equator < 1e-4)
    }

    @Test func percentageOfKnownCellsIsTheirAnalyticArea() throws {
        // 1 m circles in the middle of cells touch exactly those cells.
        let points = [(41.0105, 29.0205), (-12.3455, -77.0125), (60.0005, 10.0005), (75.0005, 100.0005), (0.0005, 0.0005)]
        let circles = points.map { ExploredCircle(latitude: $0.0, longitude: $0.1, radius: 1) }
        let cells = WorldGrid.visitedCells(of: circles)
        #expect(cells == Set(try points.map { try #require(WorldGrid.cell(latitude: $0.0, longitude: $0.1)) }))
        let expected = cells.reduce(0) { $0 + Cell($1).area } / earthArea * 100
        #expect(abs(WorldGrid.percentage(of: circles) - expected) / expected < 1e-9)
        #expect(abs(WorldGrid.percentage(ofCells: cells) - expected) / expected < 1e-9)
    }

    /// The percentage counted in 64-cell words is the percentage of the cell set, to the bit: walks,
    /// scattered circles of every size, across the antimeridian, around both poles, invalid ones.
    @Test func percentageByWordsIsThePercentageOfTheCellSet() throws {
        var random = SeededGenerator(state: 3_402)
        func uniform(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &random) }
        var circles: [ExploredCircle] = []
        var latitude = 41.0, longitude = 29.0
        for _ in 0..<20_000 {  // a walk: neighbouring circles share words
            latitude += uniform(-0.002...0.002)
            longitude += uniform(-0.002...0.002)
            circles.append(ExploredCircle(latitude: latitude, longitude: longitude, radius: 150))
        }
        for _ in 0..<1_000 {
            circles.append(ExploredCircle(latitude: uniform(-85...85), longitude: uniform(-180...180), radius: uniform(0...2_000)))
        }
        for _ in 0..<300 {  // across the antimeridian
            circles.append(ExploredCircle(latitude: uniform(-60...60), longitude: uniform(179.99...180.01), radius: uniform(1...400)))
        }
        for _ in 0..<4 {  // around the poles: whole rows of 360,000 cells
            circles.append(ExploredCircle(latitude: uniform(89.999...90), longitude: uniform(-180...180), radius: uniform(1...250)))
            circles.append(ExploredCircle(latitude: uniform(-90 ... -89.999), longitude: uniform(-540...540), radius: uniform(1...250)))
        }
        circles += [
            ExploredCircle(latitude: 10, longitude: 10, radius: 6_000), ExploredCircle(latitude: .nan, longitude: 0, radius: 150),
            ExploredCircle(latitude: 95, longitude: 0, radius: 150), ExploredCircle(latitude: 0, longitude: 0, radius: -1),
        ]
        let byWords = WorldGrid.percentage(of: circles), bySet = WorldGrid.percentage(ofCells: WorldGrid.visitedCells(of: circles))
        #expect(byWords == bySet && byWords > 0, "\(byWords) \(bySet)")
        for prefix in [1, 2, 17, 1_000] {
            let part = Array(circles.suffix(prefix))
            #expect(WorldGrid.percentage(of: part) == WorldGrid.percentage(ofCells: WorldGrid.visitedCells(of: part)))
        }
    }

    /// A circle touches the cells within one radius of it: the area of the circle grown by the cell
    /// (Minkowski sum πr² + 2r(w + h) + wh) over the cell area, on average over placements.
    @Test(arguments: [0.0, 60.0])
    func circleTouchesTheExpectedNumberOfCells(latitude: Double) throws {
        let r = 150.0
        let h = sphereRadius * 0.001 * .pi / 180, w = h * cos(latitude * .pi / 180)
        let expected = (Double.pi * r * r + 2 * r * (w + h) + w * h) / (w * h)
        var generator = SeededGenerator(state: 11)
        var total = 0
        for _ in 0..<200 {
            let circle = ExploredCircle(
                latitude: latitude + .random(in: 0..<0.001, using: &generator),
                longitude: 20 + .random(in: 0..<0.001, using: &generator), radius: r)
            let count = WorldGrid.visitedCells(of: [circle]).count
            // One placement is discrete: at the equator a centred circle touches 3 × 3 = 9 cells (−26 %).
            #expect(abs(Double(count) - expected) / expected < 0.35)
            total += count
        }
        #expect(abs(Double(total) / 200 - expected) / expected < 0.03)  // measured −1.2 % (0°), +0.5 % (60°)
    }

    /// Every cell in a window around each circle is visited exactly when the documented distance rule
    /// says so (ties within a millimetre of the radius may go either way).
    @Test(arguments: [
        (41.0123, 29.0456), (0.0003, 179.9997), (-0.0004, -179.9999), (70.1234, -20.5678),
        (-55.5555, 0.0001),
    ])
    func visitedCellsFollowTheDistanceRule(latitude: Double, longitude: Double) throws {
        let circle = ExploredCircle(latitude: latitude, longitude: longitude, radius: 150)
        let visited = WorldGrid.visitedCells(of: [circle])
        let centre = Cell(try #require(WorldGrid.cell(latitude: latitude, longitude: longitude)))
        for dr in -4...4 {
            for dc in -12...12 {
                let column = ((centre.column + Int64(dc)) % columns + columns) % columns
                let key = (centre.row + Int64(dr)) * columns + column
                let d = distance(from: circle, to: Cell(key))
                if abs(d - 150) < 0.001 { continue }
                #expect(visited.contains(key) == (d <= 150), "row \(dr), column \(dc): \(d) m")
            }
        }
        #expect(visited.allSatisfy { abs(Cell($0).row - centre.row) <= 4 })
    }

    @Test func antimeridianCellsOnBothSides() {
        let cells = WorldGrid.visitedCells(of: [ExploredCircle(latitude: 0.0005, longitude: 179.9999, radius: 150)])
        let row: Int64 = 90_000
        #expect(cells.contains(row * columns + 359_999) && cells.contains(row * columns + 0))
        #expect(cells.contains(row * columns + 1) && !cells.contains(row * columns + 3))
    }

    @Test func circleOnAPoleTouchesWholeRows() throws {
        let cells = WorldGrid.visitedCells(of: [ExploredCircle(latitude: 90, longitude: 0, radius: 150)])
        // Rows within 150 m of the pole: 89.999…90 (0–111 m) and 89.998…89.999 (111–222 m).
        #expect(cells.count == 2 * Int(columns))
        let band = 2 * Double.pi * sphereRadius * sphereRadius * (1 - sin(89.998 * .pi / 180))
        #expect(abs(WorldGrid.percentage(ofCells: cells) - band / earthArea * 100) / (band / earthArea * 100) < 1e-6)
        let south = WorldGrid.visitedCells(of: [ExploredCircle(latitude: -90, longitude: 123, radius: 100)])
        #expect(south.count == Int(columns) && south.allSatisfy { $0 < columns })
    }

    @Test func duplicatesCountOnce() {
        let circle = ExploredCircle(latitude: 41.02, longitude: 29.01, radius: 150)
        let nearby = ExploredCircle(latitude: 41.0201, longitude: 29.0101, radius: 150)
        #expect(WorldGrid.percentage(of: [circle, circle, circle]) == WorldGrid.percentage(of: [circle]))
        #expect(WorldGrid.visitedCells(of: [circle, nearby, circle]) == WorldGrid.visitedCells(of: [nearby, circle]))
        #expect(WorldGrid.percentage(of: [circle, nearby]) < 2 * WorldGrid.percentage(of: [circle]))
    }

    @Test func invalidCirclesAreSkipped() {
        let good = ExploredCircle(latitude: 41.02, longitude: 29.01, radius: 150)
        let bad = [
            ExploredCircle(latitude: .nan, longitude: 0, radius: 150),
            ExploredCircle(latitude: 95, longitude: 0, radius: 150),
            ExploredCircle(latitude: 0, longitude: 0, radius: -5),
        ]
        #expect(WorldGrid.visitedCells(of: bad + [good]) == WorldGrid.visitedCells(of: [good]))
        #expect(WorldGrid.percentage(of: []) == 0)
        #expect(WorldGrid.cell(latitude: .nan, longitude: 0) == nil)
        #expect(WorldGrid.cell(latitude: 10, longitude: 370) == WorldGrid.cell(latitude: 10, longitude: 10))
    }

    @Test func formatting() {
        let value = 0.001_234_567_89
        #expect(WorldGrid.format(value) == "0.00123")
        #expect(WorldGrid.format(value, decimals: 4) == "0.0012")
        #expect(WorldGrid.format(value, decimals: 9) == "0.001234568")
        #expect(WorldGrid.format(value, decimals: 1) == "0.0012")  // clamped up to 4
        #expect(WorldGrid.format(value, decimals: 15) == "0.001234568")  // clamped down to 9
        #expect(WorldGrid.format(100, decimals: 4) == "100.0000")
        #expect(WorldGrid.format(0, decimals: 9) == "0.000000000")
    }

    /// What `roqua stats` prints: never "0.00000 %" for a real walk.
    @Test func readableShares() {
        #expect(WorldGrid.readable(0.000_000_36) == "0.00000036 %")  // a morning's walk
        #expect(WorldGrid.readable(0.000_114) == "0.00011 %")
        #expect(WorldGrid.readable(0.0123) == "0.012 %")
        #expect(WorldGrid.readable(2.5) == "2.5 %")
        #expect(WorldGrid.readable(100) == "100.0 %")
        #expect(WorldGrid.readable(0) == "0 %")
        #expect(WorldGrid.readable(.nan) == "0 %")
        #expect(abs(WorldGrid.earthSquareKilometres - 510_065_000) < 100_000)
    }
}
