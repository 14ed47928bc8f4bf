import Foundation
import RoquaTestSupport
import Testing

@testable import RoquaTiles

@Suite struct ProjectionTests {
    @Test func knownPoints() {
        #expect(Projection.pixel(latE7: 0, lonE7: 0, zoom: 0) == (128, 128))
        #expect(Projection.tile(latE7: 0, lonE7: 0, zoom: 1) == (1, 1))
        // İstanbul (41.0082, 28.9784) at z10: x = floor((28.9784+180)/360·1024) = 594.
        let t = Projection.tile(latE7: 410_082_000, lonE7: 289_784_000, zoom: 10)
        let latR = 41.0082 * Double.pi / 180
        let yRef = Int((1 - log(tan(latR) + 1 / cos(latR)) / Double.pi) / 2 * 1024)
        #expect(t.x == 594 && t.y == yRef)
        // Clamp at the poles and the antimeridian.
        #expect(Projection.pixel(latE7: 900_000_000, lonE7: 1_800_000_000, zoom: 18) == ((256 << 18) - 1, 0))
        #expect(Projection.pixel(latE7: -900_000_000, lonE7: -1_800_000_000, zoom: 18) == (0, (256 << 18) - 1))
        // Every zoom is a floor of the fine coordinates.
        let f = Projection.fine(latE7: 520_000_000, lonE7: 134_000_000)
        for z in 0...18 {
            let p = Projection.pixel(latE7: 520_000_000, lonE7: 134_000_000, zoom: z)
            #expect(p.x == Int(f.x) >> (22 - z) && p.y == Int(f.y) >> (22 - z))
        }
    }
}

@Suite struct HeatTests {
    @Test(arguments: [4, 12, 16])
    func singleFixLightsExactlyDisc(z: Int) throws {
        let tile = TileID(z: z, x: (1 << z) / 2 + 1, y: (1 << z) / 3)
        let px = tile.x * 256 + 100, py = tile.y * 256 + 57
        let store = try pyramid([fixAt(px: px, py: py, z: z)])
        let png = try TileRenderer.png(tile: tile, kind: .heat, maxStoredZoom: 16) { store.rows[$0] }
        let img = try decodePNG(png)
        var expected = Set<[Int]>()
        for dy in -2...2 { for dx in -2...2 where dx * dx + dy * dy <= 4 { expected.insert([100 + dx, 57 + dy]) } }
        #expect(litPixels(img) == expected)
        #expect(expected.count == 13)
    }

    @Test func overZoomDisc() throws {
        // z18 tile: the z16 pixel becomes a 4×4 block, then the radius-2 disc is applied.
        let z16 = TileID(z: 16, x: 35_000, y: 24_000)
        let px = z16.x * 256 + 10, py = z16.y * 256 + 20
        let store = try pyramid([fixAt(px: px, py: py, z: 16)])
        let t18 = TileID(z: 18, x: z16.x * 4, y: z16.y * 4)
        let img = try store.render(t18, .heat)
        var block = Set<[Int]>()
        for y in 80..<84 { for x in 40..<44 { block.insert([x, y]) } }
        var expected = Set<[Int]>()
        for b in block { for dy in -2...2 { for dx in -2...2 where dx * dx + dy * dy <= 4 { expected.insert([b[0] + dx, b[1] + dy]) } } }
        #expect(litPixels(img) == expected)
    }

    @Test func edgeFixLightsNeighbours() throws {
        let z = 14
        let t = TileID(z: z, x: 9000, y: 6000)
        // Fix on the last pixel row/column (255, 255) of t.
        let store = try pyramid([fixAt(px: t.x * 256 + 255, py: t.y * 256 + 255, z: z)])
        let right = litPixels(try store.render(TileID(z: z, x: t.x + 1, y: t.y), .heat))
        #expect(right == Set([[0, 254], [0, 255], [1, 255]]))
        let below = litPixels(try store.render(TileID(z: z, x: t.x, y: t.y + 1), .heat))
        #expect(below == Set([[254, 0], [255, 0], [255, 1]]))
        let diag = litPixels(try store.render(TileID(z: z, x: t.x + 1, y: t.y + 1), .heat))
        #expect(diag == Set([[0, 0]]))
        #expect(litPixels(try store.render(TileID(z: z, x: t.x + 2, y: t.y), .heat)).isEmpty)
        #expect(litPixels(try store.render(t, .heat)).count == 6)  // quarter disc inside t
    }

    @Test func antimeridianWrap() throws {
        let z = 3
        let store = try pyramid([fixAt(px: 0, py: 700, z: z)])  // first column of tile x=0
        let west = litPixels(try store.render(TileID(z: z, x: 7, y: 2), .heat))
        // Row 700 of the world is row 188 of the tile.
        let expected: Set<[Int]> = [[254, 188], [255, 187], [255, 188], [255, 189]]
        #expect(west == expected)
    }

    @Test func emptyTileIsTransparent() throws {
        let store = try pyramid([fixAt(px: 5_000_000, py: 3_000_000, z: 16)])
        let img = try store.render(TileID(z: 10, x: 3, y: 3), .heat)
        #expect(img.isTransparent)
        let png = try TileRenderer.png(tile: TileID(z: 10, x: 3, y: 3), kind: .lines, maxStoredZoom: 16) { store.rows[$0] }
        #expect(png == PNG.transparentTile)
        #expect(PNG.transparentTile.count < 400)
        #expect(try decodePNG(png).isTransparent)
    }

    @Test func densityIsHotter() throws {
        let z = 12
        let t = TileID(z: z, x: 2000, y: 1500)
        var fixes: [TileFix] = [fixAt(px: t.x * 256 + 20, py: t.y * 256 + 20, z: z)]
        for i in 0..<10 { fixes.append(fixAt(px: t.x * 256 + 120, py: t.y * 256 + 20, z: z, time: Int64(i), source: 2)) }
        for i in 0..<1000 { fixes.append(fixAt(px: t.x * 256 + 220, py: t.y * 256 + 20, z: z, time: Int64(i), source: 3)) }
        let store = try pyramid(fixes)
        #expect(try store.window(t, .heat).count(x: 220, y: 20) == 1000)  // past the 8-bit chunk counter
        let img = try store.render(t, .heat)
        let c1 = img.pixel(x: 20, y: 20), c10 = img.pixel(x: 120, y: 20), c1000 = img.pixel(x: 220, y: 20)
        func heat(_ c: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) -> Int { Int(c.r) * 2 + Int(c.g) + Int(c.a) - Int(c.b) / 2 }
        #expect(c1 != c10 && c10 != c1000)
        #expect(heat(c1) < heat(c10) && heat(c10) < heat(c1000))
        // The disc around a dense pixel has one colour (no blur): the ring equals the centre.
        #expect(img.pixel(x: 222, y: 20) == c1000 && img.pixel(x: 221, y: 21) == c1000)
        #expect(img.alpha(x: 223, y: 20) == 0)
    }
}

@Suite struct ZoomSumTests {
    @Test func denseTilesMatchDirect() throws {
        // 40,000 fixes spread over one z12 tile: its buffer outgrows the hash and turns dense.
        var rng = SeededGenerator(state: 21)
        let t = TileID(z: 12, x: 2300, y: 1500)
        var fixes: [TileFix] = []
        for i in 0..<40_000 {
            let px = t.x * 256 + Int.random(in: 0..<256, using: &rng), py = t.y * 256 + Int.random(in: 0..<256, using: &rng)
            fixes.append(fixAt(px: px, py: py, z: 12, time: Int64(i) * 20_000, source: 4))
        }
        let store = try pyramid(fixes)
        for tile in [t, TileID(z: 11, x: 1150, y: 750), TileID(z: 12, x: 2301, y: 1500)] {
            for kind in TileKind.allCases {
                #expect(try store.window(tile, kind) == TileRenderer.window(fixes: fixes, tile: tile, kind: kind, maxStoredZoom: 16))
            }
        }
        #expect(try store.window(t, .heat).nonZero > 20_000)  // > 11,469: the dense path was used
    }

    /// A tile is emitted by sorting its pixels (≤ 1,024), by scanning its hash (more) or in
    /// place (dense): each way gives every pixel's exact count, counts past 254 included.
    @Test(arguments: [1, 300, 1024, 1025, 5000, 30_000])
    func everyEmitPathCountsExactly(pixels: Int) throws {
        var rng = SeededGenerator(state: UInt64(pixels))
        let t = TileID(z: 16, x: 38_000, y: 24_000)
        var expected: [Int: UInt32] = [:]
        var fixes: [TileFix] = []
        var cells = Set<Int>()
        while cells.count < pixels { cells.insert(Int.random(in: 0..<65_536, using: &rng)) }
        for (i, cell) in cells.sorted().enumerated() {
            let n = i % 97 == 0 ? 300 : 1 + i % 3
            expected[cell] = UInt32(n)
            for _ in 0..<n { fixes.append(fixAt(px: t.x * 256 + cell & 255, py: t.y * 256 + cell >> 8, z: 16, source: Int64(i))) }
        }
        let store = try pyramid(fixes)
        let got = try TileRaster.decode(try #require(store.blob(TileKey(z: 16, x: t.x, y: t.y, kind: .heat))))
        #expect(got.pixels.map(Int.init) == expected.keys.sorted())
        #expect(got.counts == expected.keys.sorted().map { expected[$0]! })
    }

    @Test func everyZoomHoldsEveryFix() throws {
        var fixes = randomHistory(seed: 11, count: 3000)
        for i in 0..<70_000 { fixes.append(TileFix(source: 9, time: Int64(i) * 1000, lat: 410_000_000, lon: 290_000_000)) }
        let store = try pyramid(fixes)
        for z in 0...16 {
            let total = try store.rows.filter { $0.key.z == z && $0.key.kind == .heat }.reduce(UInt64(0)) {
                $0 + (try TileRaster.decode($1.value)).total
            }
            #expect(total == UInt64(fixes.count), "zoom \(z)")
        }
        let p = Projection.pixel(latE7: 410_000_000, lonE7: 290_000_000, zoom: 16)
        let w = try store.window(TileID(z: 16, x: p.x >> 8, y: p.y >> 8), .heat)
        #expect(w.count(x: p.x & 255, y: p.y & 255) >= 70_000)
    }
}

@Suite struct LineTests {
    @Test func lowerZoomLineIsTopZoomLineShifted() throws {
        let z = 16
        let ax = 35_000 * 256 + 30, ay = 24_000 * 256 + 40
        let bx = ax + 1500, by = ay + 700
        let store = try pyramid([fixAt(px: ax, py: ay, z: z, time: 0), fixAt(px: bx, py: by, z: z, time: 120_000)])
        var top = Set<[Int]>()
        bresenham(ax, ay, bx, by, skipStart: false) { x, y in top.insert([x, y]) }
        for zz in [12, 14, 15] {
            let s = 16 - zz
            let expected = Set(top.map { [$0[0] >> s, $0[1] >> s] })
            var lit = Set<[Int]>()
            let tiles = Set(expected.map { TileID(z: zz, x: $0[0] >> 8, y: $0[1] >> 8) })
            for t in tiles {
                let w = try store.window(t, .lines)
                for y in 0..<256 { for x in 0..<256 where w.count(x: x, y: y) > 0 { lit.insert([t.x * 256 + x, t.y * 256 + y]) } }
            }
            #expect(lit == expected, "zoom \(zz)")
        }
    }

    @Test func jitterDrawsNoScribble() throws {
        let z = 16
        let base = fixAt(px: 35_000 * 256 + 100, py: 24_000 * 256 + 100, z: z)
        var fixes: [TileFix] = []
        var rng = SeededGenerator(state: 3)
        for i in 0..<200 {  // standing still: ±5 m of noise
            fixes.append(
                TileFix(
                    source: 1, time: Int64(i) * 30_000, lat: base.lat + Int32.random(in: -450...450, using: &rng),
                    lon: base.lon + Int32.random(in: -450...450, using: &rng)))
        }
        let store = try pyramid(fixes)
        #expect(try store.window(TileID(z: z, x: 35_000, y: 24_000), .lines).nonZero == 0)
        #expect(try store.window(TileID(z: z, x: 35_000, y: 24_000), .heat).nonZero > 0)
    }

    @Test func segmentAcrossThreeTiles() throws {
        let z = 16
        let t0 = TileID(z: z, x: 35_000, y: 24_000)
        let ax = t0.x * 256 + 30, ay = t0.y * 256 + 40
        let bx = ax + 2 * 256 + 100, by = ay + 150  // x-major, three tiles wide
        let fixes = [fixAt(px: ax, py: ay, z: z, time: 0), fixAt(px: bx, py: by, z: z, time: 60_000)]
        let store = try pyramid(fixes)
        var total = 0
        for i in 0..<3 {
            let t = TileID(z: z, x: t0.x + i, y: t0.y)
            let lit = litPixels(try store.render(t, .lines))
            #expect(!lit.isEmpty)
            for p in lit {
                let gx = t.x * 256 + p[0], gy = t.y * 256 + p[1]
                #expect(gx >= ax && gx <= bx)
                let ideal = Double(ay) + Double(gx - ax) * Double(by - ay) / Double(bx - ax)
                #expect(abs(Double(gy) - ideal) <= 0.5 + 1e-9, "pixel \(gx),\(gy) off the line")
            }
            // Exactly one lit pixel per column of the segment inside this tile.
            let cols = Set(lit.map { $0[0] })
            #expect(cols.count == lit.count)
            let lo = max(ax, t.x * 256), hi = min(bx, t.x * 256 + 255)
            #expect(lit.count == hi - lo + 1)
            total += lit.count
        }
        #expect(total == bx - ax + 1)
    }

    @Test(arguments: [17, 18])
    func overZoomedLinesStayTwoPixelsWide(z: Int) throws {
        // Stored at z16; a segment crossing two z16 tiles, drawn at z17/z18 (including the edge).
        let ax = 35_000 * 256 + 200, ay = 24_000 * 256 + 40
        let bx = ax + 120, by = ay + 30
        let fixes = [fixAt(px: ax, py: ay, z: 16, time: 0), fixAt(px: bx, py: by, z: 16, time: 60_000)]
        let store = try pyramid(fixes)
        let s = z - 16
        var lit = Set<[Int]>()
        let tiles = Set((ax...bx).map { TileID(z: z, x: ($0 << s) >> 8, y: ((ay + (by - ay) * ($0 - ax) / (bx - ax)) << s) >> 8) })
        for t in tiles {
            let img = try store.render(t, .lines)
            #expect(img == TileRenderer.render(fixes: fixes, in: t, kind: .lines, maxStoredZoom: 16))
            for p in litPixels(img) { lit.insert([t.x * 256 + p[0], t.y * 256 + p[1]]) }
        }
        // A 2×2 brush: every column between the end centres has 2 lit pixels (3 where the line
        // steps), contiguous, within B/2 + 1.25 px of the ideal line.
        let B = 1 << s
        let x0 = ax * B + B / 2, x1 = bx * B + B / 2
        let y0 = Double(ay * B + B / 2), y1 = Double(by * B + B / 2)
        for x in (x0 + 1)...(x1 - 2) {
            let col = lit.filter { $0[0] == x }.map { $0[1] }
            #expect(col.count == 2 || col.count == 3, "column \(x)")
            #expect(col.max()! - col.min()! == col.count - 1, "column \(x) not contiguous")
            let ideal = y0 + (y1 - y0) * Double(x - x0) / Double(x1 - x0)
            // The stored line is a z16 staircase: ±B/2 target px, plus the 2-px brush.
            for y in col { #expect(abs(Double(y) - ideal) <= Double(B) / 2 + 1.25, "column \(x): \(y) vs \(ideal)") }
        }
    }

    @Test func gapAndFlightDrawNoLine() throws {
        let z = 14
        let a = fixAt(px: 9000 * 256 + 10, py: 6000 * 256 + 10, z: z, time: 0)
        let b = fixAt(px: 9000 * 256 + 200, py: 6000 * 256 + 10, z: z, time: 11 * 60_000)  // 11 min gap
        let c = fixAt(px: 9010 * 256 + 10, py: 6000 * 256 + 10, z: z, time: 11 * 60_000 + 60_000)  // ~25 km/min: plane
        let store = try pyramid([a, b, c])
        let t = TileID(z: z, x: 9000, y: 6000)
        #expect(try store.window(t, .lines).nonZero == 0)
        #expect(try store.window(TileID(z: z, x: 9005, y: 6000), .lines).nonZero == 0)
        #expect(try store.window(t, .heat).nonZero == 2)
        // The same pair 9 minutes apart is joined.
        let b2 = fixAt(px: 9000 * 256 + 200, py: 6000 * 256 + 10, z: z, time: 9 * 60_000)
        #expect(try pyramid([a, b2]).window(t, .lines).nonZero == 191)
    }

    @Test func linesContinueAcrossBatchesAndCountTraversals() throws {
        let z = 16
        let base = TileID(z: z, x: 35_000, y: 24_000)
        var acc = TileAccumulator(lineMaxZoom: 16)
        var store = MemStore()
        for trip in 0..<3 {
            let t0 = Int64(trip) * 86_400_000
            acc.add(
                source: 7,
                fixes: [
                    (
                        t0, fixAt(px: base.x * 256 + 10, py: base.y * 256 + 10, z: z).lat,
                        fixAt(px: base.x * 256 + 10, py: base.y * 256 + 10, z: z).lon
                    )
                ])
            try store.apply(acc.flush())
            let f = fixAt(px: base.x * 256 + 110, py: base.y * 256 + 10, z: z)
            acc.add(source: 7, fixes: [(t0 + 30_000, f.lat, f.lon)])
            try store.apply(acc.flush())
        }
        let w = try store.window(base, .lines)
        #expect(w.nonZero == 101)
        #expect(w.count(x: 50, y: 10) == 3 && w.count(x: 10, y: 10) == 3 && w.count(x: 110, y: 10) == 3)
    }
}

func randomHistory(seed: UInt64, count: Int, sources: Int = 2) -> [TileFix] {
    var rng = SeededGenerator(state: seed)
    var out: [TileFix] = []
    for s in 0..<sources {
        var lat: Int32 = 410_000_000 + Int32(s) * 1_000_000, lon: Int32 = 290_000_000
        var t: Int64 = 1_600_000_000_000
        for _ in 0..<(count / sources) {
            t += Int64.random(in: 5_000...90_000, using: &rng)
            if Int.random(in: 0..<50, using: &rng) == 0 { t += 20 * 60_000 }
            lat += Int32.random(in: -20_000...20_000, using: &rng)
            lon += Int32.random(in: -20_000...20_000, using: &rng)
            if Int.random(in: 0..<200, using: &rng) == 0 { lon += 30_000_000 }  // a "flight"
            out.append(TileFix(source: Int64(s), time: t, lat: lat, lon: lon))
        }
    }
    return out
}

@Suite struct PyramidTests {
    @Test func batchesEqualOneBatch() throws {
        let fixes = randomHistory(seed: 42, count: 4000)
        let one = try pyramid(fixes)
        var acc = TileAccumulator(lineMaxZoom: 16, flushThresholdBytes: 1 << 20)
        var store = MemStore()
        var rng = SeededGenerator(state: 7)
        var i = 0
        while i < fixes.count {
            let n = Int.random(in: 1...300, using: &rng)
            let part = Array(fixes[i..<min(i + n, fixes.count)])
            // Feed through the tuple API, one source run at a time.
            var j = 0
            while j < part.count {
                let s = part[j].source
                var run: [(time: Int64, lat: Int32, lon: Int32)] = []
                while j < part.count && part[j].source == s {
                    run.append((part[j].time, part[j].lat, part[j].lon))
                    j += 1
                }
                acc.add(source: s, fixes: run)
            }
            if acc.needsFlush || Bool.random(using: &rng) {
                // Mix full flushes and partial (least-recently-used) ones.
                try store.apply(
                    Bool.random(using: &rng) ? acc.flush() : acc.flushCold(targetBytes: Int.random(in: 0...(1 << 19), using: &rng)))
            }
            i += n
        }
        try store.apply(acc.flush())
        #expect(store.rows.count == one.rows.count)
        #expect(store.rows == one.rows)
        #expect(one.rows.keys.contains { $0.z == 16 && $0.kind == .lines })
    }

    @Test func mergeIsAssociativeAndCommutative() throws {
        var rng = SeededGenerator(state: 99)
        func randomDelta() -> TileDelta {
            var d = [UInt32](repeating: 0, count: 65536)
            for _ in 0..<Int.random(in: 0...3000, using: &rng) {
                d[Int.random(in: 0..<65536, using: &rng)] += UInt32.random(in: 1...5000, using: &rng)
            }
            if Bool.random(using: &rng) { d[0] = .max - 3 }
            return TileDelta(dense: d)
        }
        for _ in 0..<20 {
            let a = randomDelta(), b = randomDelta(), c = randomDelta()
            let ab_c = TileRaster.combine(TileRaster.combine(a, b), c)
            let a_bc = TileRaster.combine(a, TileRaster.combine(b, c))
            #expect(ab_c == a_bc)
            #expect(TileRaster.combine(a, b) == TileRaster.combine(b, a))
            let ea = TileRaster.encode(a), eb = TileRaster.encode(b), ec = TileRaster.encode(c)
            #expect(try TileRaster.merge(try TileRaster.merge(ea, eb), ec) == TileRaster.merge(ea, try TileRaster.merge(eb, ec)))
            #expect(try TileRaster.merge(ea, ec) == TileRaster.encode(TileRaster.combine(a, c)))
            // A blob of several segments (as stores before 30 Nov 2026 hold) reads as their sum.
            #expect(try TileRaster.decode(ea + TileRaster.encode(b, compress: false) + ec) == TileRaster.sum([a, b, c]))
            #expect(try TileRaster.decode(TileRaster.encode(a, compress: false)) == a)
            #expect(try TileRaster.decode(ea) == a)
        }
    }

    /// Any number of rasters summed in rounds is their sum one after the other, saturating alike.
    @Test func sumInRoundsIsTheSumInTurn() {
        var rng = SeededGenerator(state: 7)
        for count in 0...21 {
            let deltas = (0..<count).map { _ in
                var d = [UInt32](repeating: 0, count: 65536)
                for _ in 0..<Int.random(in: 0...800, using: &rng) {
                    d[Int.random(in: 0..<4096, using: &rng)] += UInt32.random(in: 1...9, using: &rng)
                }
                if Int.random(in: 0..<4, using: &rng) == 0 { d[5] = .max - 2 }
                return TileDelta(dense: d)
            }
            #expect(TileRaster.sum(deltas) == deltas.reduce(TileDelta()) { TileRaster.combine($0, $1) })
        }
    }

    /// A raw one-segment blob compressed as it is gives the very bytes encoding its raster gives,
    /// below the compression threshold and above it; any other blob is decoded and encoded.
    @Test func aRawSegmentCompressedIsItsRasterEncoded() throws {
        var rng = SeededGenerator(state: 11)
        for size in [0, 1, 3, 9, 40, 300, 5000, 40000] {
            var d = [UInt32](repeating: 0, count: 65536)
            for _ in 0..<size { d[Int.random(in: 0..<65536, using: &rng)] += UInt32.random(in: 1...300, using: &rng) }
            if size == 9 { d[7] = .max }
            let delta = TileDelta(dense: d)
            let raw = TileRaster.encode(delta, compress: false)
            #expect(try TileRaster.compressed(raw) == TileRaster.encode(delta))
            #expect(try TileRaster.compressed(TileRaster.encode(delta)) == TileRaster.encode(delta))
            let two = raw + TileRaster.encode(delta, compress: false)
            #expect(try TileRaster.compressed(two) == TileRaster.encode(TileRaster.combine(delta, delta)))
        }
        #expect(throws: TileBlobError.self) { try TileRaster.compressed([0x52, 0x54, TileRaster.version, 0, 9, 1]) }
        #expect(throws: TileBlobError.self) { try TileRaster.compressed([0x52, 0x54, 7, 0, 1, 0]) }
    }

    @Test(arguments: [2, 5, 9, 12, 14, 16, 17, 18])
    func directEqualsPyramid(z: Int) throws {
        let fixes = randomHistory(seed: UInt64(z), count: 3000)
        let store = try pyramid(fixes)
        // Tiles around the data: every tile touched by some fix, plus neighbours.
        var tiles = Set<TileID>()
        for f in fixes.prefix(400) {
            let t = Projection.tile(latE7: f.lat, lonE7: f.lon, zoom: z)
            for dx in -1...1 {
                for dy in -1...1 {
                    let tt = TileID(z: z, x: t.x + dx, y: t.y + dy)
                    if tt.isValid { tiles.insert(tt) }
                }
            }
            if tiles.count > 40 { break }
        }
        var lit = 0
        for t in tiles {
            for kind in TileKind.allCases {
                let wp = try store.window(t, kind)
                let wd = TileRenderer.window(fixes: fixes, tile: t, kind: kind, maxStoredZoom: 16)
                #expect(wp == wd, "window \(t) \(kind)")
                let ip = TileRenderer.image(wp, kind: kind)
                #expect(ip == TileRenderer.render(fixes: fixes, in: t, kind: kind, maxStoredZoom: 16))
                #expect(
                    try TileRenderer.png(tile: t, kind: kind, maxStoredZoom: 16) { store.rows[$0] }
                        == TileRenderer.png(fixes: fixes, in: t, kind: kind, maxStoredZoom: 16))
                lit += wp.nonZero
            }
        }
        #expect(lit > 0)
    }

    @Test func lineMaxZoom15MatchesDirect() throws {
        let fixes = randomHistory(seed: 77, count: 3000)
        var acc = TileAccumulator()  // defaults: heat 0…16, lines 0…15
        #expect(acc.lineMaxZoom == 15)
        acc.add(fixes)
        var store = MemStore()
        try store.apply(acc.flush())
        #expect(!store.rows.keys.contains { $0.kind == .lines && $0.z == 16 })
        #expect(store.rows.keys.contains { $0.kind == .heat && $0.z == 16 })
        var checked = 0
        for z in [9, 14, 15, 16, 17] {
            for f in fixes.prefix(200).enumerated().filter({ $0.offset % 20 == 0 }).map({ $0.element }) {
                let t = Projection.tile(latE7: f.lat, lonE7: f.lon, zoom: z)
                let tile = TileID(z: z, x: t.x, y: t.y)
                let wp = try TileRenderer.window(tile: tile, kind: .lines) { store.rows[$0] }
                let wd = TileRenderer.window(fixes: fixes, tile: tile, kind: .lines)
                #expect(wp == wd, "\(tile)")
                #expect(
                    try TileRenderer.png(tile: tile, kind: .lines) { store.rows[$0] }
                        == TileRenderer.png(fixes: fixes, in: tile, kind: .lines))
                checked += wp.nonZero
            }
        }
        #expect(checked > 0)
    }
}

@Suite struct BlobSafetyTests {
    @Test func corruptBlobsThrow() throws {
        let good = TileRaster.encode(TileDelta(pixels: [1, 5, 300], counts: [1, 2, 3]), compress: false)
        #expect(try TileRaster.decode(good) == TileDelta(pixels: [1, 5, 300], counts: [1, 2, 3]))
        let bad: [[UInt8]] = [
            [], [0x52], [0x52, 0x54, 2], [0, 0, 2, 0, 0], [0x52, 0x54, 9, 0, 0], [0x52, 0x54, 2, 7, 0],
            Array(good.dropLast()), good + [0],
            [0x52, 0x54, 2, 0, 5, 1, 0xff, 0xff, 0x03, 0],  // index 65535, count 1: valid
            [0x52, 0x54, 2, 0, 5, 1, 0x80, 0x80, 0x04, 0],  // index 65536
            [0x52, 0x54, 2, 0, 5, 2, 1, 0, 0, 0],  // zero delta
            [0x52, 0x54, 2, 0, 7, 1, 1, 0xff, 0xff, 0xff, 0xff, 0x0f],  // count − 1 = UInt32.max
            [0x52, 0x54, 2, 0, 7, 1, 1, 0xff, 0xff, 0xff, 0xff, 0x7f],  // count > UInt32
            [0x52, 0x54, 2, 0, 5, 0xff, 0xff, 0xff, 0xff, 0x0f],  // n huge
            [0x52, 0x54, 2, 1, 0xff, 0xff, 0xff, 0x7f, 2, 0x78, 0x9c],  // raw length huge
            [0x52, 0x54, 2, 1, 10, 3, 0x78, 0x9c, 1],  // broken zlib
            [0x52, 0x54, 2, 1, 10, 200, 0x78, 0x9c, 1],  // stored length past the end
            good + [0x52, 0x54, 2, 0, 3, 1, 0, 0] + [0x52],  // second segment, then junk
        ]
        for (i, b) in bad.enumerated() {
            if i == 8 {
                #expect(try TileRaster.decode(b) == TileDelta(pixels: [65535], counts: [1]))
                continue
            }
            #expect(throws: TileBlobError.self, "case \(i)") { try TileRaster.decode(b) }
            #expect(!fuzzTileBlob(b))
        }
        // A corrupt stored row makes rendering throw, not crash.
        let t = TileID(z: 3, x: 1, y: 1)
        #expect(throws: TileBlobError.self) { try TileRenderer.render(tile: t, kind: .heat) { _ in [0x52, 0x54, 2, 0, 5] } }
    }

    @Test func mutationFuzz() {
        var rng = SeededGenerator(state: 1234)
        let seeds = [
            TileRaster.encode(TileDelta(dense: (0..<65536).map { $0 % 7 == 0 ? UInt32($0 % 300) : 0 })),
            TileRaster.encode(TileDelta(pixels: [0, 1, 2, 65535], counts: [1, 100_000, 3, .max]), compress: false),
        ]
        var ok = 0
        for i in 0..<20_000 {
            var b = seeds[i % seeds.count]
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: b[Int.random(in: 0..<b.count, using: &rng)] ^= UInt8(1 << Int.random(in: 0..<8, using: &rng))
                case 1: b = Array(b.prefix(Int.random(in: 0...b.count, using: &rng)))
                case 2: b.insert(UInt8.random(in: 0...255, using: &rng), at: Int.random(in: 0...b.count, using: &rng))
                default: if b.count > 4 { b[Int.random(in: 4..<b.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
                }
                if b.isEmpty { break }
            }
            if fuzzTileBlob(b) { ok += 1 }
        }
        #expect(ok < 20_000)
    }
}
