import Foundation
import RoquaTestSupport

@testable import RoquaPhotos

/// Loads a committed fixture's bytes / path.
enum Fixture {
    static func url(_ name: String) -> URL {
        URL(fileURLWithPath: Repository.path("Tests/RoquaPhotosTests/Fixtures/\(name)"))
    }

    static func path(_ name: String) -> String { url(name).path }

    static func bytes(_ name: String) -> [UInt8] { [UInt8](try! Data(contentsOf: url(name))) }
}

/// A tiny TIFF/EXIF writer for hostile-structure tests. Records where each IFD and entry is,
/// so tests can patch offsets and counts.
struct TIFFBuilder {
    struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: UInt32
        var data: [UInt8]
    }

    var bigEndian = false
    var ifd0: [Entry] = []
    var exif: [Entry] = []
    var gps: [Entry] = []

    struct Built {
        var bytes: [UInt8]
        /// IFD name ("IFD0", "Exif", "GPS") → offset of the IFD.
        var ifds: [String: Int]
        /// (IFD name, tag) → offset of the 12-byte entry.
        var entries: [String: Int]

        func entry(_ ifd: String, _ tag: UInt16) -> Int { entries["\(ifd).\(tag)"]! }

        mutating func put32(_ at: Int, _ v: UInt32, bigEndian: Bool) {
            let b =
                bigEndian
                ? [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
                : [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
            bytes.replaceSubrange(at..<at + 4, with: b)
        }

        mutating func put16(_ at: Int, _ v: UInt16, bigEndian: Bool) {
            let b = bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)]
            bytes.replaceSubrange(at..<at + 2, with: b)
        }
    }

    func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
    func u32(_ v: UInt32) -> [UInt8] {
        bigEndian
            ? [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
            : [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
    }

    func ascii(_ tag: UInt16, _ s: String) -> Entry {
        let d = Array(s.utf8) + [0]
        return Entry(tag: tag, type: 2, count: UInt32(d.count), data: d)
    }

    func rationals(_ tag: UInt16, _ r: [(UInt32, UInt32)]) -> Entry {
        Entry(tag: tag, type: 5, count: UInt32(r.count), data: r.flatMap { u32($0.0) + u32($0.1) })
    }

    func bytes(_ tag: UInt16, _ b: [UInt8]) -> Entry { Entry(tag: tag, type: 1, count: UInt32(b.count), data: b) }

    /// Standard GPS + Exif content.
    mutating func standard(
        latRef: String = "N", lat: [(UInt32, UInt32)] = [(48, 1), (51, 1), (2952, 100)],
        lonRef: String = "E", lon: [(UInt32, UInt32)] = [(2, 1), (17, 1), (4020, 100)],
        gpsDate: String? = "2023:07:14", gpsTime: [(UInt32, UInt32)]? = [(12, 1), (34, 1), (565, 10)],
        dto: String? = "2023:07:14 14:34:50", offset: String? = "+02:00"
    ) {
        ifd0 = [ascii(0x010F, "Roqua")]
        exif = []
        if let dto { exif.append(ascii(0x9003, dto)) }
        if let offset { exif.append(ascii(0x9011, offset)) }
        gps = [
            bytes(0x0000, [2, 3, 0, 0]), ascii(0x0001, latRef), rationals(0x0002, lat),
            ascii(0x0003, lonRef), rationals(0x0004, lon),
        ]
        if let gpsTime { gps.append(rationals(0x0007, gpsTime)) }
        if let gpsDate { gps.append(ascii(0x001D, gpsDate)) }
    }

    func build() -> Built {
        var ifdList: [(String, [Entry])] = [("IFD0", ifd0)]
        if !exif.isEmpty { ifdList.append(("Exif", exif)) }
        if !gps.isEmpty { ifdList.append(("GPS", gps)) }
        if !exif.isEmpty { ifdList[0].1.append(Entry(tag: 0x8769, type: 4, count: 1, data: [0, 0, 0, 0])) }
        if !gps.isEmpty { ifdList[0].1.append(Entry(tag: 0x8825, type: 4, count: 1, data: [0, 0, 0, 0])) }
        func size(_ e: [Entry]) -> Int {
            2 + 12 * e.count + 4 + e.reduce(0) { $0 + ($1.data.count > 4 ? ($1.data.count + 1) & ~1 : 0) }
        }
        var offsets: [String: Int] = [:]
        var pos = 8
        for (name, entries) in ifdList {
            offsets[name] = pos
            pos += size(entries)
        }
        var out: [UInt8] = (bigEndian ? [0x4D, 0x4D, 0, 42] : [0x49, 0x49, 42, 0]) + u32(8)
        var entryAt: [String: Int] = [:]
        for (name, var entries) in ifdList {
            entries = entries.map { e in
                var e = e
                if e.tag == 0x8769 { e.data = u32(UInt32(offsets["Exif"]!)) }
                if e.tag == 0x8825 { e.data = u32(UInt32(offsets["GPS"]!)) }
                return e
            }.sorted { $0.tag < $1.tag }
            let start = offsets[name]!
            var dataAt = start + 2 + 12 * entries.count + 4
            var table = u16(UInt16(entries.count))
            var data: [UInt8] = []
            for (i, e) in entries.enumerated() {
                entryAt["\(name).\(e.tag)"] = start + 2 + 12 * i
                table += u16(e.tag) + u16(e.type) + u32(e.count)
                if e.data.count <= 4 {
                    table += e.data + [UInt8](repeating: 0, count: 4 - e.data.count)
                } else {
                    table += u32(UInt32(dataAt))
                    data += e.data
                    if e.data.count % 2 == 1 { data.append(0) }
                    dataAt += (e.data.count + 1) & ~1
                }
            }
            table += u32(0)
            out += table + data
        }
        return Built(bytes: out, ifds: offsets, entries: entryAt)
    }
}

/// Wraps TIFF bytes in a minimal JPEG: SOI, APP1 Exif, SOS, some scan bytes, EOI.
func jpeg(tiff: [UInt8], scanBytes: Int = 16) -> [UInt8] {
    let app1Length = 2 + 6 + tiff.count
    var out: [UInt8] = [0xFF, 0xD8]
    out += [0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
    out += [0xFF, 0xE1, UInt8(app1Length >> 8), UInt8(app1Length & 0xFF)] + Array("Exif".utf8) + [0, 0] + tiff
    out += [0xFF, 0xDA, 0x00, 0x08, 1, 1, 0, 0, 0x3F, 0]
    out += [UInt8](repeating: 0x55, count: scanBytes)
    out += [0xFF, 0xD9]
    return out
}

/// Wraps TIFF bytes in a minimal PNG with an eXIf chunk before IDAT (CRCs are not checked).
func png(tiff: [UInt8]) -> [UInt8] {
    func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        be32(UInt32(data.count)) + Array(type.utf8) + data + [0, 0, 0, 0]
    }
    return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        + chunk("IHDR", be32(1) + be32(1) + [8, 2, 0, 0, 0])
        + chunk("eXIf", tiff) + chunk("IDAT", [1, 2, 3]) + chunk("IEND", [])
}

func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
func be64(_ v: UInt64) -> [UInt8] { be32(UInt32(v >> 32)) + be32(UInt32(v & 0xFFFF_FFFF)) }

func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { be32(UInt32(8 + payload.count)) + Array(type.utf8) + payload }
func fullBox(_ type: String, version: UInt8, flags: UInt32 = 0, _ payload: [UInt8]) -> [UInt8] {
    box(type, [version, UInt8(flags >> 16 & 0xFF), UInt8(flags >> 8 & 0xFF), UInt8(flags & 0xFF)] + payload)
}

/// A hand-assembled HEIF: ftyp 'heic', meta (hdlr pict, pitm, iinf with infe v2 'hvc1' + 'Exif', iloc),
/// then mdat with fake image bytes followed by the Exif item.
struct HEIFBuilder {
    var ilocVersion: UInt8 = 0
    var offsetSize = 4
    var lengthSize = 4
    var baseOffsetSize = 0
    var indexSize = 0
    var infeVersion: UInt8 = 2
    var exifInIdat = false
    var imageBytes = 64
    /// Bytes of the Exif item payload: 4-byte offset + "Exif\0\0" + TIFF.
    var exifPayload: [UInt8]
    /// Overrides for hostile tests.
    var iinfCountOverride: UInt32?
    var ilocItemCountOverride: UInt32?
    var exifOffsetOverride: UInt64?
    var exifLengthOverride: UInt64?
    var metaExtraChildren: [[UInt8]] = []
    /// Top-level boxes placed between ftyp and meta.
    var boxesBeforeMeta: [UInt8] = []

    init(tiff: [UInt8]) {
        exifPayload = be32(6) + Array("Exif".utf8) + [0, 0] + tiff
    }

    func uint(_ v: UInt64, _ size: Int) -> [UInt8] {
        switch size {
        case 0: []
        case 4: be32(UInt32(truncatingIfNeeded: v))
        default: be64(v)
        }
    }

    func build() -> [UInt8] {
        let ftyp = box("ftyp", Array("heic".utf8) + be32(0) + Array("mif1heicmiaf".utf8))
        // Two passes: the iloc has fixed-size fields, so the meta size does not depend on offsets.
        var meta = makeMeta(mdatStart: 0, idatStart: 0)
        let mdatStart = ftyp.count + boxesBeforeMeta.count + meta.count
        meta = makeMeta(mdatStart: UInt64(mdatStart), idatStart: 0)
        let mdat = box("mdat", [UInt8](repeating: 0xAB, count: imageBytes) + (exifInIdat ? [] : exifPayload))
        return ftyp + boxesBeforeMeta + meta + mdat
    }

    private func makeMeta(mdatStart: UInt64, idatStart: UInt64) -> [UInt8] {
        let hdlr = fullBox("hdlr", version: 0, be32(0) + Array("pict".utf8) + [UInt8](repeating: 0, count: 12) + [0])
        let pitm = fullBox("pitm", version: 0, be16(1))
        func infe(_ id: UInt16, _ type: String) -> [UInt8] {
            if infeVersion >= 2 {
                let idBytes = infeVersion == 2 ? be16(id) : be32(UInt32(id))
                return fullBox("infe", version: infeVersion, idBytes + be16(0) + Array(type.utf8) + [0])
            }
            return fullBox("infe", version: infeVersion, be16(id) + be16(0) + [0])
        }
        let count = iinfCountOverride ?? 2
        let iinf = fullBox(
            "iinf", version: iinfCountOverride != nil ? 1 : 0,
            (iinfCountOverride != nil ? be32(count) : be16(UInt16(count))) + infe(1, "hvc1") + infe(2, "Exif"))
        // iloc
        var p: [UInt8] = [UInt8(offsetSize << 4 | lengthSize), UInt8(baseOffsetSize << 4 | (ilocVersion >= 1 ? indexSize : 0))]
        let itemCount = ilocItemCountOverride ?? 2
        p += ilocVersion < 2 ? be16(UInt16(truncatingIfNeeded: itemCount)) : be32(itemCount)
        let imageStart = mdatStart + 8
        let exifStart = exifInIdat ? 0 : imageStart + UInt64(imageBytes)
        for (id, start, length, method) in [
            (UInt32(1), imageStart, UInt64(imageBytes), 0),
            (UInt32(2), exifStart, UInt64(exifPayload.count), exifInIdat ? 1 : 0),
        ] {
            p += ilocVersion < 2 ? be16(UInt16(id)) : be32(id)
            if ilocVersion >= 1 { p += be16(UInt16(method)) }
            p += be16(0)  // data_reference_index
            // Put the whole offset in base_offset when there is one and offset_size is 0.
            let useBase = baseOffsetSize > 0
            let base: UInt64 = useBase ? (offsetSize == 0 ? start : start / 2) : 0
            p += uint(base, baseOffsetSize)
            p += be16(1)  // extent_count
            if ilocVersion >= 1 { p += uint(0, indexSize) }
            let off = id == 2 ? (exifOffsetOverride ?? start) - base : start - base
            p += uint(off, offsetSize)
            p += uint(id == 2 ? (exifLengthOverride ?? length) : length, lengthSize)
        }
        let iloc = fullBox("iloc", version: ilocVersion, p)
        var children = hdlr + pitm + iinf + iloc
        if exifInIdat { children += box("idat", exifPayload) }
        for extra in metaExtraChildren { children += extra }
        return fullBox("meta", version: 0, children)
    }
}

extension PhotoReading {
    var fix: PhotoFix? {
        if case .fix(let f) = self { return f }
        return nil
    }

    var skipReason: SkipReason? {
        if case .skipped(let r) = self { return r }
        return nil
    }

    var malformedMessage: String? {
        if case .skipped(.malformed(let m)) = self { return m }
        return nil
    }
}
