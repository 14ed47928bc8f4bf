import Foundation

/// One thread's walk through the shared `CellIndex`: finds the leaf holding a point (reusing the
/// previous leaf when the point is still inside it, which is most of a GPS track), tells which
/// units of a mixed leaf cover the point, and searches the leaf's nearby units for the fallback.
/// Holds plain pointers into the shared index and unit table (the owning `Resolver` keeps them
/// alive through its `ResolverIndex`), and the resolver calls it in place: the hot path does no
/// reference counting, so two workers never write to a common object header.
struct CellLookup {
    /// A leaf: its value (`CellFormat`) and, for a mixed leaf, its tile.
    struct Leaf {
        var value: UInt32
        var tile: UnsafePointer<CellTile>?
    }

    /// For a tile's first read only; the per-point path reads `grid` and the loaded tiles.
    unowned(unsafe) let index: CellIndex
    let grid: UnsafePointer<UInt32>
    let units: UnitColumns
    private var last = (x: -1, y: -1, size: 0)
    private var lastLeaf = Leaf(value: CellFormat.empty, tile: nil)
    /// This thread's connection for first reads of tiles, opened on the first one.
    private var reader: CellIndex.TileReader?
    /// What the last nearest-unit search learnt, for the next one nearby.
    private var memory = NearMemory()

    init(index: CellIndex, units: UnitTable) {
        self.index = index
        grid = UnsafePointer(index.grid)
        self.units = units.columns
    }

    /// The leaf holding (x, y).
    /// - Throws: `BoundaryDatabaseError` when a tile cannot be read.
    @inline(__always)
    mutating func leaf(x: Double, y: Double) throws -> Leaf {
        let (px, py) = CellFormat.position(x: x, y: y)
        if px &- last.x < last.size, py &- last.y < last.size, px >= last.x, py >= last.y { return lastLeaf }
        let bits = CellFormat.depthBits
        let top = grid[(py >> bits) * CellFormat.tileColumns + (px >> bits)]
        var leaf = Leaf(value: top, tile: nil)
        var shift = bits
        if top & CellFormat.leafFlag == 0 {
            let tile = try index.tile(Int(top), reader: &reader)
            let nodes = (UnsafeRawPointer(tile) + CellIndex.nodesOffset).assumingMemoryBound(to: UInt32.self)
            var value = nodes[0]
            while value & CellFormat.leafFlag == 0 {
                shift -= 1
                let quadrant = ((py >> shift) & 1) << 1 | ((px >> shift) & 1)
                value = nodes[Int(value) + quadrant]
            }
            leaf = Leaf(value: value, tile: tile)
        }
        let size = 1 << shift
        last = (px & ~(size - 1), py & ~(size - 1), size)
        lastLeaf = leaf
        return leaf
    }

    /// Where a mixed leaf's record starts, and the leaf's flags.
    @inline(__always)
    static func record(_ leaf: Leaf) -> (tile: UnsafePointer<CellTile>, number: Int, flags: Int32) {
        let tile = leaf.tile!  // only mixed leaves are asked, and they always come with their tile
        let number = Int(leaf.value & ~CellFormat.leafFlag) - 1
        return (tile, number, tile.pointee.words[Int(tile.pointee.leafOffsets[number]) + 2])
    }

    /// The answer unit among the leaf's units covering (x, y) (see `AnswerRule`), or -1.
    /// `geosCovers` answers the rare point the exact-sign filter cannot place (within ~1e-15
    /// of an edge's line).
    @inline(__always)
    mutating func covering(_ leaf: Leaf, x: Double, y: Double, geosCovers: (Int32) throws -> Bool) rethrows -> Int32 {
        let (tile, number, _) = Self.record(leaf)
        let t = tile.pointee
        var at = Int(t.leafOffsets[number])
        let entries = Int(t.words[at])
        at += 3
        let rx = t.refs[2 * number], ry = t.refs[2 * number + 1]
        var best: Int32 = -1, country: Int32 = -1
        for _ in 0..<entries {
            let unit = t.words[at], state = t.words[at + 1], runs = Int(t.words[at + 2])
            let runStart = t.words + at + 3
            at += 3 + 2 * runs
            if best >= 0, units.country[Int(unit)] != country || !units.isDeeper(unit, than: best) { continue }
            var covered = state & CellFormat.entryCoversAll != 0
            if !covered {
                switch Predicates.side(
                    qx: x, qy: y, rx: rx, ry: ry, rInside: state & CellFormat.entryReferenceInside != 0,
                    vertices: t.vertices, runs: runStart, runCount: runs)
                {
                case .inside, .boundary: covered = true
                case .outside: covered = false
                case .uncertain: covered = try geosCovers(unit)
                }
            }
            if covered {
                if best < 0 { country = units.country[Int(unit)] }
                best = unit
            }
        }
        return best
    }

    /// The nearest of the leaf's nearby units within `meters` of `c`: deepest level first (a
    /// level with any unit in range answers), only levels deeper than `belowLevel` and units
    /// of `country` when it is not -1; ties to the smaller code.
    ///
    /// Consecutive searches of one list (a track along a coast) reuse what the last one learnt
    /// (`NearMemory`): the unit that answered is searched first, from the edge it answered with,
    /// and a unit whose distance, less the way travelled since it was measured, is still beyond
    /// the limit is skipped. Distances are 1-Lipschitz in the point, so these are lower bounds and
    /// the answer is the one a full search gives.
    mutating func nearest(_ leaf: Leaf, _ c: Coordinate, deeperThan belowLevel: Int, country: Int32, meters: Double) -> (Int32, Double)? {
        let (tile, number, _) = Self.record(leaf)
        let t = tile.pointee
        let list = Int(t.words[Int(t.leafOffsets[number]) + 1])
        guard list >= 0 else { return nil }
        let count = Int(t.words[list])
        let px = c.longitude, py = c.latitude
        memory.begin(
            NearMemory.Key(tile: tile, list: list, belowLevel: belowLevel, country: country, meters: meters),
            x: px, y: py, units: count)
        // A unit whose nearest point (in degrees) lies beyond this radius is farther than `meters`.
        let reach = Geodesy.searchRadiusDegrees(meters: meters, latitude: c.latitude)
        // Metres per degree can be no less than this within reach (longitude shrinks toward the
        // poles), so a unit farther in degrees than best / this cannot beat the best found.
        let metresPerDegree = Geodesy.earthRadius * .pi / 180 * cos(min(90, abs(c.latitude) + reach) * .pi / 180) * 0.99
        var best: (unit: Int32, meters: Double, ordinal: Int, at: Int, edge: Int)?
        let first = memory.winner
        func consider(_ ordinal: Int, _ at: Int) {
            let unit = t.words[at], runs = Int(t.words[at + 1])
            let limit = best.map { min(reach, $0.meters / max(metresPerDegree, 1e-9)) } ?? reach
            guard memory.lowerBound(ordinal) < limit * (1 + 1e-9) else { return }
            let found = NearestEdge.search(
                px, py, within: limit, seed: ordinal == first.ordinal ? first.edge : -1, tile: t,
                runs: t.words + at + 2, runCount: runs)
            memory.measured(ordinal, found.floor)
            guard let point = found.point else { return }
            let distance = Geodesy.haversineMeters(c, Coordinate(latitude: point.y, longitude: point.x))
            guard distance <= meters else { return }
            if let b = best, b.meters < distance || (b.meters == distance && units.codeRank[Int(b.unit)] <= units.codeRank[Int(unit)]) {
                return
            }
            best = (unit, distance, ordinal, at, found.edge)
        }
        var at = list + 1
        var currentLevel = -1
        for ordinal in 0..<count {
            let unit = t.words[at], runs = Int(t.words[at + 1])
            defer { at += 2 + 2 * runs }
            let level = Int(units.level[Int(unit)])
            guard level > belowLevel, country < 0 || units.country[Int(unit)] == country else { continue }
            if level != currentLevel {
                if best != nil { break }  // near units come deepest level first
                currentLevel = level
                // The unit that answered last, first in its level: its distance bounds the rest.
                if first.ordinal >= 0, first.level == level { consider(first.ordinal, first.at) }
            }
            if ordinal != first.ordinal { consider(ordinal, at) }
        }
        memory.winner =
            best.map { b in
                NearMemory.Winner(ordinal: b.ordinal, at: b.at, level: Int(units.level[Int(b.unit)]), edge: b.edge)
            } ?? .none
        return best.map { ($0.unit, $0.meters) }
    }
}
