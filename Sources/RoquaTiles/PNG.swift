import CZlib
import RoquaIO

/// Minimal PNG writer: RGBA 8-bit, filter 0 on every row, one IDAT (zlib).
public enum PNG {
    /// zlib level for IDAT (1 = fastest). Tiles are mostly transparent, so level 1 is small enough.
    public static let level: Int32 = 1

    /// Cached PNG of a fully transparent 256×256 tile.
    public static let transparentTile: [UInt8] = encode(RGBAImage(), level: 9)

    public static func encode(_ img: RGBAImage, level: Int32 = PNG.level) -> [UInt8] {
        encode(width: 256, height: 256, rgba: img.bytes, level: level)
    }

    /// A `width`×`height` picture of `rgba` (rows from the top, 4 bytes a pixel).
    public static func encode(width w: Int, height h: Int, rgba: [UInt8], level: Int32 = PNG.level) -> [UInt8] {
        precondition(w > 0 && h > 0 && rgba.count == w * h * 4)
        var raw = [UInt8](repeating: 0, count: h * (1 + w * 4))
        rgba.withUnsafeBufferPointer { src in
            raw.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    let d = dst.baseAddress! + y * (1 + w * 4) + 1
                    d.update(from: src.baseAddress! + y * w * 4, count: w * 4)
                }
            }
        }
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var ihdr: [UInt8] = []
        be32(&ihdr, UInt32(w))
        be32(&ihdr, UInt32(h))
        ihdr += [8, 6, 0, 0, 0]
        chunk(&out, "IHDR", ihdr)
        chunk(&out, "IDAT", Zlib.deflate(raw, level: level))
        chunk(&out, "IEND", [])
        return out
    }

    static func be32(_ o: inout [UInt8], _ v: UInt32) {
        o += [UInt8(v >> 24), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)]
    }

    static func chunk(_ out: inout [UInt8], _ type: String, _ data: [UInt8]) {
        be32(&out, UInt32(data.count))
        let t = Array(type.utf8)
        let body = t + data
        out += body
        let c = body.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }
        be32(&out, UInt32(c))
    }
}
