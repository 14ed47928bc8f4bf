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

    /// An object's key and its colon, after a comma unless it is the object's first: for keys
    /// spelled in code, which need no escape.
    @inline(__always)
    package mutating func key(_ key: StaticString, first: Bool = false) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        raw("\":")
    }

    /// A key that is data (Nominatim names an address's parts by country), escaped, and its colon.
    package mutating func key(text key: String, first: Bool = false) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        string(key)
        bytes.append(UInt8(ascii: ":"))
    }

    /// A number's text as `JSONNumber` holds it.
    package mutating func raw(number text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// `text` as a JSON string: `"` and `\` escaped, `\n`, `\r`, `\t` by name and every other
    /// control character as `\u00XX`; everything else (`/`, non-ASCII) as it is, in UTF-8.
    package mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            bytes.append(UInt8(ascii: "\""))
            // Nearly every name needs no escape: one scan of its bytes and one copy.
            if !Self.needsEscape(utf8) {
                bytes.append(contentsOf: utf8)
            } else {
                for byte in utf8 { escaped(byte) }
            }
            bytes.append(UInt8(ascii: "\""))
        }
    }

    /// Whether a byte of `utf8` is `"`, `\` or a control character, read eight bytes at a time
    /// (a byte-by-byte scan of every key and name was a seventh of an answer's time).
    static func needsEscape(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = UnsafeRawPointer(utf8.baseAddress) else { return false }
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var offset = 0
        while offset + 8 <= utf8.count {
            let word = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            // Bytes below 0x20, and bytes equal to `"` or `\` (zero after the XOR): the usual
            // "has a byte less than n" test, exact about whether there is one.
            let control = (word &- 0x20 &* ones) & ~word & highs
            let quote = word ^ (0x22 &* ones), backslash = word ^ (0x5C &* ones)
            let equal = ((quote &- ones) & ~quote | (backslash &- ones) & ~backslash) & highs
            if control | equal != 0 { return true }
            offset += 8
        }
        while offset < utf8.count {
            let byte = utf8[offset]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { return true }
            offset += 1
        }
        return false
    }

    private mutating func escaped(_ byte: UInt8) {
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

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// An integer in decimal.
    package mutating func number(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        number(value.magnitude)
    }

    /// An integer in decimal, its digits straight into the buffer (no `String` per number).
    package mutating func number(_ value: UInt64) {
        var rest = value
        let start = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        bytes[start...].reverse()
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
