import CExif

/// EXIF values needed for a fix, as decoded by libexif (raw, not yet interpreted).
struct ExifValues {
    typealias Rational = (num: UInt32, den: UInt32)

    var latitudeRef: String?
    var latitude: [Rational]?
    var longitudeRef: String?
    var longitude: [Rational]?
    var altitudeRef: UInt8?
    var altitude: Rational?
    var gpsTime: [Rational]?
    var gpsDate: String?
    var horizontalError: Rational?
    /// (date-time, sub-seconds, offset) for DateTimeOriginal, DateTimeDigitized, DateTime, in that order.
    var localTimes: [(dateTime: String?, subSeconds: String?, offset: String?)] = []
}

/// Thin wrapper over libexif: TIFF bytes in, the handful of values we use out.
enum ExifDecoder {
    static let exifHeader: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]
    /// libexif clamps its input to 0xFFFE bytes (a JPEG APP1's maximum), "Exif\0\0" included:
    /// TIFF structures past this are silently dropped by it.
    static let libexifWindow = 0xFFFE - 6

    /// Decodes with libexif when everything needed lies inside its window (every JPEG, nearly
    /// every HEIC/AVIF/PNG); otherwise reads the few values straight from the validated layout.
    static func decode(tiff: [UInt8], layout: TIFFValidator.Layout) -> ExifValues {
        layout.end <= libexifWindow ? decode(tiff: tiff) : decodeDirect(tiff: tiff, layout: layout)
    }

    /// The fallback for blocks beyond libexif's window: values at offsets already bounds-checked
    /// by `TIFFValidator`.
    static func decodeDirect(tiff b: [UInt8], layout: TIFFValidator.Layout) -> ExifValues {
        let little = layout.littleEndian
        func u32(_ i: Int) -> UInt32 {
            little
                ? UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
                : b.be32(i)
        }
        func ascii(_ ifd: String, _ tag: UInt16) -> String? {
            guard let e = layout.entries[ifd]?[tag], [1, 2, 7].contains(e.type) else { return nil }
            let bytes = b[e.at..<e.at + min(Int(e.count), 64)].prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
        func rationals(_ tag: UInt16) -> [ExifValues.Rational]? {
            guard let e = layout.entries["GPS"]?[tag], e.type == 5 || e.type == 10, e.count > 0 else { return nil }
            var out: [ExifValues.Rational] = []
            for i in 0..<min(Int(e.count), 8) {
                let num = u32(e.at + 8 * i), den = u32(e.at + 8 * i + 4)
                if e.type == 10, Int32(bitPattern: num) < 0 || Int32(bitPattern: den) < 0 { return nil }
                out.append((num, den))
            }
            return out
        }
        var v = ExifValues()
        v.latitudeRef = ascii("GPS", 0x0001)
        v.latitude = rationals(0x0002)
        v.longitudeRef = ascii("GPS", 0x0003)
        v.longitude = rationals(0x0004)
        if let e = layout.entries["GPS"]?[0x0005] {
            v.altitudeRef = e.type == 3 ? (little ? b[e.at] : b[e.at + 1]) : b[e.at]
        }
        v.altitude = rationals(0x0006)?.first
        v.gpsTime = rationals(0x0007)
        v.gpsDate = ascii("GPS", 0x001D)
        v.horizontalError = rationals(0x001F)?.first
        v.localTimes = [
            (ascii("Exif", 0x9003), ascii("Exif", 0x9291), ascii("Exif", 0x9011)),
            (ascii("Exif", 0x9004), ascii("Exif", 0x9292), ascii("Exif", 0x9012)),
            (ascii("IFD0", 0x0132), ascii("Exif", 0x9290), ascii("Exif", 0x9010)),
        ]
        return v
    }

    /// Decodes a TIFF/EXIF block (without the "Exif\0\0" prefix). The block should have passed
    /// `TIFFValidator.validate` first; libexif itself also guards against loops and bad offsets.
    static func decode(tiff: [UInt8]) -> ExifValues {
        loaded(tiff) { data in values(of: data) } ?? ExifValues()
    }

    /// `body` on the block as libexif loads it: read-only, no "fixing" (which would invent
    /// mandatory tags), unknown tags kept, maker notes left alone; nil when libexif cannot start.
    static func loaded<T>(_ tiff: [UInt8], _ body: (UnsafeMutablePointer<ExifData>) -> T) -> T? {
        guard let data = exif_data_new() else { return nil }
        defer { exif_data_unref(data) }
        exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        exif_data_unset_option(data, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS)
        exif_data_set_option(data, EXIF_DATA_OPTION_DONT_CHANGE_MAKER_NOTE)
        let block = exifHeader + tiff
        block.withUnsafeBufferPointer { buf in
            exif_data_load_data(data, buf.baseAddress, UInt32(buf.count))
        }
        return body(data)
    }

    private static func values(of data: UnsafeMutablePointer<ExifData>) -> ExifValues {
        var values = ExifValues()
        let order = exif_data_get_byte_order(data)
        let gps = Int32(EXIF_IFD_GPS.rawValue)
        let exif = Int32(EXIF_IFD_EXIF.rawValue)
        let ifd0 = Int32(EXIF_IFD_0.rawValue)

        values.latitudeRef = ascii(data, gps, 0x0001)
        values.latitude = rationals(data, gps, 0x0002, order)
        values.longitudeRef = ascii(data, gps, 0x0003)
        values.longitude = rationals(data, gps, 0x0004, order)
        values.altitudeRef = byte(data, gps, 0x0005, order)
        values.altitude = rationals(data, gps, 0x0006, order)?.first
        values.gpsTime = rationals(data, gps, 0x0007, order)
        values.gpsDate = ascii(data, gps, 0x001D)
        values.horizontalError = rationals(data, gps, 0x001F, order)?.first
        values.localTimes = [
            (ascii(data, exif, 0x9003), ascii(data, exif, 0x9291), ascii(data, exif, 0x9011)),
            (ascii(data, exif, 0x9004), ascii(data, exif, 0x9292), ascii(data, exif, 0x9012)),
            (ascii(data, ifd0, 0x0132), ascii(data, exif, 0x9290), ascii(data, exif, 0x9010)),
        ]
        return values
    }

    private static func entry(
        _ data: UnsafeMutablePointer<ExifData>, _ ifd: Int32, _ tag: UInt32
    )
        -> (format: ExifFormat, components: Int, bytes: UnsafeBufferPointer<UInt8>)?
    {
        guard let e = roqua_exif_entry(data, ifd, tag), let p = e.pointee.data else { return nil }
        return (e.pointee.format, Int(e.pointee.components), UnsafeBufferPointer(start: p, count: Int(e.pointee.size)))
    }

    static func ascii(_ data: UnsafeMutablePointer<ExifData>, _ ifd: Int32, _ tag: UInt32) -> String? {
        guard let (format, _, bytes) = entry(data, ifd, tag),
            format == EXIF_FORMAT_ASCII || format == EXIF_FORMAT_UNDEFINED || format == EXIF_FORMAT_BYTE
        else { return nil }
        let text = bytes.prefix(64).prefix { $0 != 0 }
        return String(decoding: text, as: UTF8.self)
    }

    static func rationals(
        _ data: UnsafeMutablePointer<ExifData>, _ ifd: Int32, _ tag: UInt32, _ order: ExifByteOrder
    )
        -> [ExifValues.Rational]?
    {
        guard let (format, components, bytes) = entry(data, ifd, tag) else { return nil }
        let signed = format == EXIF_FORMAT_SRATIONAL
        guard format == EXIF_FORMAT_RATIONAL || signed else { return nil }
        var out: [ExifValues.Rational] = []
        for i in 0..<min(components, 8) where (i + 1) * 8 <= bytes.count {
            let p = bytes.baseAddress! + i * 8
            if signed {
                let r = exif_get_srational(p, order)
                guard r.numerator >= 0, r.denominator >= 0 else { return nil }
                out.append((UInt32(r.numerator), UInt32(r.denominator)))
            } else {
                let r = exif_get_rational(p, order)
                out.append((r.numerator, r.denominator))
            }
        }
        return out.isEmpty ? nil : out
    }

    static func byte(_ data: UnsafeMutablePointer<ExifData>, _ ifd: Int32, _ tag: UInt32, _ order: ExifByteOrder) -> UInt8? {
        guard let (format, _, bytes) = entry(data, ifd, tag), !bytes.isEmpty else { return nil }
        if format == EXIF_FORMAT_SHORT, bytes.count >= 2 {
            return UInt8(truncatingIfNeeded: exif_get_short(bytes.baseAddress!, order))
        }
        return bytes[0]
    }
}
