/// A bounded structural check of a TIFF/EXIF block before it is handed to libexif, so that
/// hostile structure is reported as `.malformed` with a precise message instead of being
/// silently dropped: IFD offsets outside the block, IFD loops, entry counts that cannot fit,
/// and GPS/time values pointing outside the block.
enum TIFFValidator {
    /// Where the entries that are read live: IFD name → tag → (type, count, offset of the value bytes).
    struct Layout {
        var littleEndian: Bool
        var entries: [String: [UInt16: (type: UInt16, count: UInt32, at: Int)]] = [:]
        /// One past the last byte of any IFD table or read value.
        var end = 8
    }

    static let maxIFDs = 8
    static let exifPointer: UInt16 = 0x8769
    static let gpsPointer: UInt16 = 0x8825
    static let interopPointer: UInt16 = 0xA005
    /// Tags whose values are read: their value ranges must lie inside the block.
    static let timeTags: Set<UInt16> = [0x0132, 0x9003, 0x9004, 0x9010, 0x9011, 0x9012, 0x9290, 0x9291, 0x9292]

    static func typeSize(_ type: UInt16) -> UInt64 {
        switch type {
        case 1, 2, 6, 7: 1
        case 3, 8: 2
        case 4, 9, 11, 13: 4
        case 5, 10, 12: 8
        default: 0
        }
    }

    @discardableResult
    static func validate(_ b: [UInt8]) throws(ReadFailure) -> Layout {
        guard b.count >= 8 else { throw .malformed("Exif block of \(b.count) bytes is too short for a TIFF header") }
        let little: Bool
        switch (b[0], b[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: throw .malformed("Exif block has no TIFF byte-order mark")
        }
        func u16(_ i: Int) -> UInt16 {
            little ? UInt16(b[i]) | UInt16(b[i + 1]) << 8 : UInt16(b[i]) << 8 | UInt16(b[i + 1])
        }
        func u32(_ i: Int) -> UInt32 {
            little
                ? UInt32(u16(i)) | UInt32(u16(i + 2)) << 16
                : UInt32(u16(i)) << 16 | UInt32(u16(i + 2))
        }
        guard u16(2) == 42 else { throw .malformed("TIFF magic \(u16(2)), expected 42") }
        let length = UInt64(b.count)
        var layout = Layout(littleEndian: little)

        var visited: Set<UInt32> = []
        var pending: [(offset: UInt32, name: String, chainIndex: Int?)] = [(u32(4), "IFD0", 0)]
        var seen = 0
        while let (offset, name, chainIndex) = pending.popLast() {
            seen += 1
            guard seen <= maxIFDs else { throw .malformed("more than \(maxIFDs) IFDs") }
            guard visited.insert(offset).inserted else {
                throw .malformed("IFD loop: \(name) at offset \(offset) was already read")
            }
            guard offset >= 8, UInt64(offset) + 2 <= length else {
                throw .malformed("\(name) IFD offset \(offset) outside the file (Exif block is \(length) bytes)")
            }
            let at = Int(offset)
            let count = UInt64(u16(at))
            guard UInt64(offset) + 2 + 12 * count <= length else {
                throw .malformed("\(name) entry count \(count) exceeds the Exif block (\(length) bytes)")
            }
            layout.end = max(layout.end, at + 2 + 12 * Int(count))
            for i in 0..<Int(count) {
                let e = at + 2 + 12 * i
                let tag = u16(e), type = u16(e + 2), n = UInt64(u32(e + 4))
                let isPointer =
                    (name == "IFD0" && (tag == exifPointer || tag == gpsPointer))
                    || (name == "Exif" && tag == interopPointer)
                if isPointer {
                    guard type == 4 || type == 13, n == 1 else {
                        throw .malformed("\(name) sub-IFD pointer 0x\(hex(tag)) has type \(type) count \(n)")
                    }
                    let sub = tag == exifPointer ? "Exif" : tag == gpsPointer ? "GPS" : "Interop"
                    pending.append((u32(e + 8), sub, nil))
                    continue
                }
                guard name == "GPS" || timeTags.contains(tag) else { continue }
                let size = typeSize(type) * n
                var valueAt = e + 8
                if size > 4 {
                    let valueOffset = UInt64(u32(e + 8))
                    guard size <= length, valueOffset <= length - size else {
                        throw .malformed(
                            "\(name) tag 0x\(hex(tag)) entry count \(n) (value \(size) bytes at offset \(valueOffset)) outside the Exif block (\(length) bytes)"
                        )
                    }
                    valueAt = Int(valueOffset)
                    layout.end = max(layout.end, valueAt + Int(size))
                }
                if layout.entries[name]?[tag] == nil, size > 0 {
                    layout.entries[name, default: [:]][tag] = (type, UInt32(n), valueAt)
                }
            }
            if let chainIndex {
                layout.end = max(layout.end, min(b.count, at + 2 + 12 * Int(count) + 4))
                let nextAt = at + 2 + 12 * Int(count)
                if nextAt + 4 <= b.count {
                    let next = u32(nextAt)
                    if next != 0 { pending.append((next, "IFD\(chainIndex + 1)", chainIndex + 1)) }
                }
            }
        }
        return layout
    }

    static func hex(_ v: UInt16) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }
}
