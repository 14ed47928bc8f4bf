import CZlib
import RoquaIO

/// Sparse 256×256 count raster (or a delta to add to one): sorted pixel indices
/// (`y * 256 + x` inside the tile) with their non-zero counts.
public struct TileDelta: Equatable, Sendable {
    public var pixels: [UInt16]
    public var counts: [UInt32]
    public init() {
        pixels = []
        counts = []
    }
    public init(pixels: [UInt16], counts: [UInt32]) {
        self.pixels = pixels
        self.counts = counts
    }
    public var isEmpty: Bool { pixels.isEmpty }
    public var count: Int { pixels.count }
    /// Sum of all counts (saturating).
    public var total: UInt64 { counts.reduce(0) { $0 + UInt64($1) } }
    /// Count at a pixel (0 when absent).
    public func count(x: Int, y: Int) -> UInt32 {
        let idx = UInt16(y * 256 + x)
        var lo = 0, hi = pixels.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if pixels[mid] < idx { lo = mid + 1 } else { hi = mid }
        }
        return lo < pixels.count && pixels[lo] == idx ? counts[lo] : 0
    }
    /// Dense 65,536-entry copy.
    public func dense() -> [UInt32] {
        var d = [UInt32](repeating: 0, count: 65536)
        for i in 0..<pixels.count { d[Int(pixels[i])] = counts[i] }
        return d
    }
    /// Builds a sparse delta from a dense 65,536-entry raster.
    public init(dense: [UInt32]) {
        precondition(dense.count == 65536)
        pixels = []
        counts = []
        for i in 0..<65536 where dense[i] != 0 {
            pixels.append(UInt16(i))
            counts.append(dense[i])
        }
    }
}

public enum TileBlobError: Error, Equatable, Sendable, CustomStringConvertible {
    case tooShort, badMagic, badVersion(UInt8), badFlags(UInt8), badVarint, tooMany, indexOutOfRange,
        notIncreasing, trailingBytes, truncated, inflateFailed(Int32), lengthMismatch

    public var description: String {
        switch self {
        case .tooShort: "a segment shorter than its header"
        case .badMagic: "a segment not starting with \"RT\""
        case let .badVersion(version): "segment version \(version), not \(TileRaster.version)"
        case let .badFlags(flags): "unknown segment flags \(flags)"
        case .badVarint: "a number longer than 32 bits"
        case .tooMany: "more segments or pixels than a tile holds"
        case .indexOutOfRange: "a pixel outside the tile"
        case .notIncreasing: "pixels out of order"
        case .trailingBytes: "bytes after a segment's pixels"
        case .truncated: "a segment cut short"
        case let .inflateFailed(status): "compressed data that does not inflate (zlib status \(status))"
        case .lengthMismatch: "a segment's length not the one it declares"
        }
    }
}

/// The stored BLOB format and its merge.
///
/// A blob is one or more *segments*; its raster is the pixelwise sum of its segments.
/// ```
/// segment: "R" "T" version(2) flags(bit0 = zlib) varint rawLength [flags&1: varint storedLength]
///          then the payload (raw) or its zlib stream (storedLength bytes)
/// payload: varint n (≤ 65536), n × varint indexDelta, n × varint (count − 1)
/// ```
/// Columnar payload: all index deltas, then all counts (mostly 1 → runs of zero bytes), which
/// zlib level 1 packs 2× faster and ~8 % smaller than interleaved pairs. The first delta is the
/// pixel index itself, later ones are > 0; counts are 1…UInt32.max.
///
/// Roqua writes every row as one segment (`encode`: equal rasters give equal blobs) and merges
/// by rewriting it whole; blobs of several segments, which stores written before 30 Nov 2026
/// hold (a merge appended a segment then), are read as their sum.
public enum TileRaster {
    public static let version: UInt8 = 2
    /// Payloads of at least this many bytes are zlib-compressed.
    public static let compressThreshold = 48
    static let maxRaw = 16 + 65536 * 10

    // MARK: encode

    public static func encode(_ d: TileDelta, compress: Bool = true) -> [UInt8] {
        var payload: [UInt8] = []
        payload.reserveCapacity(8 + d.count * 3)
        putVarint(&payload, UInt32(d.count))
        var prev = 0
        for i in 0..<d.count {
            let p = Int(d.pixels[i])
            putVarint(&payload, UInt32(i == 0 ? p : p - prev))
            prev = p
        }
        for c in d.counts { putVarint(&payload, c &- 1) }
        return segment(payload, compress: compress)
    }

    /// `blob` as `encode` makes it. A blob of one raw segment (as `encode(_:compress: false)`
    /// makes them) has its payload compressed as it is, not decoded and encoded again: the same
    /// bytes, as a payload is the one its raster encodes to. Only its header is checked then.
    public static func compressed(_ blob: [UInt8]) throws(TileBlobError) -> [UInt8] {
        let parts = try segments(blob)
        guard parts.count == 1, !parts[0].zlib, parts[0].rawLength == parts[0].range.count else { return encode(try decode(blob)) }
        return segment(Array(blob[parts[0].range]), compress: true)
    }

    /// One segment of `payload`, compressed when asked and long enough to gain.
    private static func segment(_ payload: [UInt8], compress: Bool) -> [UInt8] {
        if compress && payload.count >= compressThreshold {
            let z = Zlib.deflate(payload, level: 1)
            var out: [UInt8] = [0x52, 0x54, version, 1]
            putVarint(&out, UInt32(payload.count))
            putVarint(&out, UInt32(z.count))
            out.append(contentsOf: z)
            return out
        }
        var out: [UInt8] = [0x52, 0x54, version, 0]
        putVarint(&out, UInt32(payload.count))
        return out + payload
    }

    @inline(__always)
    static func putVarint(_ out: inout [UInt8], _ v: UInt32) {
        var v = v
        while v >= 0x80 {
            out.append(UInt8(v & 0x7f) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    // MARK: decode

    struct Segment {
        let zlib: Bool
        let rawLength: Int
        let range: Range<Int>
    }

    /// Parses segment headers (no payload decoding).
    static func segments(_ blob: [UInt8]) throws(TileBlobError) -> [Segment] {
        guard blob.count >= 4 else { throw .tooShort }
        var out: [Segment] = []
        try blob.withUnsafeBufferPointer { (b) throws(TileBlobError) in
            var pos = 0
            while pos < b.count {
                guard b.count - pos >= 5 else { throw .tooShort }
                guard b[pos] == 0x52, b[pos + 1] == 0x54 else { throw .badMagic }
                guard b[pos + 2] == version else { throw .badVersion(b[pos + 2]) }
                let flags = b[pos + 3]
                guard flags <= 1 else { throw .badFlags(flags) }
                pos += 4
                let raw = Int(try readVarint(b, &pos))
                guard raw >= 1, raw <= maxRaw else { throw .lengthMismatch }
                let stored = flags == 1 ? Int(try readVarint(b, &pos)) : raw
                guard stored >= 1, stored <= b.count - pos else { throw .truncated }
                out.append(Segment(zlib: flags == 1, rawLength: raw, range: pos..<(pos + stored)))
                pos += stored
                guard out.count <= 64 else { throw .tooMany }
            }
        }
        return out
    }

    public static func decode(_ blob: [UInt8]) throws(TileBlobError) -> TileDelta {
        var parts: [TileDelta] = []
        for seg in try segments(blob) {
            let d: TileDelta
            if !seg.zlib {
                d = try blob.withUnsafeBufferPointer { (b) throws(TileBlobError) -> TileDelta in
                    try decodePayload(UnsafeBufferPointer(rebasing: b[seg.range]))
                }
            } else {
                var raw = [UInt8](repeating: 0, count: seg.rawLength)
                var destLen = uLong(seg.rawLength)
                let rc = raw.withUnsafeMutableBufferPointer { rp in
                    blob.withUnsafeBufferPointer { bp in
                        var srcLen = uLong(seg.range.count)
                        return uncompress2(rp.baseAddress, &destLen, bp.baseAddress! + seg.range.lowerBound, &srcLen)
                    }
                }
                guard rc == Z_OK else { throw .inflateFailed(rc) }
                guard destLen == uLong(seg.rawLength) else { throw .lengthMismatch }
                d = try raw.withUnsafeBufferPointer { (b) throws(TileBlobError) -> TileDelta in try decodePayload(b) }
            }
            parts.append(d)
        }
        return sum(parts)
    }

    @inline(__always)
    static func readVarint(_ b: UnsafeBufferPointer<UInt8>, _ pos: inout Int) throws(TileBlobError) -> UInt32 {
        var v: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard pos < b.count else { throw .truncated }
            let byte = b[pos]
            pos += 1
            v |= UInt64(byte & 0x7f) << shift
            if byte < 0x80 { break }
            shift += 7
            guard shift < 35 else { throw .badVarint }
        }
        guard v <= UInt64(UInt32.max) else { throw .badVarint }
        return UInt32(v)
    }

    static func decodePayload(_ b: UnsafeBufferPointer<UInt8>) throws(TileBlobError) -> TileDelta {
        var pos = 0
        let n = Int(try readVarint(b, &pos))
        guard n <= 65536 else { throw .tooMany }
        guard n * 2 <= b.count - pos else { throw .truncated }
        var pixels = [UInt16]()
        pixels.reserveCapacity(n)
        var counts = [UInt32]()
        counts.reserveCapacity(n)
        var idx = -1
        for i in 0..<n {
            let d = Int(try readVarint(b, &pos))
            if i > 0 && d == 0 { throw .notIncreasing }
            idx = i == 0 ? d : idx + d
            guard idx < 65536 else { throw .indexOutOfRange }
            pixels.append(UInt16(idx))
        }
        for _ in 0..<n {
            let c = try readVarint(b, &pos)
            guard c < UInt32.max else { throw .badVarint }
            counts.append(c + 1)
        }
        guard pos == b.count else { throw .trailingBytes }
        return TileDelta(pixels: pixels, counts: counts)
    }

    // MARK: merge

    /// The pixelwise saturating sum of any number of rasters, combined two by two in rounds: a
    /// pixel is copied once a round, log₂ n times, not once for each raster after it (a tile
    /// spilled by twenty evictions of a big import is summed in five rounds, not twenty).
    public static func sum(_ deltas: [TileDelta]) -> TileDelta {
        var round = deltas
        while round.count > 1 {
            round = stride(from: 0, to: round.count, by: 2).map { i in i + 1 < round.count ? combine(round[i], round[i + 1]) : round[i] }
        }
        return round.first ?? TileDelta()
    }

    /// Pixelwise saturating sum of two sparse rasters.
    public static func combine(_ a: TileDelta, _ b: TileDelta) -> TileDelta {
        if a.isEmpty { return b }
        if b.isEmpty { return a }
        var out = TileDelta()
        out.pixels.reserveCapacity(a.count + b.count)
        out.counts.reserveCapacity(a.count + b.count)
        var i = 0, j = 0
        while i < a.count && j < b.count {
            let pa = a.pixels[i], pb = b.pixels[j]
            if pa < pb {
                out.pixels.append(pa)
                out.counts.append(a.counts[i])
                i += 1
            } else if pb < pa {
                out.pixels.append(pb)
                out.counts.append(b.counts[j])
                j += 1
            } else {
                let (s, o) = a.counts[i].addingReportingOverflow(b.counts[j])
                out.pixels.append(pa)
                out.counts.append(o ? .max : s)
                i += 1
                j += 1
            }
        }
        while i < a.count {
            out.pixels.append(a.pixels[i])
            out.counts.append(a.counts[i])
            i += 1
        }
        while j < b.count {
            out.pixels.append(b.pixels[j])
            out.counts.append(b.counts[j])
            j += 1
        }
        return out
    }

    /// Two stored blobs as one blob of their sum, one segment.
    public static func merge(_ a: [UInt8], _ b: [UInt8]) throws(TileBlobError) -> [UInt8] {
        encode(combine(try decode(a), try decode(b)))
    }
}

/// Fuzz entry point: any bytes must decode to a valid raster or throw, never crash.
/// On success the raster must re-encode and decode to itself, and `compressed` keep it.
@discardableResult
public func fuzzTileBlob(_ bytes: [UInt8]) -> Bool {
    do {
        let d = try TileRaster.decode(bytes)
        var prev = -1
        for i in 0..<d.count {
            precondition(Int(d.pixels[i]) > prev && d.counts[i] > 0, "decoded raster not canonical")
            prev = Int(d.pixels[i])
        }
        let again = try TileRaster.decode(TileRaster.encode(d))
        precondition(again == d, "re-encode round trip failed")
        let merged = try TileRaster.decode(try TileRaster.merge(bytes, TileRaster.encode(d)))
        precondition(merged == TileRaster.combine(d, d), "merge lost counts")
        let compressed = try TileRaster.decode(TileRaster.compressed(bytes))
        precondition(compressed == d, "compressing as is changed the raster")
        return true
    } catch {
        _ = try? TileRaster.compressed(bytes)  // a blob that does not decode: refused or compressed, never a crash
        return false
    }
}
