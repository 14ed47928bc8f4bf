import Foundation

/// The layout of the precomputed cell index, written by `roqua import` (`CellIndexBuilder`) and
/// read by the resolver (`CellIndex`).
///
/// The world is a grid of 1° tiles (`cell_index.grid`: one UInt32 per tile, row-major from
/// (-180°, -90°)). A tile is a *leaf* (empty, or one answer for every point in it) or the id of a
/// row of `cell_tiles`: a quadtree down to 2⁻²⁰° whose leaves are empty, one answer, or *mixed*.
/// A mixed leaf lists, in decision order (layer precision, then level, then code), the units
/// that cover it whole or whose edges cross it, with a reference point of known side per unit,
/// and the units with edges within the fallback distance for the nearest-boundary search.
///
/// Tile blob (little-endian; every section starts on an 8-byte boundary):
/// ```
/// header   UInt32 × 6: magic, node count, leaf count, word count, vertex count, 0
/// nodes    UInt32 × nodes   root first; an inner node holds the index of its first child (the
///                           4 children follow each other: x bit + 2 · y bit), a leaf its value
/// leaves   UInt32 × leaves  offset of each mixed leaf's record in `words`
/// words    Int32 × words    leaf records and nearby-unit lists (below)
/// refs     Double × 2·leaves the reference point (x, y) of each mixed leaf
/// vertices Double × 2·vertices  x, y of every vertex the tile's records use
/// blocks   Float × 4·⌈vertices/16⌉  box (min x, min y, max x, max y, rounded outward) of
///                           vertices 16k…16k+16, then the same per 256 vertices
/// ```
/// Leaf record: `entries, near list offset (-1: none), flags`, then per entry
/// `unit, state, runs, (start, edges)×runs` (state: bit 0 covers the whole leaf, bit 1 the
/// reference point is inside). Nearby-unit list (shared by the leaves of a small area):
/// `units`, then per unit `unit, runs, (start, edges)×runs`, deepest level first. A run of n
/// edges joins vertices start…start+n.
package enum CellFormat {
    package static let version = 1
    package static let magic: UInt32 = 0x3154_5152  // "RQT1"
    package static let tileColumns = 360
    package static let tileRows = 180
    /// Quadtree depth below a 1° tile: the finest cell is 2⁻²⁰° (about 0.1 m).
    package static let depthBits = 20
    package static let scale = Double(1 << depthBits)

    // Grid and node values.
    package static let leafFlag: UInt32 = 1 << 31
    package static let answerFlag: UInt32 = 1 << 30
    /// No unit covers any part of the cell and none lies within the fallback distance.
    package static let empty: UInt32 = leafFlag
    package static func answer(_ unit: Int32) -> UInt32 { leafFlag | answerFlag | UInt32(unit) }
    package static func mixed(_ leaf: Int) -> UInt32 { leafFlag | UInt32(leaf + 1) }

    // Leaf record bits.
    package static let entryCoversAll: Int32 = 1
    package static let entryReferenceInside: Int32 = 2
    /// The leaf could not be indexed within its limits: the resolver answers it with GEOS.
    package static let leafUsesGeometry: Int32 = 1
    /// The leaf lists no nearby units and leaves the nearest-unit search to GEOS. Imports before
    /// the cell index listed them everywhere set it on leaves whose sample points were all
    /// covered deeply (a point in the sea beside them then paid for opening the GEOS path);
    /// `roqua import` no longer sets it, and the resolver still honours it in an older DB.
    package static let leafNearUsesGeometry: Int32 = 2

    /// Cells are widened by this much (degrees) when listing the edges that touch them, so a
    /// point whose cell number was rounded across a cell border still finds every edge near it.
    package static let margin = 1e-9

    /// The integer cell coordinates of a point: 2²⁰ per degree from (-180°, -90°), clamped to the grid.
    @inline(__always)
    package static func position(x: Double, y: Double) -> (x: Int, y: Int) {
        let px = Int(((x + 180) * scale).rounded(.down)), py = Int(((y + 90) * scale).rounded(.down))
        return (min(max(px, 0), tileColumns << depthBits - 1), min(max(py, 0), tileRows << depthBits - 1))
    }

    /// Vertices per bounding block, and per group of blocks, for pruning the nearest-point search.
    package static let blockVertices = 16
    package static let groupVertices = 256

    /// The byte offsets of a tile blob's sections; nil for impossible counts.
    package struct Sections: Equatable {
        package var nodes = 0, leaves = 0, words = 0, refs = 0, vertices = 0, blocks = 0, groups = 0, end = 0

        package init?(nodes nodeCount: Int, leaves leafCount: Int, words wordCount: Int, vertices vertexCount: Int) {
            func aligned(_ n: Int) -> Int { (n + 7) & ~7 }
            guard nodeCount > 0, leafCount >= 0, wordCount >= 0, vertexCount >= 0 else { return nil }
            nodes = 24
            leaves = aligned(nodes + 4 * nodeCount)
            words = aligned(leaves + 4 * leafCount)
            refs = aligned(words + 4 * wordCount)
            vertices = refs + 16 * leafCount
            blocks = vertices + 16 * vertexCount
            groups = blocks + 16 * CellFormat.blockCount(vertices: vertexCount)
            end = aligned(groups + 16 * CellFormat.groupCount(vertices: vertexCount))
        }
    }

    package static func blockCount(vertices: Int) -> Int { (vertices + blockVertices - 1) / blockVertices }
    package static func groupCount(vertices: Int) -> Int { (vertices + groupVertices - 1) / groupVertices }
}

/// A loaded tile: typed pointers into its blob, which the `CellIndex` owns and never frees
/// while the index lives.
package struct CellTile {
    package let nodes: UnsafePointer<UInt32>
    package let leafOffsets: UnsafePointer<UInt32>
    package let words: UnsafePointer<Int32>
    package let refs: UnsafePointer<Double>
    package let vertices: UnsafePointer<Double>
    /// Boxes of 16 and of 256 vertices (`CellFormat.blockVertices`, `groupVertices`).
    package let blocks: UnsafePointer<Float>
    package let groups: UnsafePointer<Float>
    package let nodeCount: Int, leafCount: Int, wordCount: Int, vertexCount: Int

    /// Reads the header of `blob` (8-byte aligned, `size` bytes) and checks that every count,
    /// offset and run stays inside it, so a damaged file is an error, never a wild read.
    package init?(blob: UnsafeRawPointer, size: Int, unitCount: Int) {
        guard size >= 24, blob.load(as: UInt32.self) == CellFormat.magic else { return nil }
        let header = (1...4).map { Int(blob.load(fromByteOffset: 4 * $0, as: UInt32.self)) }
        guard let s = CellFormat.Sections(nodes: header[0], leaves: header[1], words: header[2], vertices: header[3]),
            s.end == size
        else { return nil }
        (nodeCount, leafCount, wordCount, vertexCount) = (header[0], header[1], header[2], header[3])
        nodes = (blob + s.nodes).assumingMemoryBound(to: UInt32.self)
        leafOffsets = (blob + s.leaves).assumingMemoryBound(to: UInt32.self)
        words = (blob + s.words).assumingMemoryBound(to: Int32.self)
        refs = (blob + s.refs).assumingMemoryBound(to: Double.self)
        vertices = (blob + s.vertices).assumingMemoryBound(to: Double.self)
        blocks = (blob + s.blocks).assumingMemoryBound(to: Float.self)
        groups = (blob + s.groups).assumingMemoryBound(to: Float.self)
        guard isWellFormed(unitCount: unitCount) else { return nil }
    }

    private func isWellFormed(unitCount: Int) -> Bool {
        for i in 0..<nodeCount {
            let v = nodes[i]
            if v & CellFormat.leafFlag == 0 {
                guard Int(v) > i, Int(v) + 4 <= nodeCount else { return false }
            } else if v & CellFormat.answerFlag != 0 {
                guard Int(v & ~(CellFormat.leafFlag | CellFormat.answerFlag)) < unitCount else { return false }
            } else if v != CellFormat.empty {
                guard Int(v & ~CellFormat.leafFlag) <= leafCount else { return false }
            }
        }
        var at = 0
        func word() -> Int? {
            guard at < wordCount else { return nil }
            defer { at += 1 }
            return Int(words[at])
        }
        func group(_ hasState: Bool) -> Bool {
            guard let unit = word(), unit >= 0, unit < unitCount else { return false }
            if hasState, word() == nil { return false }
            guard let runs = word(), runs >= 0 else { return false }
            for _ in 0..<runs {
                guard let start = word(), let count = word(), start >= 0, count >= 0,
                    start + count < vertexCount || count == 0
                else { return false }
            }
            return true
        }
        var checkedLists = Set<Int>()
        for leaf in 0..<leafCount {
            at = Int(leafOffsets[leaf])
            guard let entries = word(), let near = word(), word() != nil, entries >= 0, near >= -1, near < wordCount else { return false }
            for _ in 0..<entries where !group(true) { return false }
            guard near >= 0, checkedLists.insert(near).inserted else { continue }
            at = near
            guard let units = word(), units >= 0 else { return false }
            for _ in 0..<units where !group(false) { return false }
        }
        return true
    }
}
