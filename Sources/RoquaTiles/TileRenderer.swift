import Foundation

/// A 256×256 RGBA image, 8 bits per channel, straight (non-premultiplied) alpha, rows from the north.
public struct RGBAImage: Equatable, Sendable {
    public static let size = 256
    public var bytes: [UInt8]
    public init() { bytes = [UInt8](repeating: 0, count: 256 * 256 * 4) }
    public init(bytes: [UInt8]) {
        precondition(bytes.count == 256 * 256 * 4)
        self.bytes = bytes
    }
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let i = (y * 256 + x) * 4
        return (bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3])
    }
    public func alpha(x: Int, y: Int) -> UInt8 { bytes[(y * 256 + x) * 4 + 3] }
    /// True when every pixel is fully transparent.
    public var isTransparent: Bool {
        var i = 3
        while i < bytes.count {
            if bytes[i] != 0 { return false }
            i += 4
        }
        return true
    }
}

/// Counts at the *target* zoom for one tile plus a margin on every side (2 px for heat,
/// 0 for lines), gathered from the stored pyramid or straight from fixes.
public struct CountWindow: Equatable, Sendable {
    public let tile: TileID
    public let margin: Int
    public var side: Int { 256 + 2 * margin }
    /// side × side counts, row-major; (margin, margin) is the tile's top-left pixel.
    public var counts: [UInt32]
    public var nonZero: Int
    /// Lines: log2 of top-zoom line pixels per pixel of a single straight crossing at this zoom
    /// (counts are "ink": top-zoom line pixels summed), used to turn counts into traversals.
    public let inkShift: Int
    /// Target zoom − stored zoom (> 0 when over-zooming): stored pixels are 2^shift blocks.
    public let shift: Int
    init(tile: TileID, margin: Int, inkShift: Int = 0, shift: Int = 0) {
        self.tile = tile
        self.margin = margin
        self.inkShift = inkShift
        self.shift = shift
        counts = [UInt32](repeating: 0, count: (256 + 2 * margin) * (256 + 2 * margin))
        nonZero = 0
    }
    /// Count at tile pixel (x, y); x, y may reach into the margin (-margin ..< 256 + margin).
    public func count(x: Int, y: Int) -> UInt32 { counts[(y + margin) * side + x + margin] }
}

/// Renders tiles from the pyramid (any z 0…22; above the top stored zoom by over-zoom) or from fixes.
///
/// Over-zoom rule: tile z > maxStoredZoom reads the stored raster at maxStoredZoom; each stored
/// pixel becomes a 2^(z−maxStoredZoom) square block at the target zoom, and the heat disc
/// (radius 2) is then applied at the target zoom. The direct path quantises fixes the same way.
public enum TileRenderer {
    /// Default top stored zooms: heat 16, lines 15 (see TileAccumulator.lineMaxZoom).
    public static let defaultHeatTopZoom = 16
    public static let defaultLineTopZoom = 15
    public static func defaultTopZoom(_ kind: TileKind) -> Int { kind == .heat ? defaultHeatTopZoom : defaultLineTopZoom }
    /// Heat: a fix lights every pixel whose offset (dx, dy) from its own has dx² + dy² ≤ radius².
    public static let heatRadius = 2
    static let disc: [(Int, Int)] = {
        var d: [(Int, Int)] = []
        for dy in -heatRadius...heatRadius {
            for dx in -heatRadius...heatRadius where dx * dx + dy * dy <= heatRadius * heatRadius { d.append((dx, dy)) }
        }
        return d
    }()

    /// Window margin in target pixels: the heat disc radius; for over-zoomed lines one source
    /// pixel (to join line pixels across the tile edge); else none.
    public static func margin(for kind: TileKind, shift: Int) -> Int {
        kind == .heat ? heatRadius : (shift > 0 ? 1 << shift : 0)
    }

    struct Geometry {
        let tile: TileID
        let margin: Int
        let side: Int
        let shift: Int  // target zoom − source zoom
        let sourceZoom: Int
        let ox: Int, oy: Int  // window origin, target global px
        let sx0: Int, sy0: Int, sx1: Int, sy1: Int  // source px range (inclusive, x unwrapped)
        let sourceWorld: Int  // source world size in px
        init(tile: TileID, kind: TileKind, maxStoredZoom: Int) {
            self.tile = tile
            sourceZoom = min(tile.z, maxStoredZoom)
            shift = tile.z - sourceZoom
            margin = TileRenderer.margin(for: kind, shift: shift)
            side = 256 + 2 * margin
            ox = tile.x * 256 - margin
            oy = tile.y * 256 - margin
            sx0 = ox >> shift
            sy0 = oy >> shift
            sx1 = (ox + side - 1) >> shift
            sy1 = (oy + side - 1) >> shift
            sourceWorld = 256 << sourceZoom
        }
        /// Adds `c` for source pixel (sgx, sgy) (x may be out of range by one world: wrapped here).
        @inline(__always)
        func add(_ w: inout CountWindow, _ sgxIn: Int, _ sgy: Int, _ c: UInt32) {
            var sgx = sgxIn
            if sgx < sx0 { sgx += sourceWorld } else if sgx > sx1 { sgx -= sourceWorld }
            guard sgx >= sx0, sgx <= sx1, sgy >= sy0, sgy <= sy1 else { return }
            let bx0 = max((sgx << shift) - ox, 0), bx1 = min(((sgx + 1) << shift) - ox, side)
            let by0 = max((sgy << shift) - oy, 0), by1 = min(((sgy + 1) << shift) - oy, side)
            guard bx0 < bx1, by0 < by1 else { return }
            for wy in by0..<by1 {
                let row = wy * side
                for wx in bx0..<bx1 {
                    let old = w.counts[row + wx]
                    if old == 0 { w.nonZero += 1 }
                    let (v, o) = old.addingReportingOverflow(c)
                    w.counts[row + wx] = o ? .max : v
                }
            }
        }
    }

    /// Storage rows needed to render `tile` of `kind`, in primary-key order (x wrapped, y clipped).
    public static func sourceKeys(for tile: TileID, kind: TileKind, maxStoredZoom: Int? = nil) -> [TileKey] {
        let top = maxStoredZoom ?? defaultTopZoom(kind)
        let g = Geometry(tile: tile, kind: kind, maxStoredZoom: top)
        let n = 1 << g.sourceZoom
        var keys: [TileKey] = []
        for ux in (g.sx0 >> 8)...(g.sx1 >> 8) {
            let tx = ((ux % n) + n) % n
            for ty in (g.sy0 >> 8)...(g.sy1 >> 8) where ty >= 0 && ty < n {
                let k = TileKey(z: g.sourceZoom, x: tx, y: ty, kind: kind)
                if !keys.contains(k) { keys.append(k) }
            }
        }
        return keys.sorted()
    }

    /// Gathers the count window of a tile from stored blobs. `blob` returns a row's BLOB or nil.
    public static func window(
        tile: TileID, kind: TileKind, maxStoredZoom: Int? = nil,
        blob: (TileKey) throws -> [UInt8]?
    ) throws -> CountWindow {
        let top = maxStoredZoom ?? defaultTopZoom(kind)
        let g = Geometry(tile: tile, kind: kind, maxStoredZoom: top)
        var w = CountWindow(tile: tile, margin: g.margin, inkShift: max(0, top - g.sourceZoom), shift: g.shift)
        let n = 1 << g.sourceZoom
        for ux in (g.sx0 >> 8)...(g.sx1 >> 8) {
            let tx = ((ux % n) + n) % n
            for ty in (g.sy0 >> 8)...(g.sy1 >> 8) where ty >= 0 && ty < n {
                guard let b = try blob(TileKey(z: g.sourceZoom, x: tx, y: ty, kind: kind)) else { continue }
                let d = try TileRaster.decode(b)
                // Restrict to the part of this source tile inside the window's source range.
                let lx0 = max(g.sx0 - ux * 256, 0), lx1 = min(g.sx1 - ux * 256, 255)
                let ly0 = max(g.sy0 - ty * 256, 0), ly1 = min(g.sy1 - ty * 256, 255)
                if lx0 > lx1 || ly0 > ly1 { continue }
                let lo = UInt16(ly0 << 8)
                var i = lowerBound(d.pixels, lo)
                while i < d.count {
                    let p = Int(d.pixels[i])
                    let py = p >> 8, px = p & 255
                    if py > ly1 { break }
                    if px >= lx0 && px <= lx1 {
                        g.add(&w, ux * 256 + px, ty * 256 + py, d.counts[i])
                    }
                    i += 1
                }
            }
        }
        return w
    }

    static func lowerBound(_ a: [UInt16], _ v: UInt16) -> Int {
        var lo = 0, hi = a.count
        while lo < hi {
            let m = (lo + hi) >> 1
            if a[m] < v { lo = m + 1 } else { hi = m }
        }
        return lo
    }

    /// Gathers the count window of a tile straight from fixes (e.g. a time-filtered span).
    /// Fixes of each source must be in time order; sources are processed in order of first
    /// appearance. Pixels equal the pyramid path for the same fixes, added in one accumulator.
    public static func window(
        fixes: [TileFix], tile: TileID, kind: TileKind,
        maxStoredZoom: Int? = nil, rule: LineRule = .standard
    ) -> CountWindow {
        let top = maxStoredZoom ?? defaultTopZoom(kind)
        let g = Geometry(tile: tile, kind: kind, maxStoredZoom: top)
        var w = CountWindow(tile: tile, margin: g.margin, inkShift: max(0, top - g.sourceZoom), shift: g.shift)
        if kind == .heat {
            let sh = Projection.fineZoom - g.sourceZoom
            for f in fixes {
                let fx = Int(Projection.fineX(lonE7: f.lon)) >> sh
                let fy = Int(Projection.fineY(latE7: f.lat)) >> sh
                g.add(&w, fx, fy, 1)
            }
            return w
        }
        // Lines: replay each source exactly as TileAccumulator does, at the top zoom, then sum
        // the top-zoom pixels into the source zoom.
        var order: [Int64] = []
        var bySource: [Int64: [Int]] = [:]
        for (i, f) in fixes.enumerated() {
            if bySource[f.source] == nil { order.append(f.source) }
            bySource[f.source, default: []].append(i)
        }
        let lineTop = max(top, g.sourceZoom)
        let sh = Projection.fineZoom - lineTop
        let d = lineTop - g.sourceZoom
        let W = g.sourceWorld << d
        let rx0 = g.sx0 << d, rx1 = ((g.sx1 + 1) << d) - 1, ry0 = g.sy0 << d, ry1 = ((g.sy1 + 1) << d) - 1
        for src in order {
            var prev: (f: TileFix, x: Int, y: Int, connected: Bool)? = nil
            for i in bySource[src]! {
                let f = fixes[i]
                let x = Int(Projection.fineX(lonE7: f.lon)) >> sh
                let y = Int(Projection.fineY(latE7: f.lat)) >> sh
                if let p = prev {
                    switch rule.step(t0: p.f.time, lat0: p.f.lat, lon0: p.f.lon, t1: f.time, lat1: f.lat, lon1: f.lon) {
                    case .jitter:
                        prev!.f.time = f.time
                        continue
                    case .draw:
                        let skip = p.connected
                        if !(skip && p.x == x && p.y == y) {
                            // Quick reject when the segment's box misses the range (also wrapped).
                            let minX = min(p.x, x), maxX = max(p.x, x), minY = min(p.y, y), maxY = max(p.y, y)
                            let hitsY = maxY >= ry0 && minY <= ry1
                            let hitsX =
                                (maxX >= rx0 && minX <= rx1) || (maxX >= rx0 + W && minX <= rx1 + W)
                                || (maxX >= rx0 - W && minX <= rx1 - W)
                            if hitsX && hitsY {
                                bresenham(p.x, p.y, x, y, skipStart: skip) { px, py in g.add(&w, px >> d, py >> d, 1) }
                            }
                        }
                        prev = (f, x, y, true)
                        continue
                    case .breakLine:
                        break
                    }
                }
                prev = (f, x, y, false)
            }
        }
        return w
    }

    // MARK: colouring

    /// Heat colour ramp on t = log2(count) / 16 (1 fix → t 0, 65,536 → t 1):
    /// blue (bright enough on a dark map) → cyan → yellow → white, alpha 210 → 255.
    static let heatStops: [(t: Double, r: Double, g: Double, b: Double, a: Double)] = [
        (0.00, 40, 90, 255, 210),
        (0.30, 0, 210, 255, 205),
        (0.65, 255, 235, 0, 235),
        (1.00, 255, 255, 255, 255),
    ]
    static let lutScale = 64.0  // LUT entries per doubling of the count
    static let heatLUT: [UInt32] = (0...1024).map { i in
        let t = Double(i) / lutScale / 16
        var k = 0
        while k < heatStops.count - 2 && t > heatStops[k + 1].t { k += 1 }
        let a = heatStops[k], b = heatStops[k + 1]
        let u = min(max((t - a.t) / (b.t - a.t), 0), 1)
        func mix(_ x: Double, _ y: Double) -> UInt32 { UInt32((x + (y - x) * u).rounded()) }
        return mix(a.r, b.r) | mix(a.g, b.g) << 8 | mix(a.b, b.b) << 16 | mix(a.a, b.a) << 24
    }
    /// Line colour: orange-red, alpha 120 + 30·log2(count) (max 255).
    static let lineLUT: [UInt32] = (0...1024).map { i in
        let a = min(255.0, 120 + 30 * Double(i) / lutScale)
        return 255 | 80 << 8 | 20 << 16 | UInt32(a.rounded()) << 24
    }

    @inline(__always)
    static func lutIndex(_ c: UInt32) -> Int {
        c <= 1 ? 0 : min(1024, Int(log2(Double(c)) * lutScale))
    }

    /// RGBA (packed little-endian r,g,b,a) of a heat pixel whose hottest source count is `c`.
    public static func heatColor(count c: UInt32) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let v = heatLUT[lutIndex(c)]
        return (UInt8(v & 255), UInt8(v >> 8 & 255), UInt8(v >> 16 & 255), UInt8(v >> 24))
    }

    /// Heat: each counted pixel lights the radius-2 disc around it; a pixel's colour is that of
    /// the highest count within its disc (max, never a sum or blur).
    public static func heat(_ w: CountWindow) -> RGBAImage {
        var img = RGBAImage()
        if w.nonZero == 0 { return img }
        var hot = [UInt32](repeating: 0, count: 65536)
        let m = w.margin, side = w.side
        hot.withUnsafeMutableBufferPointer { h in
            w.counts.withUnsafeBufferPointer { cnt in
                for wy in 0..<side {
                    for wx in 0..<side {
                        let c = cnt[wy * side + wx]
                        if c == 0 { continue }
                        for (dx, dy) in disc {
                            let x = wx - m + dx, y = wy - m + dy
                            if x < 0 || y < 0 || x > 255 || y > 255 { continue }
                            if h[y * 256 + x] < c { h[y * 256 + x] = c }
                        }
                    }
                }
            }
        }
        paint(&img, hot, heatLUT)
        return img
    }

    /// Lines: each pixel crossed by a segment, coloured with alpha rising with the number of
    /// traversals (ink count / 2^inkShift). Over-zoomed (shift > 0), stored pixels are not drawn
    /// as 2^shift blocks: each lit stored pixel becomes a 2-px dot at its block centre, joined by
    /// 2-px lines to its lit 8-neighbours (a diagonal only when neither orthogonal pixel between
    /// them is lit), so lines stay 2 px wide at every over-zoom; the square between four mutually
    /// lit stored pixels is filled, so dense bands stay solid.
    public static func lines(_ w: CountWindow) -> RGBAImage {
        var img = RGBAImage()
        if w.nonZero == 0 { return img }
        let m = w.margin, side = w.side
        let shift = Int(lutScale) * w.inkShift
        var v = [UInt32](repeating: 0, count: 65536)
        if w.shift == 0 {
            for y in 0..<256 { for x in 0..<256 { v[y * 256 + x] = w.counts[(y + m) * side + x + m] } }
        } else {
            let B = 1 << w.shift
            let n = side / B  // stored pixels across the window (256 / B + 2)
            func at(_ i: Int, _ j: Int) -> UInt32 {
                i < 0 || j < 0 || i >= n || j >= n ? 0 : w.counts[(j * B) * side + i * B]
            }
            func brush(_ x: Int, _ y: Int, _ c: UInt32) {
                for yy in (y - 1)...y where yy >= 0 && yy < 256 {
                    for xx in (x - 1)...x where xx >= 0 && xx < 256 { if v[yy * 256 + xx] < c { v[yy * 256 + xx] = c } }
                }
            }
            for j in 0..<n {
                for i in 0..<n {
                    let c = at(i, j)
                    if c == 0 { continue }
                    let cx = i * B - m + B / 2, cy = j * B - m + B / 2
                    brush(cx, cy, c)
                    // Four mutually lit stored pixels: fill the square between their centres, so a
                    // dense band stays solid instead of showing a lattice of strokes.
                    let e = at(i + 1, j), s = at(i, j + 1), se = at(i + 1, j + 1)
                    if e != 0 && s != 0 && se != 0 {
                        let cc = max(max(c, e), max(s, se))
                        for y in max(cy - 1, 0)...min(cy + B, 255) where cy + B >= 0 && cy - 1 <= 255 {
                            for x in max(cx - 1, 0)...min(cx + B, 255) where cx + B >= 0 && cx - 1 <= 255 {
                                if v[y * 256 + x] < cc { v[y * 256 + x] = cc }
                            }
                        }
                    }
                    let links: [(Int, Int)] = [(1, 0), (0, 1), (1, 1), (-1, 1)]
                    for (dx, dy) in links {
                        let c2 = at(i + dx, j + dy)
                        if c2 == 0 { continue }
                        if dx != 0 && dy != 0 && (at(i + dx, j) != 0 || at(i, j + dy) != 0) { continue }
                        let cc = max(c, c2)
                        bresenham(cx, cy, cx + dx * B, cy + dy * B, skipStart: true) { x, y in brush(x, y, cc) }
                    }
                }
            }
        }
        img.bytes.withUnsafeMutableBytes { raw in
            let px = raw.bindMemory(to: UInt32.self)
            for i in 0..<65536 where v[i] != 0 {
                px[i] = UInt32(littleEndian: lineLUT[max(0, lutIndex(v[i]) - shift)])
            }
        }
        return img
    }

    static func paint(_ img: inout RGBAImage, _ v: [UInt32], _ lut: [UInt32]) {
        img.bytes.withUnsafeMutableBytes { raw in
            let px = raw.bindMemory(to: UInt32.self)
            for i in 0..<65536 where v[i] != 0 {
                px[i] = UInt32(littleEndian: lut[lutIndex(v[i])])
            }
        }
    }

    public static func image(_ w: CountWindow, kind: TileKind) -> RGBAImage {
        kind == .heat ? heat(w) : lines(w)
    }

    // MARK: one-call entry points

    /// Renders a tile from the pyramid.
    public static func render(
        tile: TileID, kind: TileKind, maxStoredZoom: Int? = nil,
        blob: (TileKey) throws -> [UInt8]?
    ) throws -> RGBAImage {
        image(try window(tile: tile, kind: kind, maxStoredZoom: maxStoredZoom, blob: blob), kind: kind)
    }

    /// Renders a tile straight from fixes (time-filtered requests).
    public static func render(
        fixes: [TileFix], in tile: TileID, kind: TileKind,
        maxStoredZoom: Int? = nil, rule: LineRule = .standard
    ) -> RGBAImage {
        image(window(fixes: fixes, tile: tile, kind: kind, maxStoredZoom: maxStoredZoom, rule: rule), kind: kind)
    }

    /// PNG of a pyramid tile; empty tiles return the cached transparent PNG without rendering.
    public static func png(
        tile: TileID, kind: TileKind, maxStoredZoom: Int? = nil,
        blob: (TileKey) throws -> [UInt8]?
    ) throws -> [UInt8] {
        let w = try window(tile: tile, kind: kind, maxStoredZoom: maxStoredZoom, blob: blob)
        if w.nonZero == 0 { return PNG.transparentTile }
        return PNG.encode(image(w, kind: kind))
    }

    /// PNG of a tile drawn from fixes.
    public static func png(
        fixes: [TileFix], in tile: TileID, kind: TileKind,
        maxStoredZoom: Int? = nil, rule: LineRule = .standard
    ) -> [UInt8] {
        let w = window(fixes: fixes, tile: tile, kind: kind, maxStoredZoom: maxStoredZoom, rule: rule)
        if w.nonZero == 0 { return PNG.transparentTile }
        return PNG.encode(image(w, kind: kind))
    }
}
