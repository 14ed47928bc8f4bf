import CExif

/// The preview a camera keeps in a photo's EXIF (IFD1: a small JPEG, about 160×120), read from
/// the metadata bytes only — nothing of the picture itself is read or decoded — and only from a
/// regular file reached without a symbolic link.
public enum PhotoThumbnail {
    /// Largest preview handed out (a JPEG APP1 segment holds at most 64 KiB in all).
    static let maxBytes = 64 * 1024

    /// The JPEG preview of the photo at `path`; nil when it has none, or cannot be read.
    public static func read(path: String) -> [UInt8]? {
        guard let source = try? ByteSource(path: path, followingLinks: false) else { return nil }
        return read(source)
    }

    /// The JPEG preview of a photo held in memory (fuzzing, tests).
    package static func read(bytes: [UInt8]) -> [UInt8]? { read(ByteSource(bytes: bytes)) }

    private static func read(_ source: ByteSource) -> [UInt8]? {
        let found: [UInt8]?
        do {
            switch try PhotoContainer.sniff(source) {
            case .jpeg: found = try JPEGReader.exifTIFF(source)
            case .png: found = try PNGReader.exifTIFF(source)
            case .isobmff: found = try ISOBMFFReader.exifTIFF(source)
            }
            guard let found, found.count <= maxExifBytes else { return nil }
            _ = try TIFFValidator.validate(found)
        } catch {
            return nil
        }
        guard let tiff = found, let preview = ExifDecoder.thumbnail(tiff: tiff), preview.count <= maxBytes,
            preview.starts(with: [0xFF, 0xD8, 0xFF])
        else { return nil }
        return preview
    }
}

extension ExifDecoder {
    /// The thumbnail libexif finds in a TIFF/EXIF block (IFD1's JPEGInterchangeFormat), copied.
    static func thumbnail(tiff: [UInt8]) -> [UInt8]? {
        loaded(tiff) { data -> [UInt8]? in
            guard let bytes = data.pointee.data, data.pointee.size > 0 else { return nil }
            return Array(UnsafeBufferPointer(start: bytes, count: Int(data.pointee.size)))
        } ?? nil
    }
}
