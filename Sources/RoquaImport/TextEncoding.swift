import Foundation
import RoquaBoundaries

/// The text encoding of a DBF's fields, chosen from a `.cpg` file, else the DBF's language driver
/// id (LDID), else UTF-8 — or named by the user, which overrides both. The common ones are
/// decoded here; any other that glibc's iconv knows (Shift-JIS, GBK, Big5, the DOS and Windows
/// code pages, KOI8-R …) goes through iconv.
package enum DBFTextEncoding: Sendable, Equatable {
    case utf8
    case windows1254
    case iso8859_9
    case windows1252
    case iso8859_1
    /// Another encoding, by its iconv name (e.g. `CP932`).
    case iconv(String)

    /// The encoding's name, as errors and provenance show it.
    package var name: String {
        switch self {
        case .utf8: "UTF-8"
        case .windows1254: "windows-1254"
        case .iso8859_9: "ISO-8859-9"
        case .windows1252: "windows-1252"
        case .iso8859_1: "ISO-8859-1"
        case .iconv(let name): name
        }
    }

    /// `codePage` is what shapelib reports: the `.cpg` text, `LDID/<n>`, or nil when neither
    /// exists (then UTF-8, which modern writers — GDAL, QGIS — use without saying so). Nil for a
    /// code page nobody can decode here.
    package init?(codePage: String?) {
        guard let raw = codePage?.trimmingCharacters(in: .whitespacesAndNewlines), !raw.isEmpty else {
            self = .utf8
            return
        }
        let key = raw.uppercased().replacingOccurrences(of: " ", with: "").replacingOccurrences(of: "_", with: "-")
        if key.hasPrefix("LDID/") {
            guard let id = UInt8(key.dropFirst(5)), let page = Self.languageDrivers[id] else { return nil }
            self.init(name: page)
        } else {
            self.init(name: key)
        }
    }

    /// An encoding by name: a Windows or DOS code page number (`932`, `1251`), `CP932`,
    /// `windows-1251`, `ISO-8859-5`, `SHIFT_JIS`, `GBK`, `BIG5`, `KOI8-R` … anything iconv knows.
    /// Nil for a name nobody can decode here (and for UTF-16/32, which a DBF cannot hold).
    package init?(name: String) {
        let key = name.trimmingCharacters(in: .whitespacesAndNewlines).uppercased()
            .replacingOccurrences(of: " ", with: "").replacingOccurrences(of: "_", with: "-")
        switch key {
        case "UTF-8", "UTF8", "65001": self = .utf8
        case "1254", "CP1254", "WINDOWS-1254", "ANSI1254": self = .windows1254
        case "ISO-8859-9", "ISO8859-9", "88599", "8859-9", "LATIN5": self = .iso8859_9
        case "1252", "CP1252", "WINDOWS-1252", "ANSI1252": self = .windows1252
        case "ISO-8859-1", "ISO8859-1", "88591", "8859-1", "LATIN1": self = .iso8859_1
        default:
            guard !key.isEmpty, !key.hasPrefix("UTF-16"), !key.hasPrefix("UTF-32"), !key.hasPrefix("UCS") else { return nil }
            var iconvName = key
            if let number = Int(key) {
                iconvName = number == 10000 ? "MACINTOSH" : "CP\(number)"
            } else if key.hasPrefix("WINDOWS-"), let number = Int(key.dropFirst(8)) {
                iconvName = "CP\(number)"
            } else if key.hasPrefix("ANSI"), let number = Int(key.dropFirst(4)) {
                iconvName = "CP\(number)"
            }
            guard IconvDecoder.isAvailable(iconvName) else { return nil }
            self = .iconv(iconvName)
        }
    }

    /// The code page of each DBF language driver id (the byte at offset 29 of the header), as
    /// dBASE, FoxPro and ArcGIS assign them.
    static let languageDrivers: [UInt8: String] = [
        0x00: "UTF-8",
        0x01: "437", 0x02: "850", 0x03: "1252", 0x04: "10000", 0x08: "865", 0x09: "437", 0x0A: "850", 0x0B: "437",
        0x0D: "437", 0x0E: "850", 0x0F: "437", 0x10: "850", 0x11: "437", 0x12: "850", 0x13: "932", 0x14: "850",
        0x15: "437", 0x16: "850", 0x17: "865", 0x18: "437", 0x19: "437", 0x1A: "850", 0x1B: "437", 0x1C: "863",
        0x1D: "850", 0x1F: "852", 0x22: "852", 0x23: "852", 0x24: "860", 0x25: "850", 0x26: "866", 0x37: "850",
        0x40: "852", 0x4D: "936", 0x4E: "949", 0x4F: "950", 0x50: "874", 0x57: "1252", 0x58: "1252", 0x59: "1252",
        0x64: "852", 0x65: "866", 0x66: "865", 0x67: "861", 0x6A: "737", 0x6B: "857", 0x6C: "863", 0x78: "950",
        0x79: "949", 0x7A: "936", 0x7B: "932", 0x7C: "874", 0x7D: "1255", 0x7E: "1256", 0x86: "737", 0x87: "852",
        0x88: "857", 0xC8: "1250", 0xC9: "1251", 0xCA: "1254", 0xCB: "1253", 0xCC: "1257",
    ]

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
        case .iconv(let name):
            return IconvDecoder.decode(bytes, from: name)
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
