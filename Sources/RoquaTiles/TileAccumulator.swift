import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Per-source continuation state (last fix), kept across batches and flushes.
struct SourceState {
    var time: Int64
    var lat: Int32
    var lon: Int32
    var fx: Int32
    var fy: Int32
    /// The segment ending at this fix was drawn, so its pixel is already counted.
    var connected: Bool
}

/// Accumulates heat and line counts for the zooms it keeps, in memory, until flushed.
///
/// - Heat and lines are counted only at the top zoom while adding (a fix in its pixel; a
///   segment as a 1-px Bresenham line). Lower zooms are derived at flush time by summing 2×2
///   pixels level by level, which is exact for heat (a fix lies in pixel `p >> 1` one zoom down)
///   and makes a line pixel at zoom z count the top-zoom line pixels inside it ("ink").
/// - Memory: a tile is an open-addressing hash of (pixel UInt16, count UInt8) — 3 B a slot,
///   load ≤ 70 % — that turns into a dense 64 KiB byte raster past 11,469 pixels; a count at
///   255 continues in a side table. A tile crossed by one line costs ~1.5 KiB, not 256 KiB.
///   `needsFlush` turns true when the buffers exceed `flushThresholdBytes`; the caller then calls `flushCold()`
///   (evicts the least recently touched tiles down to four fifths of the threshold) or `flush()` (all)
///   and merges the result into storage. Any split into batches and flushes gives the same
///   stored sums.
public struct TileAccumulator {
    public let zooms: ClosedRange<Int>
    public let rule: LineRule
    public var flushThresholdBytes: Int
    var s: AccStorage

    /// Top zoom of the line rasters (≤ zooms.upperBound); render lines with this as `maxStoredZoom`.
    public let lineMaxZoom: Int

    /// - Parameter lineMaxZoom: top zoom of line rasters; default one below `zooms.upperBound`
    ///   (15 for 0…16). Measured: z16 line rasters are ~¾ of all buffered pixels and their
    ///   working set outgrows 64 MiB, tripling the import cost; at 15 lines over-zoom from z16 on
    ///   as 2-px strokes (TileRenderer.lines).
    public init(
        zooms: ClosedRange<Int> = 0...16, lineMaxZoom: Int? = nil, rule: LineRule = .standard,
        flushThresholdBytes: Int = 48 << 20
    ) {
        precondition(zooms.lowerBound >= 0 && zooms.upperBound <= 20)
        let lz = lineMaxZoom ?? max(zooms.lowerBound, zooms.upperBound - 1)
        precondition(zooms.contains(lz))
        self.zooms = zooms
        self.rule = rule
        self.flushThresholdBytes = flushThresholdBytes
        self.lineMaxZoom = lz
        s = AccStorage(zooms: zooms, lineMaxZoom: lz)
    }

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&s) { s = s.copy() }
    }

    /// Bytes held by the in-memory rasters now (tables + per-tile overhead).
    public var bytesInUse: Int { s.inUseBytes }
    /// High-water mark of `bytesInUse`.
    public var bytesReserved: Int { s.peakBytes }
    public var needsFlush: Bool { bytesInUse >= flushThresholdBytes }
    public var tileCount: Int { s.tileCount - s.freeSlots.count }
    /// Buffered tiles and their bytes per (zoom, kind), for statistics.
    public func residency() -> [TileKey: (tiles: Int, bytes: Int)] {
        var r: [TileKey: (tiles: Int, bytes: Int)] = [:]
        for sl in 0..<s.tileCount where s.live[sl] {
            let k = TileKey(z: s.keys[sl].z, x: 0, y: 0, kind: s.keys[sl].kind)
            let v = r[k] ?? (0, 0)
            r[k] = (v.tiles + 1, v.bytes + s.tableBytes(sl))
        }
        return r
    }

    /// (tiles, table bytes, non-zero pixels) emitted so far, for statistics.
    public var emitStats: (tiles: Int, bytes: Int, pixels: Int) { (s.emittedTiles, s.emittedBytes, s.emittedPixels) }
    /// Line pixels incremented so far (all zooms), for statistics.
    public var linePixelCount: Int { s.linePixels }

    /// Adds fixes of one source, in time order (continuing that source's previous batch).
    public mutating func add(source: Int64, fixes: [(time: Int64, lat: Int32, lon: Int32)]) {
        makeUnique()
        let st = s
        var state = st.sources[source]
        for f in fixes {
            st.addFix(&state, time: f.time, lat: f.lat, lon: f.lon, rule: rule)
        }
        st.sources[source] = state
    }

    /// Adds fixes given as `TileFix` (grouped by source in order of appearance).
    public mutating func add(_ fixes: [TileFix]) {
        makeUnique()
        let st = s
        var i = 0
        while i < fixes.count {
            let src = fixes[i].source
            var state = st.sources[src]
            while i < fixes.count && fixes[i].source == src {
                st.addFix(&state, time: fixes[i].time, lat: fixes[i].lat, lon: fixes[i].lon, rule: rule)
                i += 1
            }
            st.sources[src] = state
        }
    }

    /// Continues `source`'s line from `fix`, added (and counted) by an earlier import: a phone's
    /// posts, each an import of its own, draw one line.
    public mutating func resume(source: Int64, after fix: (time: Int64, lat: Int32, lon: Int32)) {
        makeUnique()
        s.sources[source] = SourceState(
            time: fix.time, lat: fix.lat, lon: fix.lon, fx: Projection.fineX(lonE7: fix.lon),
            fy: Projection.fineY(latE7: fix.lat), connected: true)
    }

    /// Forgets a source's last fix, so its next fix starts a new line.
    public mutating func endSource(_ source: Int64) {
        makeUnique()
        s.sources[source] = nil
    }

    /// Returns the counts gathered since the last flush (one sparse delta per touched tile and
    /// kind) and empties the buffers. Per-source continuation state is kept.
    public mutating func flush() -> [TileKey: TileDelta] {
        makeUnique()
        return s.flush(targetBytes: 0)
    }

    /// As `flush()`, handing `body` the counts one zoom at a time, the deepest first: no more
    /// than one zoom's deltas are held at once, and each zoom's buffers are freed as it is handed
    /// out (the final flush of a big import held them all, about 35 MB at ten years).
    public mutating func flush(zoomByZoom body: ([TileKey: TileDelta]) throws -> Void) rethrows {
        makeUnique()
        try s.flushAll(zoomByZoom: body)
    }

    /// Flushes only the least recently touched tiles, until at most `targetBytes` (default: four
    /// fifths of the threshold) stay buffered. Tiles still in use (the city you are in) stay in
    /// memory, so they are merged into storage far less often. Four fifths rather than half: the
    /// buffers stay fuller, so fewer tiles come back after their eviction (a ten-year import
    /// spills 189 MB instead of 217 MB; 1.06 GB instead of 1.21 GB on the heaviest history
    /// benchmarked, with 30 MB less memory and 10 % less time there).
    public mutating func flushCold(targetBytes: Int? = nil) -> [TileKey: TileDelta] {
        makeUnique()
        return s.flush(targetBytes: targetBytes ?? flushThresholdBytes * 4 / 5)
    }
}

final class AccStorage {
    let minZ: Int
    let maxZ: Int
    static let maxSlots = 1 << 20
    /// Per slot: table memory (hash: cap × UInt16 keys then cap × UInt8 counts; dense: 65,536 counts).
    let base: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>
    /// Per slot: hash capacity (power of two), 0 = dense.
    let cap: UnsafeMutablePointer<Int32>
    /// Per slot: occupied hash entries.
    let used: UnsafeMutablePointer<Int32>
    static let initialCap = 64
    static let maxHashCap = 16384
    static let slotOverhead = 160  // dictionary entry, key, bookkeeping (estimate)
    var tileCount = 0  // high-water mark of slots
    var freeSlots: [Int] = []
    var keys: [TileKey] = []
    var live: [Bool] = []
    var lastUse: [Int] = []
    var index: [TileKey: Int32] = [:]
    var bytes = 0
    var peakBytes = 0
    /// Counts past 254: the byte holds 255 and the rest is here, keyed by slot << 16 | pixel.
    var overflow: [Int: UInt32] = [:]
    var clock = 0
    var linePixels = 0
    var emittedBytes = 0, emittedPixels = 0, emittedTiles = 0
    /// Last tile per (kind, zoom): tx, ty, slot.
    let cache: UnsafeMutablePointer<Int>
    /// Scratch for emit (65,536 bytes, kept zero) and for pushing to parents (128×128 UInt32, kept zero).
    let scratch8: UnsafeMutablePointer<UInt8>
    let scratch32: UnsafeMutablePointer<UInt32>
    static let cacheStride = 32
    var sources: [Int64: SourceState] = [:]
    /// Scratch for sorting a sparse tile's pixels: 2 × `sortedEmitLimit` packed pixels, 512 counts.
    let radix: UnsafeMutablePointer<UInt32>
    let radixCounts: UnsafeMutablePointer<Int>

    let lineZ: Int

    init(zooms: ClosedRange<Int>, lineMaxZoom: Int) {
        minZ = zooms.lowerBound
        maxZ = zooms.upperBound
        lineZ = lineMaxZoom
        base = .allocate(capacity: Self.maxSlots)
        cap = .allocate(capacity: Self.maxSlots)
        used = .allocate(capacity: Self.maxSlots)
        cache = .allocate(capacity: 2 * Self.cacheStride * 3)
        cache.initialize(repeating: -1, count: 2 * Self.cacheStride * 3)
        scratch8 = .allocate(capacity: 65536)
        scratch8.initialize(repeating: 0, count: 65536)
        scratch32 = .allocate(capacity: 16384)
        scratch32.initialize(repeating: 0, count: 16384)
        radix = .allocate(capacity: 2 * Self.sortedEmitLimit)
        radixCounts = .allocate(capacity: 512)
    }

    deinit {
        for sl in 0..<tileCount where live[sl] { free(base[sl]) }
        base.deallocate()
        cap.deallocate()
        used.deallocate()
        cache.deallocate()
        scratch8.deallocate()
        scratch32.deallocate()
        radix.deallocate()
        radixCounts.deallocate()
    }

    func tableBytes(_ sl: Int) -> Int { cap[sl] == 0 ? 65536 : Int(cap[sl]) * 3 }

    var inUseBytes: Int { bytes + (tileCount - freeSlots.count) * Self.slotOverhead + overflow.count * 32 }

    func copy() -> AccStorage {
        let c = AccStorage(zooms: minZ...maxZ, lineMaxZoom: lineZ)
        for sl in 0..<tileCount {
            c.cap[sl] = cap[sl]
            c.used[sl] = used[sl]
            if live[sl], let b = base[sl] {
                let n = tableBytes(sl)
                let nb = malloc(n)!.assumingMemoryBound(to: UInt8.self)
                nb.update(from: b, count: n)
                c.base[sl] = nb
            } else {
                c.base[sl] = nil
            }
        }
        c.tileCount = tileCount
        c.freeSlots = freeSlots
        c.keys = keys
        c.live = live
        c.lastUse = lastUse
        c.index = index
        c.bytes = bytes
        c.peakBytes = peakBytes
        c.overflow = overflow
        c.sources = sources
        c.clock = clock
        c.linePixels = linePixels
        return c
    }

    @inline(never)
    func slot(kind: Int, z: Int, tx: Int, ty: Int) -> Int {
        let key = TileKey(z: z, x: tx, y: ty, kind: kind == 0 ? .heat : .lines)
        let sl: Int
        if let found = index[key] {
            sl = Int(found)
        } else {
            if let f = freeSlots.popLast() {
                sl = f
                keys[sl] = key
                live[sl] = true
            } else {
                precondition(tileCount < Self.maxSlots, "TileAccumulator: too many tiles buffered; flush more often")
                sl = tileCount
                tileCount += 1
                keys.append(key)
                live.append(true)
                lastUse.append(0)
            }
            base[sl] = calloc(Self.initialCap * 3, 1)!.assumingMemoryBound(to: UInt8.self)
            cap[sl] = Int32(Self.initialCap)
            used[sl] = 0
            bytes += Self.initialCap * 3
            peakBytes = max(peakBytes, inUseBytes)
            index[key] = Int32(sl)
        }
        lastUse[sl] = clock
        let c = cache + (kind * Self.cacheStride + z) * 3
        c[0] = tx
        c[1] = ty
        c[2] = sl
        return sl
    }

    @inline(__always)
    static func hash(_ idx: Int, _ mask: Int) -> Int { Int((UInt32(truncatingIfNeeded: idx) &* 0x9E37_79B1) >> 16) & mask }

    /// Doubles a hash table, or turns it dense past `maxHashCap`.
    @inline(never)
    func grow(_ sl: Int) {
        let oldCap = Int(cap[sl])
        let old = base[sl]!
        let oldKeys = UnsafeMutableRawPointer(old).assumingMemoryBound(to: UInt16.self)
        let oldCnt = old + oldCap * 2
        if oldCap * 2 > Self.maxHashCap {
            let d = calloc(65536, 1)!.assumingMemoryBound(to: UInt8.self)
            for i in 0..<oldCap where oldCnt[i] != 0 { d[Int(oldKeys[i])] = oldCnt[i] }
            base[sl] = d
            cap[sl] = 0
            bytes += 65536 - oldCap * 3
        } else {
            let nc = oldCap * 2, mask = nc - 1
            let nb = calloc(nc * 3, 1)!.assumingMemoryBound(to: UInt8.self)
            let nk = UnsafeMutableRawPointer(nb).assumingMemoryBound(to: UInt16.self)
            let ncnt = nb + nc * 2
            for i in 0..<oldCap where oldCnt[i] != 0 {
                var h = Self.hash(Int(oldKeys[i]), mask)
                while ncnt[h] != 0 { h = (h + 1) & mask }
                nk[h] = oldKeys[i]
                ncnt[h] = oldCnt[i]
            }
            base[sl] = nb
            cap[sl] = Int32(nc)
            bytes += nc * 3 - oldCap * 3
        }
        free(old)
        peakBytes = max(peakBytes, inUseBytes)
    }

    @inline(__always)
    func increment(kind: Int, z: Int, gx: Int, gy: Int, by n: UInt32 = 1) {
        let tx = gx >> 8, ty = gy >> 8
        let c = cache + (kind * Self.cacheStride + z) * 3
        let sl = (c[0] == tx && c[1] == ty) ? c[2] : slot(kind: kind, z: z, tx: tx, ty: ty)
        let idx = (gy & 255) << 8 | (gx & 255)
        let b = base[sl].unsafelyUnwrapped
        let cp = Int(cap[sl])
        let p: UnsafeMutablePointer<UInt8>
        var inserted = false
        if cp == 0 {
            p = b + idx
        } else {
            let k = UnsafeMutableRawPointer(b).assumingMemoryBound(to: UInt16.self)
            let cnt = b + cp * 2
            let mask = cp - 1
            var h = Self.hash(idx, mask)
            while true {
                if cnt[h] == 0 {
                    k[h] = UInt16(truncatingIfNeeded: idx)
                    inserted = true
                    break
                }
                if Int(k[h]) == idx { break }
                h = (h + 1) & mask
            }
            p = cnt + h
        }
        let v = UInt64(p.pointee) + UInt64(n)
        if v < 255 {
            p.pointee = UInt8(truncatingIfNeeded: v)
        } else {
            p.pointee = 255
            addOverflow(sl << 16 | idx, v - 255)
        }
        if inserted {
            used[sl] += 1
            if Int(used[sl]) * 10 > cp * 7 { grow(sl) }
        }
    }

    @inline(never)
    func addOverflow(_ key: Int, _ extra: UInt64) {
        let v = UInt64(overflow[key] ?? 0) + extra
        overflow[key] = UInt32(min(v, UInt64(UInt32.max - 255)))
    }

    @inline(__always)
    func addFix(_ state: inout SourceState?, time: Int64, lat: Int32, lon: Int32, rule: LineRule) {
        let fx = Int(Projection.fineX(lonE7: lon))
        let fy = Int(Projection.fineY(latE7: lat))
        let sh = Projection.fineZoom - maxZ
        clock &+= 1
        let x1 = fx >> sh, y1 = fy >> sh
        increment(kind: 0, z: maxZ, gx: x1, gy: y1)
        if let prev = state {
            switch rule.step(t0: prev.time, lat0: prev.lat, lon0: prev.lon, t1: time, lat1: lat, lon1: lon) {
            case .jitter:
                state!.time = time
                return
            case .draw:
                let lsh = Projection.fineZoom - lineZ
                let x0 = Int(prev.fx) >> lsh, y0 = Int(prev.fy) >> lsh, lx1 = fx >> lsh, ly1 = fy >> lsh
                let skip = prev.connected
                if !(skip && x0 == lx1 && y0 == ly1) {
                    linePixels &+= max(abs(lx1 - x0), abs(ly1 - y0)) + (skip ? 0 : 1)
                    let z = lineZ
                    bresenham(x0, y0, lx1, ly1, skipStart: skip) { x, y in
                        self.increment(kind: 1, z: z, gx: x, gy: y)
                    }
                }
                state = SourceState(time: time, lat: lat, lon: lon, fx: Int32(fx), fy: Int32(fy), connected: true)
                return
            case .breakLine:
                break
            }
        }
        state = SourceState(time: time, lat: lat, lon: lon, fx: Int32(fx), fy: Int32(fy), connected: false)
    }

    @inline(__always)
    func fullCount(_ sl: Int, _ idx: Int, _ b: UInt8) -> UInt32 {
        b < 255 ? UInt32(b) : 255 + (overflow.removeValue(forKey: sl << 16 | idx) ?? 0)
    }

    /// Turns a slot into a sparse delta (sorted by pixel) and frees it.
    func emit(_ sl: Int) -> TileDelta {
        var d = TileDelta()
        let b = base[sl]!
        let cp = Int(cap[sl])
        if cp != 0 && Int(used[sl]) <= Self.sortedEmitLimit {
            // A sparse tile (most are: a line crossing it): its few pixels sorted, not a 64 KiB scan.
            let k = UnsafeMutableRawPointer(b).assumingMemoryBound(to: UInt16.self)
            let cnt = b + cp * 2
            let n = sortedPixels(k, cnt, cp)
            d.pixels.reserveCapacity(n)
            d.counts.reserveCapacity(n)
            for p in UnsafeBufferPointer(start: radix, count: n) {
                let i = Int(p >> 8)
                d.pixels.append(UInt16(i))
                d.counts.append(fullCount(sl, i, UInt8(truncatingIfNeeded: p)))
            }
        } else {
            emitScanning(sl, b, cp, into: &d)
        }
        let tb = tableBytes(sl)
        emittedBytes += tb
        emittedPixels += d.count
        emittedTiles += 1
        bytes -= tb
        free(b)
        base[sl] = nil
        let key = keys[sl]
        index[key] = nil
        live[sl] = false
        freeSlots.append(sl)
        let kk = key.kind == .heat ? 0 : 1
        let c = cache + (kk * Self.cacheStride + key.z) * 3
        if c[2] == sl {
            c[0] = -1
            c[1] = -1
            c[2] = -1
        }
        return d
    }

    /// Hash tiles with at most this many pixels are emitted by sorting their pixels.
    static let sortedEmitLimit = 1024

    /// A hash table's pixels, each `index << 8 | count byte`, sorted by index into `radix`: two
    /// counting passes, a byte of the index each (Swift's sort was 6 % of a line-heavy import's
    /// CPU, ~12 % of the counting thread's). Returns how many.
    private func sortedPixels(_ keys: UnsafeMutablePointer<UInt16>, _ counts: UnsafeMutablePointer<UInt8>, _ capacity: Int) -> Int {
        let low = radixCounts, high = radixCounts + 256, spare = radix + Self.sortedEmitLimit
        low.update(repeating: 0, count: 512)
        var n = 0
        for i in 0..<capacity where counts[i] != 0 {
            let key = keys[i]
            radix[n] = UInt32(key) << 8 | UInt32(counts[i])
            low[Int(key & 255)] += 1
            high[Int(key >> 8)] += 1
            n += 1
        }
        var lowStart = 0, highStart = 0
        for byte in 0..<256 {
            (low[byte], lowStart) = (lowStart, lowStart + low[byte])
            (high[byte], highStart) = (highStart, highStart + high[byte])
        }
        for p in UnsafeBufferPointer(start: radix, count: n) {
            let byte = Int((p >> 8) & 255)
            spare[low[byte]] = p
            low[byte] += 1
        }
        for p in UnsafeBufferPointer(start: spare, count: n) {
            let byte = Int(p >> 16)
            radix[high[byte]] = p
            high[byte] += 1
        }
        return n
    }

    /// Dense tiles are scanned in place; full hash tiles are scattered into the zeroed scratch
    /// raster and scanned from there (pixel order without sorting), zeroing it again.
    private func emitScanning(_ sl: Int, _ b: UnsafeMutablePointer<UInt8>, _ cp: Int, into d: inout TileDelta) {
        let dense: UnsafeMutablePointer<UInt8>
        let n: Int
        if cp == 0 {
            dense = b
            n = 16384
        } else {
            dense = scratch8
            let k = UnsafeMutableRawPointer(b).assumingMemoryBound(to: UInt16.self)
            let cnt = b + cp * 2
            for i in 0..<cp where cnt[i] != 0 { dense[Int(k[i])] = cnt[i] }
            n = Int(used[sl])
        }
        d.pixels.reserveCapacity(n)
        d.counts.reserveCapacity(n)
        let words = UnsafeMutableRawPointer(dense).assumingMemoryBound(to: UInt64.self)
        for w in 0..<8192 where words[w] != 0 {
            for i in (w << 3)..<((w << 3) + 8) where dense[i] != 0 {
                d.pixels.append(UInt16(i))
                d.counts.append(fullCount(sl, i, dense[i]))
            }
            if cp != 0 { words[w] = 0 }
        }
    }

    /// Emits a tile and pushes its counts into its parent one zoom down (kept in memory):
    /// pixel (x, y) at zoom z adds to pixel (x >> 1, y >> 1) at z − 1. Every zoom's stored sums
    /// are therefore exact once everything is flushed, whatever the eviction order.
    func evict(_ sl: Int, into out: inout [TileKey: TileDelta]) {
        let key = keys[sl]
        let d = emit(sl)
        if d.isEmpty { return }
        if let old = out[key] { out[key] = TileRaster.combine(old, d) } else { out[key] = d }
        guard key.z > minZ else { return }
        // Sum 2×2 pixels into the parent's quadrant first (scratch), then add each once.
        let qx = (key.x & 1) << 7, qy = (key.y & 1) << 7
        let q = scratch32
        for i in 0..<d.count {
            let p = Int(d.pixels[i])
            let j = (p >> 9) << 7 | (p & 255) >> 1
            let (v, o) = q[j].addingReportingOverflow(d.counts[i])
            q[j] = o ? .max : v
        }
        let bx = (key.x >> 1) << 8 | qx, by = (key.y >> 1) << 8 | qy, k = key.kind.rawValue, z = key.z - 1
        for i in 0..<d.count {
            let p = Int(d.pixels[i])
            let j = (p >> 9) << 7 | (p & 255) >> 1
            let c = q[j]
            if c == 0 { continue }
            q[j] = 0
            increment(kind: k, z: z, gx: bx | (j & 127), gy: by | (j >> 7), by: c)
        }
    }

    /// Flushes every tile, deepest zoom first, handing out each zoom's deltas as soon as it is
    /// done (a zoom's tiles are evicted once each: their children pushed into them before).
    func flushAll(zoomByZoom body: ([TileKey: TileDelta]) throws -> Void) rethrows {
        for z in stride(from: maxZ, through: minZ, by: -1) {
            var out: [TileKey: TileDelta] = [:]
            for sl in 0..<tileCount where live[sl] && keys[sl].z == z { evict(sl, into: &out) }
            if !out.isEmpty { try body(out) }
        }
        tileCount = 0
        freeSlots.removeAll()
        keys.removeAll(keepingCapacity: true)
        live.removeAll(keepingCapacity: true)
        lastUse.removeAll(keepingCapacity: true)
        index.removeAll(keepingCapacity: true)
        overflow.removeAll()
        cache.update(repeating: -1, count: 2 * Self.cacheStride * 3)
    }

    /// Flushes the least recently used tiles until at most `targetBytes` remain (0 = all).
    /// Evicted tiles push their sums into their parents (see `evict`).
    func flush(targetBytes: Int) -> [TileKey: TileDelta] {
        var out: [TileKey: TileDelta] = [:]
        if targetBytes <= 0 {
            flushAll { out.merge($0) { old, _ in old } }
        } else {
            for k in 0..<2 {
                for z in minZ...maxZ {
                    let c = cache + (k * Self.cacheStride + z) * 3
                    if c[2] >= 0 { lastUse[c[2]] = clock }
                }
            }
            // Oldest first; among equals, deeper zooms first (their parents receive the sums).
            let order = (0..<tileCount).filter { live[$0] }.sorted {
                lastUse[$0] != lastUse[$1] ? lastUse[$0] < lastUse[$1] : keys[$0].z > keys[$1].z
            }
            for sl in order where inUseBytes > targetBytes {
                if live[sl] { evict(sl, into: &out) }
            }
        }
        return out
    }
}
