import Foundation
import RoquaIO

/// A query string parsed strictly: a malformed one (bad percent escape, invalid UTF-8, too long,
/// too many parameters) is a 400 with a JSON error, never a guess.
package struct QueryParameters: Sendable {
    package static let maxBytes = 4096
    package static let maxParameters = 64
    package private(set) var pairs: [(name: String, value: String)] = []

    /// - Throws: `BadRequest` naming what is wrong.
    package init(_ query: String?) throws(BadRequest) {
        guard let query, !query.isEmpty else { return }
        guard query.utf8.count <= Self.maxBytes else {
            throw BadRequest("the query string is longer than \(Self.maxBytes) bytes")
        }
        // Split on the bytes `&` and `=` (RFC 3986), not on characters: faster, and a combining
        // mark after a separator does not hide it.
        for bytes in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            guard pairs.count < Self.maxParameters else { throw BadRequest("more than \(Self.maxParameters) query parameters") }
            let part = Substring(bytes)
            let (rawName, rawValue) =
                part.utf8.firstIndex(of: UInt8(ascii: "=")).map { (part[..<$0], part[part.utf8.index(after: $0)...]) }
                ?? (part, "")
            let name = try Self.decode(rawName), value = try Self.decode(rawValue)
            guard !name.isEmpty else { throw BadRequest("a query parameter without a name") }
            pairs.append((name, value))
        }
    }

    /// These parameters and `other`'s, `other`'s value winning for a name in both.
    package func merging(_ other: QueryParameters) -> QueryParameters {
        var merged = other
        let names = Set(other.pairs.map(\.name))
        merged.pairs += pairs.filter { !names.contains($0.name) }
        return merged
    }

    /// The first value given for `name`.
    package subscript(name: String) -> String? { pairs.first { $0.name == name }?.value }

    /// `+` as space, `%XX` escapes; the result must be UTF-8 without control characters.
    package static func decode(_ text: Substring) throws(BadRequest) -> String {
        // Most values are plain printable ASCII: nothing to decode or check.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "%") && $0 != UInt8(ascii: "+") }) {
            return String(text)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(0x20)
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    throw BadRequest("malformed percent escape in the query string near \(Echo.quoted(text))")
                }
                bytes.append(high << 4 | low)
            default: bytes.append(byte)
            }
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw BadRequest("the query string is not valid UTF-8")
        }
        guard !decoded.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw BadRequest("control characters in the query string")
        }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
