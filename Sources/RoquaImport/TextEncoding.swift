import Foundation
import RoquaBoundaries

/// The DBF text encodings Roqua decodes, chosen from a `.cpg` file or the DBF's LDID byte.
package enum DBFTextEncoding: String, Sendable {
    case utf8 = "UTF-8"
    case windows1254 = "windows-1254"
    case iso8859_9 = "ISO-8859-9"
    case windows1252 = "windows-1252"
    case iso8859_1 = "ISO-8859-1"

    /// `codePage` is what shapelib reports: the `.cpg` text, `LDID/<n>`, or nil when neither exists.
    package init?(codePage: String?) {
        guard let raw = codePage?.trimmingCharacters(in: .whitespacesAndNewlines), !raw.isEmpty else {
            self = .utf8  // modern writers (GDAL, QGIS) default to UTF-8 without saying so
            return
        }
        let key = raw.uppercased().replacingOccurrences(of: " ", with: "").replacingOccurrences(of: "_", with: "-")
        switch key {
        case "UTF-8", "UTF8", "65001", "LDID/0": self = .utf8
        case "1254", "CP1254", "WINDOWS-1254", "ANSI1254", "LDID/202": self = .windows1254
        case "ISO-8859-9", "ISO8859-9", "88599", "8859-9", "LATIN5": self = .iso8859_9
        case "1252", "CP1252", "WINDOWS-1252", "ANSI1252", "LDID/3", "LDID/87": self = .windows1252
        case "ISO-8859-1", "ISO8859-1", "88591", "8859-1", "LATIN1": self = .iso8859_1
        default: return nil
        }
    }

    /// Decodes raw field bytes; nil when they are not valid in this encoding.
    package func decode(_ bytes: [UInt8]) -> String? {
        switch self {
        case .utf8:
            return String(validating: bytes, as: UTF8.self)
        case .iso8859_1:
            return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        case .iso8859_9:
            return String(String.UnicodeScalarView(bytes.map { Self.latin5Scalar($0) }))
        case .windows1252, .windows1254:
            var scalars = String.UnicodeScalarView()
            for byte in bytes {
                guard let scalar = windowsScalar(byte) else { return nil }
                scalars.append(scalar)
            }
            return String(scalars)
        }
    }

    /// ISO-8859-9 is Latin-1 with six Turkish letters in place of Icelandic ones.
    private static func latin5Scalar(_ byte: UInt8) -> Unicode.Scalar {
        let turkish: [UInt8: UInt32] = [0xD0: 0x011E, 0xDD: 0x0130, 0xDE: 0x015E, 0xF0: 0x011F, 0xFD: 0x0131, 0xFE: 0x015F]
        return Unicode.Scalar(turkish[byte] ?? UInt32(byte))!
    }

    private func windowsScalar(_ byte: UInt8) -> Unicode.Scalar? {
        if byte < 0x80 { return Unicode.Scalar(byte) }
        if byte < 0xA0 {
            if self == .windows1254, byte == 0x8E || byte == 0x9E { return nil }
            let code = Self.windows80to9F[Int(byte - 0x80)]
            return code == 0 ? nil : Unicode.Scalar(code)
        }
        return self == .windows1254 ? Self.latin5Scalar(byte) : Unicode.Scalar(byte)
    }

    /// 0x80–0x9F of windows-1252; windows-1254 is the same there but leaves 0x8E and 0x9E undefined.
    private static let windows80to9F: [UInt32] = [
        0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
        0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
    ]
}
