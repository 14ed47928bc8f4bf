/// Photo container formats recognised by their first bytes (not by file extension:
/// Takeout exports sometimes carry a JPEG named .HEIC).
enum PhotoContainer: Equatable {
    case jpeg, png, isobmff

    static func sniff(_ source: ByteSource) throws(ReadFailure) -> PhotoContainer {
        guard source.size >= 12 else {
            if source.size == 0 { throw .unsupportedFormat }
            // Too short for any supported container: look at what there is.
            let head = try source.read(at: 0, count: Int(source.size), "file header")
            if head.count >= 3, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF {
                throw .malformed("truncated JPEG (\(head.count) bytes)")
            }
            throw .unsupportedFormat
        }
        let head = try source.read(at: 0, count: 12, "file header")
        if head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF { return .jpeg }
        if head[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return .png }
        if head.fourCC(4) == "ftyp" { return .isobmff }
        throw .unsupportedFormat
    }
}

/// Largest EXIF (TIFF) block accepted from any container. A JPEG APP1 is at most 64 KiB anyway;
/// HEIC/AVIF/PNG Exif blocks larger than this are refused as malformed.
let maxExifBytes = 192 * 1024

enum JPEGReader {
    static let maxSegments = 128

    /// Walks the JPEG marker segments from SOI up to SOS/EOI and returns the TIFF bytes of the
    /// first `Exif\0\0` APP1 segment, or nil. Reads 4 bytes per segment header plus the APP1 body;
    /// every other segment is skipped by offset arithmetic, never read.
    static func exifTIFF(_ source: ByteSource) throws(ReadFailure) -> [UInt8]? {
        var pos: UInt64 = 2
        var steps = 0
        while true {
            steps += 1
            guard steps <= maxSegments else {
                throw .malformed("more than \(maxSegments) JPEG segments before the image data")
            }
            guard pos + 4 <= source.size else {
                // Ran out of file before SOS: truncated, no image data; nothing found.
                throw .malformed("truncated JPEG: segment header at offset \(pos) outside the file")
            }
            let h = try source.read(at: pos, count: 4, "JPEG segment header")
            guard h[0] == 0xFF else { throw .malformed("JPEG marker expected at offset \(pos)") }
            let marker = h[1]
            switch marker {
            case 0xFF:
                pos += 1  // fill byte
                continue
            case 0xDA, 0xD9:  // SOS, EOI: no more metadata segments
                return nil
            case 0x01, 0xD0...0xD8:  // standalone markers
                pos += 2
                continue
            default:
                break
            }
            let length = Int(h.be16(2))
            guard length >= 2 else { throw .malformed("JPEG segment length \(length) at offset \(pos)") }
            if marker == 0xE1, length >= 2 + 6 + 8 {
                let sig = try source.read(at: pos + 4, count: 6, "JPEG APP1 segment")
                if sig == [0x45, 0x78, 0x69, 0x66, 0x00, 0x00] {
                    return try source.read(at: pos + 10, count: length - 8, "JPEG APP1 Exif segment")
                }
            }
            pos += 2 + UInt64(length)
        }
    }
}

enum PNGReader {
    static let maxChunks = 512

    /// Walks PNG chunks (8-byte headers only) until IDAT/IEND and returns the eXIf payload, or nil.
    /// An eXIf chunk after IDAT is not looked for (it would mean walking every IDAT chunk header).
    static func exifTIFF(_ source: ByteSource) throws(ReadFailure) -> [UInt8]? {
        var pos: UInt64 = 8
        for _ in 0..<maxChunks {
            guard pos + 8 <= source.size else {
                throw .malformed("truncated PNG: chunk header at offset \(pos) outside the file")
            }
            let h = try source.read(at: pos, count: 8, "PNG chunk header")
            let length = UInt64(h.be32(0))
            let type = h.fourCC(4)
            guard length <= 0x7FFF_FFFF else { throw .malformed("PNG chunk \(type) length \(length)") }
            if type == "IDAT" || type == "IEND" { return nil }
            guard pos + 12 + length <= source.size else {
                throw .malformed("PNG chunk \(type) of \(length) bytes extends outside the file")
            }
            if type == "eXIf" {
                guard length <= UInt64(maxExifBytes) else {
                    throw .malformed("eXIf chunk of \(length) bytes exceeds the cap of \(maxExifBytes)")
                }
                var payload = try source.read(at: pos + 8, count: Int(length), "PNG eXIf chunk")
                if payload.starts(with: [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]) { payload.removeFirst(6) }
                return payload
            }
            pos += 12 + length
        }
        throw .malformed("more than \(maxChunks) PNG chunks before the image data")
    }
}
