import CZlib
import Foundation
import RoquaTestSupport

@testable import RoquaTiles

/// A fix lying at the centre of global pixel (px, py) at zoom z.
func fixAt(px: Int, py: Int, z: Int, time: Int64 = 0, source: Int64 = 1) -> TileFix {
    let c = Projection.coordinate(pixelX: Double(px) + 0.5, pixelY: Double(py) + 0.5, zoom: z)
    let f = TileFix(source: source, time: time, lat: Int32((c.lat * 1e7).rounded()), lon: Int32((c.lon * 1e7).rounded()))
    let p = Projection.pixel(latE7: f.lat, lonE7: f.lon, zoom: z)
    precondition(p.x == px && p.y == py, "fixAt round trip failed")
    return f
}

/// In-memory tile table.
struct MemStore {
    var rows: [TileKey: [UInt8]] = [:]
    mutating func apply(_ deltas: [TileKey: TileDelta]) throws {
        for (k, d) in deltas { rows[k] = try rows[k].map { try TileRaster.merge($0, TileRaster.encode(d)) } ?? TileRaster.encode(d) }
    }
    func blob(_ k: TileKey) -> [UInt8]? { rows[k] }
    func render(_ t: TileID, _ kind: TileKind) throws -> RGBAImage {
        try TileRenderer.render(tile: t, kind: kind, maxStoredZoom: 16) { rows[$0] }
    }
    func window(_ t: TileID, _ kind: TileKind) throws -> CountWindow {
        try TileRenderer.window(tile: t, kind: kind, maxStoredZoom: 16) { rows[$0] }
    }
}

/// Tests keep lines up to z16 (exact 1-px lines there); `lineMaxZoom15MatchesDirect` covers 15.
func pyramid(_ fixes: [TileFix], zooms: ClosedRange<Int> = 0...16) throws -> MemStore {
    var acc = TileAccumulator(zooms: zooms, lineMaxZoom: zooms.upperBound)
    acc.add(fixes)
    var s = MemStore()
    try s.apply(acc.flush())
    return s
}

/// Set of lit (alpha > 0) pixels.
func litPixels(_ img: RGBAImage) -> Set<[Int]> {
    var s = Set<[Int]>()
    for y in 0..<256 { for x in 0..<256 where img.alpha(x: x, y: y) > 0 { s.insert([x, y]) } }
    return s
}

/// Minimal PNG decoder for our own output (8-bit RGBA, non-interlaced, any filter type).
func decodePNG(_ png: [UInt8]) throws -> RGBAImage {
    struct Bad: Error { let why: String }
    guard png.count > 8, Array(png[0..<8]) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] else { throw Bad(why: "sig") }
    var pos = 8
    var idat: [UInt8] = []
    var w = 0, h = 0
    func be(_ p: Int) -> Int { Int(png[p]) << 24 | Int(png[p + 1]) << 16 | Int(png[p + 2]) << 8 | Int(png[p + 3]) }
    while pos + 12 <= png.count {
        let len = be(pos)
        let type = String(decoding: png[pos + 4..<pos + 8], as: UTF8.self)
        let data = Array(png[pos + 8..<pos + 8 + len])
        let crc = Array(png[pos + 4..<pos + 8 + len]).withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }
        guard UInt32(crc) == UInt32(be(pos + 8 + len)) else { throw Bad(why: "crc") }
        if type == "IHDR" {
            w = Int(data[0]) << 24 | Int(data[1]) << 16 | Int(data[2]) << 8 | Int(data[3])
            h = Int(data[4]) << 24 | Int(data[5]) << 16 | Int(data[6]) << 8 | Int(data[7])
            guard data[8] == 8, data[9] == 6, data[12] == 0 else { throw Bad(why: "format") }
        } else if type == "IDAT" {
            idat += data
        } else if type == "IEND" {
            break
        }
        pos += 12 + len
    }
    guard w == 256, h == 256 else { throw Bad(why: "size") }
    var raw = [UInt8](repeating: 0, count: h * (1 + w * 4))
    var n = uLong(raw.count)
    let rc = raw.withUnsafeMutableBufferPointer { r in
        idat.withUnsafeBufferPointer { uncompress(r.baseAddress, &n, $0.baseAddress, uLong($0.count)) }
    }
    guard rc == Z_OK, n == uLong(raw.count) else { throw Bad(why: "zlib") }
    var out = [UInt8](repeating: 0, count: w * h * 4)
    let stride = w * 4
    for y in 0..<h {
        let f = raw[y * (stride + 1)]
        for i in 0..<stride {
            let x = raw[y * (stride + 1) + 1 + i]
            let a = i >= 4 ? out[y * stride + i - 4] : 0
            let b = y > 0 ? out[(y - 1) * stride + i] : 0
            let c = (i >= 4 && y > 0) ? out[(y - 1) * stride + i - 4] : 0
            let pred: UInt8
            switch f {
            case 0: pred = 0
            case 1: pred = a
            case 2: pred = b
            case 3: pred = UInt8((Int(a) + Int(b)) / 2)
            case 4:
                let p = Int(a) + Int(b) - Int(c)
                let pa = abs(p - Int(a)), pb = abs(p - Int(b)), pc = abs(p - Int(c))
                pred = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c)
            default: throw Bad(why: "filter")
            }
            out[y * stride + i] = x &+ pred
        }
    }
    return RGBAImage(bytes: out)
}
