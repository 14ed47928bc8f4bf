import Foundation

/// Which caps may overlap which. One hashed 3-D grid per radius class (radius in [2^k, 2^(k+1)) m,
/// cells 2^(k+2) m on the chord coordinates R·centre): chords know no antimeridian or pole, and a chord
/// is never longer than its arc. Within a class a circle's reach spans at most 3 cells per axis, so
/// those neighbours are looked up when needed (nothing stored: a dense tangle has hundreds per
/// circle). Pairs across classes are found once, from the smaller circle, and stored, so a large
/// circle never scans the fine cells of small ones.
struct NeighbourIndex {
    private let levels: [Level]
    private let levelOfCap: [UInt8]  // positions in `levels`: at most 19 radius classes (to 1,000 km)
    private let crossLevel: [[Int32]]  // overlapping caps of other classes, per cap
    private let sphereRadius: Double

    init(_ caps: [Cap], sphereRadius: Double) {
        self.sphereRadius = sphereRadius
        var byLevel: [Int: [Int32]] = [:]
        for (i, cap) in caps.enumerated() { byLevel[max(1, Int(log2(cap.metres).rounded(.down))), default: []].append(Int32(i)) }
        levels = byLevel.sorted { $0.key < $1.key }
            .map { Level(level: $0.key, members: $0.value, caps: caps, sphereRadius: sphereRadius) }
        var levelOfCap = [UInt8](repeating: 0, count: caps.count)
        var crossLevel = [[Int32]](repeating: [], count: caps.count)
        for (position, home) in levels.enumerated() {
            for i in home.members {
                levelOfCap[Int(i)] = UInt8(position)
                let cap = caps[Int(i)]
                for other in levels[(position + 1)...] {
                    _ = other.forEachMember(near: cap.centre * sphereRadius, reach: cap.metres + other.largestRadius) { j in
                        let o = caps[Int(j)], offset = o.centre - cap.centre
                        if centralAngle(chordSquared: offset.dot(offset)) < cap.rho + o.rho {
                            crossLevel[Int(i)].append(j)
                            crossLevel[Int(j)].append(i)
                        }
                        return true
                    }
                }
            }
        }
        self.levelOfCap = levelOfCap
        self.crossLevel = crossLevel
    }

    /// Calls `body` with each cap that may overlap cap `i` (and a few that do not) until it returns false.
    func forEachCandidate(of i: Int, _ caps: [Cap], _ body: (Int) -> Bool) {
        let level = levels[Int(levelOfCap[i])], cap = caps[i]
        let more = level.forEachMember(near: cap.centre * sphereRadius, reach: cap.metres + level.largestRadius) { j in
            Int(j) == i || body(Int(j))
        }
        guard more else { return }
        for j in crossLevel[i] where !body(Int(j)) { return }
    }

    /// A root cap per cap, grouping together every pair that overlaps. Groups join whole neighbouring
    /// cells rather than testing pairs, so they may be coarser than the true overlap components; any
    /// grouping that keeps each boundary loop whole gives the same area.
    func groups(_ caps: [Cap]) -> [Int] {
        var sets = UnionFind(count: caps.count)
        for level in levels { level.joinNeighbouringCells(&sets) }
        for (i, others) in crossLevel.enumerated() {
            for j in others { sets.union(i, Int(j)) }
        }
        return caps.indices.map { sets.find($0) }
    }

    /// A class, not a struct: taken from `levels` for each cap, a struct was copied — its arrays
    /// retained and released — on every one of a million rims.
    private final class Level: Sendable {
        let members: [Int32]
        let cellSize, largestRadius: Double
        private let cells: CellRuns  // occupied cell → its run in `sorted`
        private let sorted: [Int32]

        init(level: Int, members: [Int32], caps: [Cap], sphereRadius: Double) {
            self.members = members
            let size = Double(1 << (level + 2))
            cellSize = size
            largestRadius = members.reduce(0) { max($0, caps[Int($1)].metres) }
            let scale = sphereRadius / size
            let keyed = members.map { i -> (Int64, Int32) in
                let p = caps[Int(i)].centre * scale
                return (Self.key(Int64(p.x.rounded(.down)), Int64(p.y.rounded(.down)), Int64(p.z.rounded(.down))), i)
            }.sorted { $0.0 < $1.0 }
            sorted = keyed.map(\.1)
            var runStart = 0, runs: [(Int64, Range<Int>)] = []
            for k in 1...keyed.count where k == keyed.count || keyed[k].0 != keyed[runStart].0 {
                runs.append((keyed[runStart].0, runStart..<k))
                runStart = k
            }
            cells = CellRuns(runs)
        }

        /// Members in the cells within `reach` of `p` (metres), until `body` returns false.
        func forEachMember(near p: Vector3, reach: Double, _ body: (Int32) -> Bool) -> Bool {
            func span(_ v: Double) -> ClosedRange<Int64> {
                Int64(((v - reach) / cellSize).rounded(.down))...Int64(((v + reach) / cellSize).rounded(.down))
            }
            for ix in span(p.x) {
                for iy in span(p.y) {
                    for iz in span(p.z) {
                        guard let run = cells.run(Self.key(ix, iy, iz)) else { continue }
                        for k in run where !body(sorted[k]) { return false }
                    }
                }
            }
            return true
        }

        /// Within a class, overlapping circles sit in the same or adjacent cells (their reach is under
        /// one cell per axis); each adjacent pair of cells is joined once, from the lower one.
        func joinNeighbouringCells(_ sets: inout UnionFind) {
            cells.forEach { key, run in
                let first = Int(sorted[run.lowerBound])
                for k in run.dropFirst() { sets.union(first, Int(sorted[k])) }
                for (dx, dy, dz) in Self.forward {
                    guard let other = cells.run(key + dx << 42 + dy << 21 + dz) else { continue }
                    sets.union(first, Int(sorted[other.lowerBound]))
                }
            }
        }

        private static let forward: [(Int64, Int64, Int64)] = (-1...1).flatMap { x in
            (-1...1).flatMap { y in (-1...1).map { z in (Int64(x), Int64(y), Int64(z)) } }
        }.filter { $0 > (0, 0, 0) }

        /// Cell indices biased into 21 bits each: class 1 (8 m cells) spans ±8·10^5 per axis.
        private static func key(_ x: Int64, _ y: Int64, _ z: Int64) -> Int64 {
            let bias: Int64 = 1 << 20
            return (x + bias) << 42 | (y + bias) << 21 | (z + bias)
        }
    }
}

/// Occupied cells (keys ≥ 0) → their run of members: open addressing with linear probing and a
/// multiplicative hash, at most half full. Hashing an `Int64` key through `Dictionary` (SipHash)
/// was most of the cost of the grouping and a good part of the rims at a million caps.
private struct CellRuns {
    private var keys: [Int64]
    private var starts: [Int32]
    private var ends: [Int32]
    private let shift: Int

    init(_ runs: [(Int64, Range<Int>)]) {
        var bits = 1
        while 1 << bits < runs.count * 2 { bits += 1 }
        keys = Array(repeating: -1, count: 1 << bits)
        starts = Array(repeating: 0, count: 1 << bits)
        ends = Array(repeating: 0, count: 1 << bits)
        shift = 64 - bits
        for (key, run) in runs {
            var slot = home(key)
            while keys[slot] >= 0 { slot = (slot + 1) & (keys.count - 1) }
            keys[slot] = key
            starts[slot] = Int32(run.lowerBound)
            ends[slot] = Int32(run.upperBound)
        }
    }

    private func home(_ key: Int64) -> Int {
        Int(truncatingIfNeeded: UInt64(bitPattern: key &* -7_046_029_254_386_353_131) >> UInt64(shift)) & (keys.count - 1)
    }

    @inline(__always)
    func run(_ key: Int64) -> Range<Int>? {
        var slot = home(key)
        while true {
            let found = keys[slot]
            if found == key { return Int(starts[slot])..<Int(ends[slot]) }
            if found < 0 { return nil }
            slot = (slot + 1) & (keys.count - 1)
        }
    }

    func forEach(_ body: (Int64, Range<Int>) -> Void) {
        for slot in keys.indices where keys[slot] >= 0 { body(keys[slot], Int(starts[slot])..<Int(ends[slot])) }
    }
}

struct UnionFind {
    private var parent: [Int32]

    init(count: Int) { parent = (0..<count).map { Int32($0) } }

    mutating func find(_ i: Int) -> Int {
        var i = i
        while Int(parent[i]) != i {
            parent[i] = parent[Int(parent[i])]  // path halving
            i = Int(parent[i])
        }
        return i
    }

    mutating func union(_ a: Int, _ b: Int) {
        let ra = find(a), rb = find(b)
        if ra != rb { parent[max(ra, rb)] = Int32(min(ra, rb)) }
    }
}
