import Foundation

/// JSON string literals for text still written by hand (`OrderedJSONEncoder` writes answers).
package enum JSONText {
    /// `text` as a JSON string, escaped as `JSONWriter.string` escapes it.
    package static func quote(_ text: String) -> String {
        var writer = JSONWriter(capacity: text.utf8.count + 2)
        writer.string(text)
        return writer.text
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
