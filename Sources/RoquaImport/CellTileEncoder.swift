import Foundation
import RoquaBoundaries

/// Writes one tile's quadtree and leaves as the blob `CellFormat` describes, with the vertices
/// its runs use copied in and the runs renumbered to them.
enum CellTileEncoder {
    static func encode(
        nodes: [UInt32], leaves: [CellTileBuilder.Leaf], nearLists: [CellTileBuilder.NearList],
        geometry: CellEdges
    ) -> Data {
        // The vertices used: the union of every run's vertex interval, kept as merged intervals.
        var intervals: [(start: Int32, end: Int32)] = []
        for leaf in leaves { for entry in leaf.entries { for run in entry.runs { intervals.append((run.0, run.0 + run.1)) } } }
        for list in nearLists { for near in list { for run in near.runs { intervals.append((run.0, run.0 + run.1)) } } }
        intervals.sort { $0.start < $1.start }
        var merged: [(start: Int32, end: Int32, local: Int32)] = []
        var vertexCount: Int32 = 0
        for interval in intervals {
            if let last = merged.last, interval.start <= last.end + 1 {
                if interval.end > last.end {
                    vertexCount += interval.end - last.end
                    merged[merged.count - 1].end = interval.end
                }
            } else {
                merged.append((interval.start, interval.end, vertexCount))
                vertexCount += interval.end - interval.start + 1
            }
        }
        /// The local number of global vertex `v` (which lies in one of the merged intervals).
        func local(_ v: Int32) -> Int32 {
            var lo = 0, hi = merged.count - 1
            while lo < hi {
                let mid = (lo + hi + 1) / 2
                if merged[mid].start <= v { lo = mid } else { hi = mid - 1 }
            }
            return merged[lo].local + (v - merged[lo].start)
        }
        var vertices: [Int32] = []
        vertices.reserveCapacity(Int(vertexCount))
        for interval in merged { vertices.append(contentsOf: interval.start...interval.end) }

        var words: [Int32] = []
        var listOffsets: [Int32] = []
        for list in nearLists {
            listOffsets.append(Int32(words.count))
            words.append(Int32(list.count))
            for near in list {
                words += [near.unit, Int32(near.runs.count)]
                for run in near.runs { words += [local(run.0), run.1] }
            }
        }
        var offsets: [UInt32] = []
        for leaf in leaves {
            offsets.append(UInt32(words.count))
            let flags = leaf.usesGeometry ? CellFormat.leafUsesGeometry : 0
            words += [Int32(leaf.entries.count), leaf.near.map { listOffsets[$0] } ?? -1, flags]
            for entry in leaf.entries {
                let state = (entry.coversAll ? CellFormat.entryCoversAll : 0) | (entry.inside ? CellFormat.entryReferenceInside : 0)
                words += [entry.unit, state, Int32(entry.runs.count)]
                for run in entry.runs { words += [local(run.0), run.1] }
            }
        }
        // Force unwrap: the counts are small and positive, so the layout always exists.
        let sections = CellFormat.Sections(nodes: nodes.count, leaves: leaves.count, words: words.count, vertices: vertices.count)!
        // Every section as plain arrays first, then copied into the blob in one go each.
        var xy = [Double](repeating: 0, count: 2 * vertices.count)
        for (i, v) in vertices.enumerated() {
            xy[2 * i] = geometry.xy[2 * Int(v)]
            xy[2 * i + 1] = geometry.xy[2 * Int(v) + 1]
        }
        var refs = [Double](repeating: 0, count: 2 * leaves.count)
        for (i, leaf) in leaves.enumerated() { (refs[2 * i], refs[2 * i + 1]) = (leaf.reference.x, leaf.reference.y) }
        func boxes(_ size: Int, _ count: Int) -> [Float] {
            var out = [Float](repeating: 0, count: 4 * count)
            for block in 0..<count {
                var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
                for i in (block * size)...min(vertices.count - 1, (block + 1) * size) {
                    minX = min(minX, xy[2 * i])
                    maxX = max(maxX, xy[2 * i])
                    minY = min(minY, xy[2 * i + 1])
                    maxY = max(maxY, xy[2 * i + 1])
                }
                // Rounded outward, so a Float box still holds every vertex.
                (out[4 * block], out[4 * block + 1]) = (Float(minX).nextDown, Float(minY).nextDown)
                (out[4 * block + 2], out[4 * block + 3]) = (Float(maxX).nextUp, Float(maxY).nextUp)
            }
            return out
        }
        let blocks = boxes(CellFormat.blockVertices, CellFormat.blockCount(vertices: vertices.count))
        let groups = boxes(CellFormat.groupVertices, CellFormat.groupCount(vertices: vertices.count))
        let header: [UInt32] = [
            CellFormat.magic, UInt32(nodes.count), UInt32(leaves.count), UInt32(words.count), UInt32(vertices.count), 0,
        ]
        var blob = Data(count: sections.end)
        blob.withUnsafeMutableBytes { raw in
            // The blob is read as native little-endian memory (every platform Roqua runs on).
            func put<T>(_ values: [T], at offset: Int) {
                values.withUnsafeBytes { raw.baseAddress!.advanced(by: offset).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            }
            put(header, at: 0)
            put(nodes, at: sections.nodes)
            put(offsets, at: sections.leaves)
            put(words, at: sections.words)
            put(refs, at: sections.refs)
            put(xy, at: sections.vertices)
            put(blocks, at: sections.blocks)
            put(groups, at: sections.groups)
        }
        return blob
    }
}
