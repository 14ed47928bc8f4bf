/// A small bounded reader for the ISO-BMFF (HEIF/HEIC/AVIF) metadata path:
/// ftyp → top-level box headers → meta → iinf (infe 'Exif') + iloc → the Exif item's extents.
/// Only box headers, the ftyp, iinf, iloc boxes and the Exif item bytes are read; mdat, iprp,
/// iref and the like are skipped by offset arithmetic.
enum ISOBMFFReader {
    static let maxTopLevelBoxes = 256
    static let maxMetaChildren = 64
    /// Cap on one iinf or iloc box (each is read whole).
    static let maxIndexBoxBytes = 64 * 1024
    static let maxExtents = 16
    /// Brands that say "HEIF still image" (HEIC, AVIF and friends).
    static let imageBrands: Set<String> = [
        "mif1", "mif2", "msf1", "heic", "heix", "heim", "heis", "hevc", "hevx", "heif",
        "avif", "avis", "avio", "miaf", "MiHE", "MiHB", "MiHA", "MiPr", "jpeg", "vvic",
    ]

    struct Box {
        var type: String
        var start: UInt64
        var payload: UInt64
        var end: UInt64
    }

    struct Extent {
        var offset: UInt64
        var length: UInt64
    }

    struct Location {
        var constructionMethod: Int
        var dataReferenceIndex: Int
        var extents: [Extent]
    }

    /// Returns the TIFF bytes of the Exif item, or nil when the file has no Exif item.
    static func exifTIFF(_ source: ByteSource) throws(ReadFailure) -> [UInt8]? {
        let ftyp = try boxHeader(source, at: 0, parentEnd: source.size)
        guard ftyp.type == "ftyp" else { throw .unsupportedFormat }
        let ftypLength = ftyp.end - ftyp.payload
        guard ftypLength >= 8, ftypLength <= 1024 else { throw .malformed("ftyp box of \(ftypLength) bytes") }
        let brandsBytes = try source.read(at: ftyp.payload, count: Int(ftypLength), "ftyp box")
        var brands: Set<String> = [brandsBytes.fourCC(0)]
        var i = 8
        while i + 4 <= brandsBytes.count {
            brands.insert(brandsBytes.fourCC(i))
            i += 4
        }
        guard !brands.isDisjoint(with: imageBrands) else { throw .unsupportedFormat }

        var pos = ftyp.end
        for _ in 0..<maxTopLevelBoxes {
            if pos >= source.size { throw .malformed("no meta box in the HEIF file") }
            let box = try boxHeader(source, at: pos, parentEnd: source.size)
            if box.type == "meta" { return try exifFromMeta(source, box) }
            pos = box.end
        }
        throw .malformed("more than \(maxTopLevelBoxes) top-level boxes before the meta box")
    }

    /// Reads one box header at `pos`; the box must lie inside `parentEnd`.
    static func boxHeader(_ source: ByteSource, at pos: UInt64, parentEnd: UInt64) throws(ReadFailure) -> Box {
        guard pos <= parentEnd, parentEnd - pos >= 8 else {
            throw .malformed("box header at offset \(pos) outside its parent (ends at \(parentEnd))")
        }
        let h = try source.read(at: pos, count: 8, "box header")
        let size32 = UInt64(h.be32(0))
        let type = h.fourCC(4)
        let room = parentEnd - pos
        switch size32 {
        case 0:  // extends to the end of the parent (file)
            return Box(type: type, start: pos, payload: pos + 8, end: parentEnd)
        case 1:  // 64-bit largesize follows
            guard room >= 16 else { throw .malformed("box \(type) largesize header outside its parent") }
            let large = try source.read(at: pos + 8, count: 8, "box largesize").be64(0)
            guard large >= 16 else { throw .malformed("box \(type) largesize \(large)") }
            guard large <= room else {
                throw .malformed("box \(type) size \(large) at offset \(pos) exceeds its parent/file (\(room) bytes left)")
            }
            return Box(type: type, start: pos, payload: pos + 16, end: pos + large)
        default:
            guard size32 >= 8 else { throw .malformed("box \(type) size \(size32) at offset \(pos)") }
            guard size32 <= room else {
                throw .malformed("box \(type) size \(size32) at offset \(pos) exceeds its parent/file (\(room) bytes left)")
            }
            return Box(type: type, start: pos, payload: pos + 8, end: pos + size32)
        }
    }

    static func exifFromMeta(_ source: ByteSource, _ meta: Box) throws(ReadFailure) -> [UInt8]? {
        // meta is a FullBox: 4 bytes version+flags, then child boxes.
        guard meta.end - meta.payload >= 4 else { throw .malformed("meta box too short") }
        var pos = meta.payload + 4
        var iinf: [UInt8]?
        var iloc: [UInt8]?
        var idat: Box?
        var children = 0
        while pos < meta.end {
            children += 1
            guard children <= maxMetaChildren else { throw .malformed("more than \(maxMetaChildren) boxes in meta") }
            let box = try boxHeader(source, at: pos, parentEnd: meta.end)
            switch box.type {
            case "iinf", "iloc":
                let length = box.end - box.payload
                guard length <= UInt64(maxIndexBoxBytes) else {
                    throw .malformed("\(box.type) box of \(length) bytes exceeds the cap of \(maxIndexBoxBytes)")
                }
                let bytes = try source.read(at: box.payload, count: Int(length), "\(box.type) box")
                if box.type == "iinf" { iinf = iinf ?? bytes } else { iloc = iloc ?? bytes }
            case "idat":
                idat = idat ?? box
            default:
                break
            }
            pos = box.end
        }
        guard let iinf else { throw .malformed("meta box has no iinf") }
        guard let exifID = try exifItemID(iinf) else { return nil }
        guard let iloc else { throw .malformed("meta box has no iloc") }
        guard let location = try itemLocation(iloc, itemID: exifID) else {
            throw .malformed("Exif item \(exifID) has no iloc entry")
        }
        let payload = try readItem(source, location, idat: idat)
        guard payload.count >= 4 else { throw .malformed("Exif item of \(payload.count) bytes") }
        let headerOffset = UInt64(payload.be32(0))
        guard headerOffset <= UInt64(payload.count), UInt64(payload.count) - headerOffset >= 4 + 8 else {
            throw .malformed("Exif item TIFF header offset \(headerOffset) outside the item (\(payload.count) bytes)")
        }
        var tiff = Array(payload[(4 + Int(headerOffset))...])
        if tiff.starts(with: [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]) { tiff.removeFirst(6) }
        return tiff
    }

    /// Finds the item_ID of the first item of type 'Exif' in an iinf payload.
    static func exifItemID(_ b: [UInt8]) throws(ReadFailure) -> UInt32? {
        var c = Cursor(bytes: b, what: "iinf")
        let version = try c.u8()
        try c.skip(3)
        let count = version == 0 ? UInt64(try c.u16()) : UInt64(try c.u32())
        // Each infe is at least 12 bytes (header + version/flags).
        guard count <= UInt64(c.remaining / 12) else {
            throw .malformed("iinf entry count \(count) exceeds the box (\(b.count) bytes)")
        }
        for _ in 0..<count {
            let start = c.pos
            let size = UInt64(try c.u32())
            let type = try c.fourCC()
            let boxEnd: Int
            switch size {
            case 0: boxEnd = b.count
            case 1: throw .malformed("infe with 64-bit size")
            default:
                guard size >= 12, size <= UInt64(b.count - start) else {
                    throw .malformed("infe size \(size) at iinf offset \(start) exceeds the iinf box")
                }
                boxEnd = start + Int(size)
            }
            if type == "infe" {
                var e = Cursor(bytes: Array(b[c.pos..<boxEnd]), what: "infe")
                let v = try e.u8()
                try e.skip(3)
                if v >= 2 {
                    let id = v == 2 ? UInt32(try e.u16()) : try e.u32()
                    try e.skip(2)  // item_protection_index
                    if try e.fourCC() == "Exif" { return id }
                }
            }
            c.pos = boxEnd
        }
        return nil
    }

    /// Parses an iloc payload (versions 0, 1, 2) and returns the location of `itemID`.
    static func itemLocation(_ b: [UInt8], itemID: UInt32) throws(ReadFailure) -> Location? {
        var c = Cursor(bytes: b, what: "iloc")
        let version = try c.u8()
        guard version <= 2 else { throw .malformed("iloc version \(version)") }
        try c.skip(3)
        let s1 = try c.u8()
        let s2 = try c.u8()
        let offsetSize = Int(s1 >> 4), lengthSize = Int(s1 & 0xF), baseOffsetSize = Int(s2 >> 4)
        let indexSize = version >= 1 ? Int(s2 & 0xF) : 0
        for (name, size) in [
            ("offset_size", offsetSize), ("length_size", lengthSize),
            ("base_offset_size", baseOffsetSize), ("index_size", indexSize),
        ] {
            guard size == 0 || size == 4 || size == 8 else { throw .malformed("iloc \(name) \(size)") }
        }
        let itemCount = version < 2 ? UInt64(try c.u16()) : UInt64(try c.u32())
        let minItemBytes = (version < 2 ? 2 : 4) + (version >= 1 ? 2 : 0) + 2 + baseOffsetSize + 2
        guard itemCount <= UInt64(c.remaining / minItemBytes) else {
            throw .malformed("iloc item count \(itemCount) exceeds the box (\(b.count) bytes)")
        }
        for _ in 0..<itemCount {
            let id = version < 2 ? UInt32(try c.u16()) : try c.u32()
            var method = 0
            if version >= 1 { method = Int(try c.u16() & 0xF) }
            let dataRef = Int(try c.u16())
            let base = try c.uint(baseOffsetSize)
            let extentCount = Int(try c.u16())
            let extentBytes = indexSize + offsetSize + lengthSize
            guard extentCount * extentBytes <= c.remaining else {
                throw .malformed("iloc extent count \(extentCount) exceeds the box")
            }
            var extents: [Extent] = []
            for _ in 0..<extentCount {
                _ = try c.uint(indexSize)
                let offset = try c.uint(offsetSize)
                let length = try c.uint(lengthSize)
                if id == itemID {
                    guard extents.count < maxExtents else { throw .malformed("Exif item has more than \(maxExtents) extents") }
                    let (absolute, overflow) = base.addingReportingOverflow(offset)
                    guard !overflow else { throw .malformed("iloc extent offset overflows") }
                    extents.append(Extent(offset: absolute, length: length))
                }
            }
            if id == itemID {
                return Location(constructionMethod: method, dataReferenceIndex: dataRef, extents: extents)
            }
        }
        return nil
    }

    static func readItem(_ source: ByteSource, _ loc: Location, idat: Box?) throws(ReadFailure) -> [UInt8] {
        guard loc.dataReferenceIndex == 0 else {
            throw .malformed("Exif item stored in another file (data_reference_index \(loc.dataReferenceIndex))")
        }
        guard !loc.extents.isEmpty else { throw .malformed("Exif item has no extents") }
        let area: (start: UInt64, end: UInt64)
        switch loc.constructionMethod {
        case 0: area = (0, source.size)
        case 1:
            guard let idat else { throw .malformed("Exif item in idat but meta has no idat box") }
            area = (idat.payload, idat.end)
        default:
            throw .malformed("Exif item construction method \(loc.constructionMethod) unsupported")
        }
        var total: UInt64 = 0
        var ranges: [(UInt64, Int)] = []
        for e in loc.extents {
            let areaLength = area.end - area.start
            guard e.offset <= areaLength else {
                throw .malformed("Exif item extent offset \(e.offset) outside the file (\(areaLength) bytes)")
            }
            // length 0 means "to the end of the data area".
            let length = e.length == 0 ? areaLength - e.offset : e.length
            guard length <= areaLength - e.offset else {
                throw .malformed("Exif item extent (offset \(e.offset), length \(length)) outside the file (\(areaLength) bytes)")
            }
            total += length
            guard total <= UInt64(maxExifBytes) else {
                throw .malformed("Exif item of \(total)+ bytes exceeds the cap of \(maxExifBytes)")
            }
            ranges.append((area.start + e.offset, Int(length)))
        }
        var out: [UInt8] = []
        out.reserveCapacity(Int(total))
        for (offset, length) in ranges {
            out += try source.read(at: offset, count: length, "Exif item extent")
        }
        return out
    }
}

/// A bounds-checked big-endian reader over a byte array; overruns throw `.malformed`.
struct Cursor {
    let bytes: [UInt8]
    let what: String
    var pos = 0

    init(bytes: [UInt8], what: String) {
        self.bytes = bytes
        self.what = what
    }

    var remaining: Int { bytes.count - pos }

    mutating func need(_ n: Int) throws(ReadFailure) {
        guard n <= remaining else { throw .malformed("\(what) box truncated at byte \(pos) (needs \(n) more)") }
    }

    mutating func skip(_ n: Int) throws(ReadFailure) {
        try need(n)
        pos += n
    }

    mutating func u8() throws(ReadFailure) -> UInt8 {
        try need(1)
        defer { pos += 1 }
        return bytes[pos]
    }

    mutating func u16() throws(ReadFailure) -> UInt16 {
        try need(2)
        defer { pos += 2 }
        return bytes.be16(pos)
    }

    mutating func u32() throws(ReadFailure) -> UInt32 {
        try need(4)
        defer { pos += 4 }
        return bytes.be32(pos)
    }

    mutating func fourCC() throws(ReadFailure) -> String {
        try need(4)
        defer { pos += 4 }
        return bytes.fourCC(pos)
    }

    /// An unsigned integer of 0, 4 or 8 bytes (iloc field sizes).
    mutating func uint(_ size: Int) throws(ReadFailure) -> UInt64 {
        switch size {
        case 0: return 0
        case 4: return UInt64(try u32())
        default:
            try need(8)
            defer { pos += 8 }
            return bytes.be64(pos)
        }
    }
}
