import Foundation

/// JSON string literals, written by hand on hot output paths (one answer per input row).
package enum JSONText {
    package static func quote(_ text: String) -> String {
        // Nearly every name needs no escape: one scan of its bytes and one copy, instead of a
        // character-by-character rebuild (this was a third of `/reverse`'s formatting time).
        if !text.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }) {
            var out = "\""
            out.reserveCapacity(text.utf8.count + 2)
            out += text
            out += "\""
            return out
        }
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let s where s.value < 0x20: out += String(format: "\\u%04x", s.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// Text and attribute values escaped for XML (SVG maps, the profile card, GPX exports).
package enum XMLText {
    package static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }
}
