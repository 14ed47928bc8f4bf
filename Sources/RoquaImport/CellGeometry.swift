import Foundation
import RoquaBoundaries

/// Every unit's rings as one flat vertex array, collected while the importer writes the units
/// (in boundary id order, which is the resolver's unit numbering). An *edge* is named by the
/// index of its first vertex; its second vertex is the next one. Rings follow each other in the
/// geometry's own order (shell, holes, next polygon), so edges of a unit in index order are in
/// GEOS's ring order — the order its nearest-point search visits them in.
package struct CellGeometry: Sendable {
    /// x, y of every vertex (closed rings: a ring's last vertex repeats its first).
    package private(set) var xy: [Double] = []
    /// The unit of every vertex.
    package private(set) var unitOf: [Int32] = []
    /// Whether vertex i starts an edge (false for the closing vertex of each ring).
    package private(set) var startsEdge: [Bool] = []
    package private(set) var levels: [AdminLevel] = []
    package private(set) var codes: [String] = []
    package private(set) var countryCodes: [String] = []
    package private(set) var precisions: [Int] = []
    package private(set) var boxes: [BoundingBox] = []
    /// Each unit's polygons (shell first), to build its GEOS geometry again.
    package private(set) var polygons: [[PolygonRings]] = []

    package init() {}

    package var unitCount: Int { levels.count }
    package var vertexCount: Int { unitOf.count }

    package mutating func add(
        level: AdminLevel, code: String, country: String, precision: Int, box: BoundingBox,
        polygons rings: [[Ring]]
    ) {
        let unit = Int32(levels.count)
        levels.append(level)
        codes.append(code)
        countryCodes.append(country)
        precisions.append(precision)
        boxes.append(box)
        var assembled: [PolygonRings] = []
        for polygon in rings {
            guard let shell = polygon.first else { continue }
            assembled.append(PolygonRings(shell: shell, holes: Array(polygon.dropFirst())))
            for ring in polygon where ring.count >= 2 {
                for i in 0..<ring.count {
                    xy.append(ring.xs[i])
                    xy.append(ring.ys[i])
                    unitOf.append(unit)
                    startsEdge.append(i < ring.count - 1)
                }
            }
        }
        polygons.append(assembled)
    }

    @inline(__always) package func x(_ vertex: Int) -> Double { xy[2 * vertex] }
    @inline(__always) package func y(_ vertex: Int) -> Double { xy[2 * vertex + 1] }

    /// The box of edge `e` (vertices e and e + 1).
    @inline(__always)
    package func edgeBox(_ e: Int) -> BoundingBox {
        let ax = xy[2 * e], ay = xy[2 * e + 1], bx = xy[2 * e + 2], by = xy[2 * e + 3]
        return BoundingBox(minX: min(ax, bx), minY: min(ay, by), maxX: max(ax, bx), maxY: max(ay, by))
    }
}

/// The collected vertices frozen into flat memory for the builder's hot loops: reading them
/// involves no reference counting, so the loops stay fast even in debug builds (the tests
/// import the bundled data with one).
final class CellEdges: @unchecked Sendable {
    // @unchecked: filled in `init`, only read afterwards.
    let xy: UnsafeMutablePointer<Double>
    let unitOf: UnsafeMutablePointer<Int32>
    let vertexCount: Int

    init(_ geometry: CellGeometry) {
        vertexCount = geometry.vertexCount
        xy = .allocate(capacity: max(2 * vertexCount, 1))
        xy.initialize(from: geometry.xy, count: 2 * vertexCount)
        unitOf = .allocate(capacity: max(vertexCount, 1))
        unitOf.initialize(from: geometry.unitOf, count: vertexCount)
    }

    deinit {
        xy.deallocate()
        unitOf.deallocate()
    }

    @inline(__always) func unit(_ edge: Int32) -> Int32 { unitOf[Int(edge)] }

    /// Whether edge `e`'s box meets the box (minX, minY, maxX, maxY).
    @inline(__always)
    func touches(_ e: Int32, _ minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double) -> Bool {
        let p = xy + 2 * Int(e)
        return max(p[0], p[2]) >= minX && min(p[0], p[2]) <= maxX && max(p[1], p[3]) >= minY && min(p[1], p[3]) <= maxY
    }

    @inline(__always)
    func touches(_ e: Int32, _ box: BoundingBox, by margin: Double) -> Bool {
        touches(e, box.minX - margin, box.minY - margin, box.maxX + margin, box.maxY + margin)
    }

    /// The orientation of (x, y) against edge `e`'s line (`Predicates.orientation`).
    @inline(__always)
    func orientation(_ e: Int32, _ x: Double, _ y: Double) -> Int {
        let p = xy + 2 * Int(e)
        return Predicates.orientation(p[0], p[1], p[2], p[3], x, y)
    }
}
