import Foundation
import RoquaBoundaries

/// Builds the cell index (`CellFormat`) from every unit's rings, on every core:
/// 1. each edge is listed in the 1° tiles it touches or lies within the search radius of;
/// 2. each tile gets a reference point no edge line passes through, and GEOS says which units
///    cover it (for every unit whose box meets the tile);
/// 3. each tile's quadtree is cut from there (`CellTileBuilder`), every deeper reference
///    point's side found by exact crossing counts.
package enum CellIndexBuilder {
    package struct Output: Sendable {
        /// One value per 1° tile, row-major from (-180°, -90°), little-endian UInt32.
        package var grid: Data
        /// Tile blobs by tile number.
        package var tiles: [(id: Int, blob: Data)]
        package var leaves: Int
        package var seconds: Double
        package var bytes: Int { grid.count + tiles.reduce(0) { $0 + $1.blob.count } }
    }

    private static let columns = CellFormat.tileColumns, rows = CellFormat.tileRows

    package static func build(
        _ geometry: CellGeometry, fallbackMeters: Double, limits: CellLimits = CellLimits(),
        threads: Int = ProcessInfo.processInfo.activeProcessorCount
    ) throws -> Output {
        let started = Date()
        var tuned = limits
        if let k = ProcessInfo.processInfo.environment["ROQUA_CELL_K"].flatMap(Int.init) { tuned.edgesPerCell = k }
        let limits = tuned
        let units = UnitTable(
            levels: geometry.levels, parents: Array(repeating: -1, count: geometry.unitCount),
            countryCodes: geometry.countryCodes, codes: geometry.codes, precisions: geometry.precisions)
        let debug = ProcessInfo.processInfo.environment["ROQUA_CELL_DEBUG"] != nil
        func phase(_ name: String) {
            if debug { FileHandle.standardError.write(Data("\(name) \(Date().timeIntervalSince(started))\n".utf8)) }
        }
        let edges = CellEdges(geometry)
        let tileEdges = assignEdges(geometry, fallbackMeters: fallbackMeters, limits: limits)
        phase("assign")
        let references = (0..<(rows * columns)).map { reference(tile: $0, edges: tileEdges[$0], geometry: edges) }
        phase("references")
        let status = try coverStatus(geometry, references: references, tileEdges: tileEdges, threads: threads)
        phase("status")

        var grid = [UInt32](repeating: CellFormat.empty, count: rows * columns)
        let results = Slots<(UInt32, Data?, Int)>(count: rows * columns)
        let shared = Shared((edges, units, tileEdges, references, status))
        DispatchQueue.concurrentPerform(iterations: max(threads, 1)) { worker in
            let (geometry, units, tileEdges, references, status) = shared.value
            for tile in stride(from: worker, to: rows * columns, by: max(threads, 1)) {
                guard let reference = references[tile], !tileEdges[tile].isEmpty || status[tile].contains(where: \.inside) else {
                    results.set(tile, (CellFormat.empty, nil, 0))
                    continue
                }
                var builder = CellTileBuilder(geometry: geometry, units: units, limits: limits, fallbackMeters: fallbackMeters)
                builder.build(TileSeed(tile: tile, box: box(tile), reference: reference, edges: tileEdges[tile], status: status[tile]))
                if builder.nodes.count == 1, builder.leaves.isEmpty {
                    results.set(tile, (builder.nodes[0], nil, 0))
                } else {
                    results.set(
                        tile,
                        (
                            UInt32(tile),
                            CellTileEncoder.encode(
                                nodes: builder.nodes, leaves: builder.leaves,
                                nearLists: builder.nearLists, geometry: geometry),
                            builder.leaves.count
                        ))
                }
            }
        }
        phase("tiles")
        var tiles: [(id: Int, blob: Data)] = []
        var leaves = 0
        for tile in 0..<(rows * columns) {
            // concurrentPerform has run every iteration, and each sets all of its tiles.
            let (value, blob, count) = results.get(tile) ?? (CellFormat.empty, nil, 0)
            grid[tile] = value
            if let blob { tiles.append((tile, blob)) }
            leaves += count
        }
        var gridData = Data(count: 4 * grid.count)
        gridData.withUnsafeMutableBytes { raw in
            for (i, value) in grid.enumerated() { raw.storeBytes(of: value.littleEndian, toByteOffset: 4 * i, as: UInt32.self) }
        }
        return Output(grid: gridData, tiles: tiles, leaves: leaves, seconds: Date().timeIntervalSince(started))
    }

    static func box(_ tile: Int) -> BoundingBox {
        let x = Double(tile % columns) - 180, y = Double(tile / columns) - 90
        return BoundingBox(minX: x, minY: y, maxX: x + 1, maxY: y + 1)
    }

    /// The search radius used for a row of tiles, capped where cells are left to GEOS anyway.
    private static func rowReach(_ row: Int, fallbackMeters: Double, limits: CellLimits) -> Double {
        let latitude = max(abs(Double(row) - 90), abs(Double(row) - 89))
        return min(Geodesy.searchRadiusDegrees(meters: fallbackMeters, latitude: latitude), limits.maxRadiusDegrees) + 2 * CellFormat.margin
    }

    /// Per tile, the edges touching it widened by its row's search radius, ascending.
    private static func assignEdges(_ geometry: CellGeometry, fallbackMeters: Double, limits: CellLimits) -> [[Int32]] {
        let reach = (0..<rows).map { rowReach($0, fallbackMeters: fallbackMeters, limits: limits) }
        let widest = reach.max() ?? 0
        var lists = [[Int32]](repeating: [], count: rows * columns)
        for e in 0..<geometry.vertexCount where geometry.startsEdge[e] {
            let b = geometry.edgeBox(e)
            let firstRow = max(0, Int((b.minY + 90 - widest).rounded(.down))),
                lastRow = min(rows - 1, Int((b.maxY + 90 + widest).rounded(.down)))
            guard firstRow <= lastRow else { continue }
            for row in firstRow...lastRow {
                let r = reach[row], y0 = Double(row) - 90
                guard b.maxY >= y0 - r, b.minY <= y0 + 1 + r else { continue }
                let first = max(0, Int((b.minX + 180 - r).rounded(.down))), last = min(columns - 1, Int((b.maxX + 180 + r).rounded(.down)))
                guard first <= last else { continue }
                for column in first...last { lists[row * columns + column].append(Int32(e)) }
            }
        }
        return lists
    }

    /// A point inside the tile that no edge touching it passes through or near (nil if none is
    /// found: the tile is then left out, which the resolver answers as empty — never seen on real data).
    private static func reference(tile: Int, edges: [Int32], geometry: CellEdges) -> (x: Double, y: Double)? {
        let b = box(tile)
        let inTile = edges.filter { geometry.touches($0, b, by: CellFormat.margin) }
        for offset in CellNode.offsets {
            let r = (x: b.minX + offset.0, y: b.minY + offset.1)
            let clear = inTile.allSatisfy { e in
                let o = geometry.orientation(e, r.x, r.y)
                return o != 0 && o != Predicates.uncertain
            }
            if clear { return r }
        }
        return nil
    }

    /// Per tile: each unit whose box meets it, and whether it covers the tile's reference point
    /// (GEOS `covers` on the whole unit; the point is on no edge, so this is exact). Units
    /// outside with no edge in the tile are dropped.
    private static func coverStatus(
        _ geometry: CellGeometry, references: [(x: Double, y: Double)?], tileEdges: [[Int32]],
        threads: Int
    ) throws -> [[(unit: Int32, inside: Bool)]] {
        let found = Slots<[(tile: Int, unit: Int32, inside: Bool)]>(count: max(threads, 1))
        let failures = Slots<any Error>(count: max(threads, 1))
        let shared = Shared((geometry, references))
        DispatchQueue.concurrentPerform(iterations: max(threads, 1)) { worker in
            let (geometry, references) = shared.value
            let context = GEOSContext()
            var pairs: [(tile: Int, unit: Int32, inside: Bool)] = []
            do {
                for unit in stride(from: worker, to: geometry.unitCount, by: max(threads, 1)) {
                    let b = geometry.boxes[unit]
                    let m = 2 * CellFormat.margin
                    let rowRange = max(0, Int((b.minY + 90 - m).rounded(.down)))...min(rows - 1, Int((b.maxY + 90 + m).rounded(.down)))
                    let columnRange =
                        max(0, Int((b.minX + 180 - m).rounded(.down)))...min(columns - 1, Int((b.maxX + 180 + m).rounded(.down)))
                    let prepared = try context.polygonal(geometry.polygons[unit]).prepared()
                    for row in rowRange {
                        for column in columnRange {
                            let tile = row * columns + column
                            guard let r = references[tile] else { continue }
                            pairs.append((tile, Int32(unit), try prepared.covers(context.point(x: r.x, y: r.y))))
                        }
                    }
                }
            } catch {
                failures.set(worker, error)
            }
            found.set(worker, pairs)
        }
        for worker in 0..<max(threads, 1) { if let error = failures.get(worker) { throw error } }
        var status = [[(unit: Int32, inside: Bool)]](repeating: [], count: rows * columns)
        var hasEdges = [Set<Int32>](repeating: [], count: rows * columns)
        for tile in 0..<(rows * columns) {
            let b = box(tile)
            for e in tileEdges[tile] {
                let box = geometry.edgeBox(Int(e))
                if box.maxX >= b.minX - CellFormat.margin, box.minX <= b.maxX + CellFormat.margin,
                    box.maxY >= b.minY - CellFormat.margin, box.minY <= b.maxY + CellFormat.margin
                {
                    hasEdges[tile].insert(geometry.unitOf[Int(e)])
                }
            }
        }
        for worker in 0..<max(threads, 1) {
            for pair in found.get(worker) ?? [] where pair.inside || hasEdges[pair.tile].contains(pair.unit) {
                status[pair.tile].append((pair.unit, pair.inside))
            }
        }
        return status
    }
}

/// Values set by `concurrentPerform` iterations, each index by one iteration, read after the join.
private final class Slots<T>: @unchecked Sendable {
    private var values: [T?]
    private let lock = NSLock()

    init(count: Int) { values = Array(repeating: nil, count: count) }

    func set(_ i: Int, _ value: T) {
        lock.lock()
        values[i] = value
        lock.unlock()
    }

    func get(_ i: Int) -> T? {
        lock.lock()
        defer { lock.unlock() }
        return values[i]
    }
}

/// Read-only inputs handed to `concurrentPerform` iterations.
private struct Shared<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
