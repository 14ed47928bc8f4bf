/// JSON text appended to one byte buffer: the primitives `OrderedJSONEncoder` writes with, kept
/// apart so that the escaping and number rules are said once (`JSONText.quote` uses them too).
package struct JSONWriter {
    /// The UTF-8 text written so far.
    package var bytes: [UInt8] = []

    package init(capacity: Int = 512) {
        bytes.reserveCapacity(capacity)
    }

    /// Text that is already JSON (punctuation, a number's digits).
    @inline(__always)
    package mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    @inline(__always)
    package mutating func raw(_ byte: UInt8) {
        bytes.append(byte)
    }

    /// A number's text as `JSONNumber` holds it.
    package mutating func raw(number text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// `text` as a JSON string: `"` and `\` escaped, `\n`, `\r`, `\t` by name and every other
    /// control character as `\u00XX`; everything else (`/`, non-ASCII) as it is, in UTF-8.
    package mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        // Nearly every name needs no escape: one scan of its bytes and one copy.
        if !text.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }) {
            bytes.append(contentsOf: text.utf8)
        } else {
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "\""): raw("\\\"")
                case UInt8(ascii: "\\"): raw("\\\\")
                case UInt8(ascii: "\n"): raw("\\n")
                case UInt8(ascii: "\r"): raw("\\r")
                case UInt8(ascii: "\t"): raw("\\t")
                case ..<0x20:
                    raw("\\u00")
                    bytes.append(Self.hexDigits[Int(byte >> 4)])
                    bytes.append(Self.hexDigits[Int(byte & 0x0F)])
                default: bytes.append(byte)
                }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// An integer in decimal.
    package mutating func number(_ value: some BinaryInteger) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// A floating-point number as Swift prints it (`40.0`, `0.1`, `1e-05`): the shortest text
    /// that reads back as the same value.
    /// - Throws: `EncodingError.invalidValue` for infinity and NaN, which JSON cannot say.
    package mutating func number(_ value: Double) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "\(value) is not a JSON number"))
        }
        bytes.append(contentsOf: value.description.utf8)
    }

    package mutating func bool(_ value: Bool) {
        value ? raw("true") : raw("false")
    }

    package mutating func null() {
        raw("null")
    }

    /// The text as a `String`.
    package var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// A number whose JSON text the caller chose (a coordinate with seven decimals, as Nominatim
/// prints them): `OrderedJSONEncoder` writes the text as it is; another encoder gets the value.
package struct JSONNumber: Encodable, Sendable, Equatable {
    /// The number's text.
    package let text: String

    /// `text` must be a JSON number (`-12.50`, `3`, `1e-05`), as a number formatter writes it
    /// (debug builds check that it reads as one).
    package init(text: String) {
        assert(Double(text) != nil && text.first != "+", "not a JSON number: \(text)")
        self.text = text
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Double(text) ?? 0)
    }
}
