import Foundation
import RoquaBoundaries

/// Writes one tile's quadtree and leaves as the blob `CellFormat` describes, with the vertices
/// its runs use copied in and the runs renumbered to them.
enum CellTileEncoder {
    static func encode(nodes: [UInt32], leaves: [CellTileBuilder.Leaf], nearLists: [CellTileBuilder.NearList],
                       geometry: CellGeometry) -> Data {
        var used: [Int32] = []
        for leaf in leaves {
            for entry in leaf.entries { for run in entry.runs { used.append(contentsOf: run.0...(run.0 + run.1)) } }
        }
        for list in nearLists {
            for near in list { for run in near.runs { used.append(contentsOf: run.0...(run.0 + run.1)) } }
        }
        used.sort()
        var vertices: [Int32] = []
        for v in used where vertices.last != v { vertices.append(v) }
        var local: [Int32: Int32] = [:]
        local.reserveCapacity(vertices.count)
        for (i, v) in vertices.enumerated() { local[v] = Int32(i) }

        var words: [Int32] = []
        var listOffsets: [Int32] = []
        for list in nearLists {
            listOffsets.append(Int32(words.count))
            words.append(Int32(list.count))
            for near in list {
                words += [near.unit, Int32(near.runs.count)]
                for run in near.runs { words += [local[run.0]!, run.1] }  // every run's vertices were listed above
            }
        }
        var offsets: [UInt32] = []
        for leaf in leaves {
            offsets.append(UInt32(words.count))
            let flags = (leaf.usesGeometry ? CellFormat.leafUsesGeometry : 0) | (leaf.nearUsesGeometry ? CellFormat.leafNearUsesGeometry : 0)
            words += [Int32(leaf.entries.count), leaf.near.map { listOffsets[$0] } ?? -1, flags]
            for entry in leaf.entries {
                let state = (entry.coversAll ? CellFormat.entryCoversAll : 0) | (entry.inside ? CellFormat.entryReferenceInside : 0)
                words += [entry.unit, state, Int32(entry.runs.count)]
                for run in entry.runs { words += [local[run.0]!, run.1] }  // as above
            }
        }
        // Force unwrap: the counts are small and positive, so the layout always exists.
        let sections = CellFormat.Sections(nodes: nodes.count, leaves: leaves.count, words: words.count, vertices: vertices.count)!
        var blob = Data(count: sections.end)
        blob.withUnsafeMutableBytes { raw in
            let header: [UInt32] = [CellFormat.magic, UInt32(nodes.count), UInt32(leaves.count), UInt32(words.count), UInt32(vertices.count), 0]
            for (i, value) in header.enumerated() { raw.storeBytes(of: value.littleEndian, toByteOffset: 4 * i, as: UInt32.self) }
            for (i, value) in nodes.enumerated() { raw.storeBytes(of: value.littleEndian, toByteOffset: sections.nodes + 4 * i, as: UInt32.self) }
            for (i, value) in offsets.enumerated() { raw.storeBytes(of: value.littleEndian, toByteOffset: sections.leaves + 4 * i, as: UInt32.self) }
            for (i, value) in words.enumerated() { raw.storeBytes(of: value.littleEndian, toByteOffset: sections.words + 4 * i, as: Int32.self) }
            for (i, leaf) in leaves.enumerated() {
                raw.storeBytes(of: leaf.reference.x.bitPattern.littleEndian, toByteOffset: sections.refs + 16 * i, as: UInt64.self)
                raw.storeBytes(of: leaf.reference.y.bitPattern.littleEndian, toByteOffset: sections.refs + 16 * i + 8, as: UInt64.self)
            }
            for (i, v) in vertices.enumerated() {
                raw.storeBytes(of: geometry.x(Int(v)).bitPattern.littleEndian, toByteOffset: sections.vertices + 16 * i, as: UInt64.self)
                raw.storeBytes(of: geometry.y(Int(v)).bitPattern.littleEndian, toByteOffset: sections.vertices + 16 * i + 8, as: UInt64.self)
            }
            for (size, count, offset) in [(CellFormat.blockVertices, CellFormat.blockCount(vertices: vertices.count), sections.blocks),
                                          (CellFormat.groupVertices, CellFormat.groupCount(vertices: vertices.count), sections.groups)] {
                for block in 0..<count {
                    let members = vertices[(block * size)...min(vertices.count - 1, (block + 1) * size)]
                    let xs = members.map { geometry.x(Int($0)) }, ys = members.map { geometry.y(Int($0)) }
                    // Blocks are never empty; Float boxes are rounded outward so they still hold every vertex.
                    let box = [Float(xs.min()!).nextDown, Float(ys.min()!).nextDown, Float(xs.max()!).nextUp, Float(ys.max()!).nextUp]
                    for (k, value) in box.enumerated() {
                        raw.storeBytes(of: value.bitPattern.littleEndian, toByteOffset: offset + 16 * block + 4 * k, as: UInt32.self)
                    }
                }
            }
        }
        return blob
    }
}
