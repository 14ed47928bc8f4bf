import CExif
import CJPEG
import CLoaded
import CPNG
import Foundation

/// A photo's preview: the one a camera keeps in its EXIF (IFD1: a small JPEG, about 160×120),
/// read from the metadata bytes only, or, for a JPEG, HEIC, AVIF or PNG without one, a thumbnail
/// made from the picture (`make`); only from a regular file reached without a symbolic link.
/// Either is upright: a JPEG's or PNG's turned by its EXIF orientation, a HEIC's by its
/// container's rotation.
public enum PhotoThumbnail {
    /// Largest preview handed out (a JPEG APP1 segment holds at most 64 KiB in all).
    static let maxBytes = 64 * 1024
    /// Longest side of a thumbnail made from the picture, in pixels.
    public static let longestSide = 320
    /// Largest photo file decoded to make one (a camera's JPEG is a few to a few tens of MB).
    public static let maxDecodedBytes = 64 << 20

    /// Why no thumbnail could be made: libjpeg's reason, or the file's.
    public struct Undecodable: Error, CustomStringConvertible {
        public let description: String
    }

    /// The JPEG preview embedded in the photo at `path`; nil when it has none, or cannot be read.
    public static func read(path: String) -> [UInt8]? {
        guard let source = try? ByteSource(path: path, followingLinks: false) else { return nil }
        return read(source)
    }

    /// The JPEG preview of a photo held in memory (fuzzing, tests).
    package static func read(bytes: [UInt8]) -> [UInt8]? { read(ByteSource(bytes: bytes)) }

    /// A thumbnail of at most `longestSide` pixels a side made from the photo at `path`: a JPEG
    /// decoded at 1/2 to 1/8 of its size by libjpeg (a 12 MP photo costs tens of ms), a HEIC or
    /// AVIF from the thumbnail its container keeps (else its picture) by libheif, a PNG whole by
    /// libpng (up to 30 MP).
    /// - Throws: `Undecodable` for a file that is none of those, larger than `maxDecodedBytes`,
    ///   or that its library cannot decode.
    public static func make(path: String) throws -> [UInt8] {
        let source: ByteSource
        do {
            source = try ByteSource(path: path, budget: maxDecodedBytes, followingLinks: false)
        } catch {
            throw Undecodable(description: "\(error)")
        }
        guard source.size <= UInt64(maxDecodedBytes) else {
            throw Undecodable(
                description: "a file of \(source.size) bytes is larger than the \(maxDecodedBytes >> 20) MB decoded for a thumbnail")
        }
        let bytes: [UInt8]
        do {
            bytes = try source.read(at: 0, count: Int(source.size), "the picture")
        } catch {
            throw Undecodable(description: "\(error)")
        }
        return try make(bytes: bytes)
    }

    /// `make(path:)` of a photo held in memory (fuzzing, tests).
    package static func make(bytes: [UInt8]) throws -> [UInt8] {
        switch try? PhotoContainer.sniff(ByteSource(bytes: bytes)) {
        case .jpeg:
            return try thumbnail(ofJPEG: bytes, longest: longestSide, orientation: orientation(ByteSource(bytes: bytes)))
        case .isobmff:
            // libheif applies the container's rotation and mirroring; its EXIF orientation is not applied again.
            return try thumbnail(of: pixels(ofHEIF: bytes, atLeast: longestSide), longest: longestSide, orientation: 1)
        case .png:
            return try thumbnail(of: pixels(ofPNG: bytes), longest: longestSide, orientation: orientation(ByteSource(bytes: bytes)))
        case nil:
            throw Undecodable(description: "not a JPEG, HEIC, AVIF or PNG")
        }
    }

    /// The JPEG `jpeg` reduced to at most `longest` pixels a side and turned upright by the EXIF
    /// `orientation` (1–8).
    /// - Throws: `Undecodable` with libjpeg's reason.
    static func thumbnail(ofJPEG jpeg: [UInt8], longest: Int, orientation: Int) throws -> [UInt8] {
        try thumbnail(of: pixels(ofJPEG: jpeg, atLeast: longest), longest: longest, orientation: orientation)
    }

    /// `picture` reduced to at most `longest` pixels a side, turned upright by the EXIF
    /// `orientation` (1–8), as a JPEG.
    /// - Throws: `Undecodable` when out of memory or libjpeg fails.
    private static func thumbnail(of picture: (width: Int, height: Int, rgb: [UInt8]), longest: Int, orientation: Int) throws -> [UInt8] {
        var small: UnsafeMutablePointer<UInt8>?
        var (width, height) = (Int32(0), Int32(0))
        guard
            roqua_rgb_reduce(
                picture.rgb, Int32(picture.width), Int32(picture.height), Int32(longest), Int32(orientation), &small, &width, &height)
                == 0, let small
        else { throw Undecodable(description: "out of memory") }
        defer { free(small) }
        var out: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        var message = [CChar](repeating: 0, count: Int(JMSG_LENGTH_MAX))
        defer { free(out) }
        guard roqua_jpeg_encode(small, width, height, 80, &out, &size, &message) == 0, let out else {
            throw Undecodable(description: Self.text(message))
        }
        return Array(UnsafeBufferPointer(start: out, count: Int(size)))
    }

    /// The picture of JPEG `jpeg` as RGB rows, decoded at the smallest of its full size, a half,
    /// a quarter or an eighth that keeps both sides at least `atLeast` pixels (0: full size).
    /// - Throws: `Undecodable` with libjpeg's reason.
    package static func pixels(ofJPEG jpeg: [UInt8], atLeast: Int = 0) throws -> (width: Int, height: Int, rgb: [UInt8]) {
        try decoded(messageLength: Int(JMSG_LENGTH_MAX)) { rgb, width, height, message in
            jpeg.withUnsafeBufferPointer {
                roqua_jpeg_decode($0.baseAddress, UInt($0.count), Int32(atLeast), rgb, width, height, message)
            }
        }
    }

    /// The picture of PNG `png` as RGB rows, transparency composed onto white.
    /// - Throws: `Undecodable` with libpng's reason.
    package static func pixels(ofPNG png: [UInt8]) throws -> (width: Int, height: Int, rgb: [UInt8]) {
        try decoded(messageLength: Int(ROQUA_PNG_MESSAGE_LENGTH)) { rgb, width, height, message in
            png.withUnsafeBufferPointer { roqua_png_decode($0.baseAddress, UInt($0.count), rgb, width, height, message) }
        }
    }

    /// The picture of HEIF/AVIF `data` as RGB rows, upright: the smallest thumbnail its container
    /// keeps of at least `atLeast` pixels a side, else its largest, else its picture.
    /// - Throws: `Undecodable` with libheif's reason.
    package static func pixels(ofHEIF data: [UInt8], atLeast: Int) throws -> (width: Int, height: Int, rgb: [UInt8]) {
        guard case .success(var heif) = heifLibrary else {
            if case .failure(let error) = heifLibrary { throw error }
            throw Undecodable(description: "libheif cannot be loaded")
        }
        return try decoded(messageLength: 256) { rgb, width, height, message in
            data.withUnsafeBufferPointer {
                roqua_heif_decode(&heif, $0.baseAddress, UInt($0.count), Int32(atLeast), rgb, width, height, message)
            }
        }
    }

    /// libheif's functions, looked up when the first HEIC or AVIF preview is made (CLoaded's shim
    /// says why libheif is not linked), or why they cannot be.
    private static let heifLibrary: Result<RoquaHeif, Undecodable> = withUnsafeTemporaryAllocation(of: RoquaHeif.self, capacity: 1) {
        slot in
        guard let missing = roqua_heif_load(slot.baseAddress!).map({ String(cString: $0) }) else { return .success(slot[0]) }
        return .failure(
            Undecodable(
                description: missing.isEmpty
                    ? "the libheif library (libheif.so.1) is not installed: apt-get install libheif1"
                    : "the installed libheif has no \(missing) (libheif 1.13 or later is needed)"))
    }

    /// The RGB rows a C decoder allocated (`decode` is given where to put them, their size and
    /// a message of `messageLength` bytes, and returns 0 on success), copied and freed; else its
    /// message as the error.
    private static func decoded(
        messageLength: Int,
        _ decode: (
            UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Int32>,
            UnsafeMutablePointer<CChar>
        ) -> Int32
    ) throws -> (width: Int, height: Int, rgb: [UInt8]) {
        var rgb: UnsafeMutablePointer<UInt8>?
        var (width, height) = (Int32(0), Int32(0))
        var message = [CChar](repeating: 0, count: messageLength)
        let status = decode(&rgb, &width, &height, &message)
        defer { free(rgb) }
        guard status == 0, let rgb else { throw Undecodable(description: Self.text(message)) }
        return (Int(width), Int(height), Array(UnsafeBufferPointer(start: rgb, count: Int(width) * Int(height) * 3)))
    }

    private static func text(_ message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The EXIF orientation of the photo (1 when it has none).
    private static func orientation(_ source: ByteSource) -> Int {
        guard let tiff = try? exifTIFF(source) else { return 1 }
        return ExifDecoder.orientation(tiff: tiff)
    }

    /// The photo's TIFF/EXIF block, checked; nil when it has none.
    private static func exifTIFF(_ source: ByteSource) throws -> [UInt8]? {
        let found: [UInt8]?
        switch try PhotoContainer.sniff(source) {
        case .jpeg: found = try JPEGReader.exifTIFF(source)
        case .png: found = try PNGReader.exifTIFF(source)
        case .isobmff: found = try ISOBMFFReader.exifTIFF(source)
        }
        guard let found, found.count <= maxExifBytes else { return nil }
        _ = try TIFFValidator.validate(found)
        return found
    }

    private static func read(_ source: ByteSource) -> [UInt8]? {
        let found: [UInt8]?
        do {
            found = try exifTIFF(source)
        } catch {
            return nil
        }
        guard let tiff = found, let preview = ExifDecoder.thumbnail(tiff: tiff), preview.count <= maxBytes,
            preview.starts(with: [0xFF, 0xD8, 0xFF])
        else { return nil }
        // A camera stores its preview as it stores the picture: a photo taken upright on its
        // side (orientation 6 or 8) has a preview on its side too.
        let orientation = ExifDecoder.orientation(tiff: tiff)
        guard orientation != 1 else { return preview }
        return (try? thumbnail(ofJPEG: preview, longest: 4096, orientation: orientation)) ?? preview
    }
}

extension ExifDecoder {
    /// The picture's orientation (IFD0 tag 0x0112, 1–8), 1 when it has none or another value.
    static func orientation(tiff: [UInt8]) -> Int {
        let value = loaded(tiff) { data in byte(data, Int32(EXIF_IFD_0.rawValue), 0x0112, exif_data_get_byte_order(data)) } ?? nil
        return value.map { (1...8).contains($0) ? Int($0) : 1 } ?? 1
    }

    /// The thumbnail libexif finds in a TIFF/EXIF block (IFD1's JPEGInterchangeFormat), copied.
    static func thumbnail(tiff: [UInt8]) -> [UInt8]? {
        loaded(tiff) { data -> [UInt8]? in
            guard let bytes = data.pointee.data, data.pointee.size > 0 else { return nil }
            return Array(UnsafeBufferPointer(start: bytes, count: Int(data.pointee.size)))
        } ?? nil
    }
}
