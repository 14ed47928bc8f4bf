import Foundation
import RoquaBoundaries
import RoquaIO

/// The batch's fast path for one NDJSON row or one GeoJSON feature: walks the record's bytes in
/// place, allocating nothing, and finds the coordinate (and a feature's properties) when the
/// record is plain. It accepts only what `JSONScanner` accepts and answers what the full parse
/// would: whenever it meets anything it does not handle exactly as that parse (an escape in a
/// key or a value it compares, a rare escape, a key it looks for holding something else than a
/// number, deep nesting, broken JSON) it gives up with nil and the caller takes the full parse,
/// which also words the errors.
struct JSONRecordScan {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var i = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Nesting the fast path follows; deeper records take the full parse (limit 512).
    private static let maxDepth = 64
    /// `JSONScanner` reads a bare word of at most 1024 bytes.
    private static let maxWord = 1024

    // MARK: Records

    /// The latitude and longitude of an NDJSON row (`lat`/`latitude`, `lon`/`lng`/`longitude`,
    /// numbers or numeric strings; the last of a repeated key), or nil to take the full parse.
    static func ndjson(_ line: UnsafeBufferPointer<UInt8>) -> (latitude: Double, longitude: Double)? {
        var scan = JSONRecordScan(line)
        // Per name, its (last) value.
        var found: [Double?] = [nil, nil, nil, nil, nil]
        let walked = scan.object(depth: 0) { scan, key in
            guard let slot = Self.coordinateKeys.firstIndex(where: { scan.equals(key, $0) }) else { return scan.skipValue(depth: 1) }
            found[slot] = scan.number(orString: true)
            return found[slot] != nil
        }
        guard walked, scan.atEnd(), let latitude = found[0] ?? found[1], let longitude = found[2] ?? found[3] ?? found[4] else {
            return nil
        }
        return (latitude, longitude)
    }

    /// The names `ndjson` looks for, in the order `BatchRowParser` prefers them.
    private static let coordinateKeys: [[UInt8]] = ["lat", "latitude", "lon", "lng", "longitude"].map { Array($0.utf8) }

    /// What the fast path found in a GeoJSON feature.
    struct Feature {
        var longitude: Double
        var latitude: Double
        /// Where the `properties` object is in the bytes when it is written exactly as
        /// `JSONValue.jsonText` would write it back (nil: no properties, null, or not an object).
        var properties: Range<Int>?
        /// The properties object is not written that way: the caller reads it with the full parse.
        var propertiesNeedParse: Range<Int>?
    }

    /// A feature whose `geometry` is a Point with numeric coordinates, or nil to take the full
    /// parse (which also words why a feature has no point).
    static func feature(_ bytes: UnsafeBufferPointer<UInt8>) -> Feature? {
        var scan = JSONRecordScan(bytes)
        var point: (Double, Double)?
        var properties: (Range<Int>, canonical: Bool)?
        let walked = scan.object(depth: 0) { scan, key in
            if scan.equals(key, Self.geometryKey) {
                point = scan.point()
                return point != nil
            }
            guard scan.equals(key, Self.propertiesKey) else { return scan.skipValue(depth: 1) }
            _ = scan.whitespace()
            let start = scan.i
            if scan.peek == UInt8(ascii: "{") {
                var canonical = true
                guard scan.skipValue(depth: 1, canonical: &canonical) else { return false }
                properties = (start..<scan.i, canonical)
            } else {
                guard scan.skipValue(depth: 1) else { return false }
                properties = nil  // null or not an object: nothing is kept
            }
            return true
        }
        guard walked, scan.atEnd(), let (longitude, latitude) = point else { return nil }
        var feature = Feature(longitude: longitude, latitude: latitude)
        if let (range, canonical) = properties {
            if canonical { feature.properties = range } else { feature.propertiesNeedParse = range }
        }
        return feature
    }

    private static let geometryKey = Array("geometry".utf8), propertiesKey = Array("properties".utf8)
    private static let typeKey = Array("type".utf8), coordinatesKey = Array("coordinates".utf8), pointWord = Array("Point".utf8)

    /// A geometry object with `type` "Point" and `coordinates` whose first two elements are
    /// numbers: (longitude, latitude).
    private mutating func point() -> (Double, Double)? {
        var isPoint = false
        var position: (Double, Double)?
        let walked = object(depth: 1) { scan, key in
            if scan.equals(key, Self.typeKey) {
                guard scan.whitespace() == UInt8(ascii: "\""), let text = scan.plainString() else { return false }
                isPoint = scan.equals(text, Self.pointWord)
                return true
            }
            guard scan.equals(key, Self.coordinatesKey) else { return scan.skipValue(depth: 2) }
            position = scan.position()
            return position != nil
        }
        guard walked, isPoint else { return nil }
        return position
    }

    /// An array of at least two elements, the first two bare numbers: their values.
    private mutating func position() -> (Double, Double)? {
        guard whitespace() == UInt8(ascii: "[") else { return nil }
        i += 1
        var first: Double?, second: Double?
        var count = 0
        while true {
            if whitespace() == UInt8(ascii: "]"), count == 0 {
                i += 1
                break
            }
            if count < 2 {
                guard let number = number(orString: false) else { return nil }
                if count == 0 { first = number } else { second = number }
            } else {
                guard skipValue(depth: 3) else { return nil }
            }
            count += 1
            let next = whitespace()
            i += 1
            if next == UInt8(ascii: "]") { break }
            guard next == UInt8(ascii: ",") else { return nil }
        }
        guard let first, let second else { return nil }
        return (first, second)
    }

    // MARK: Tokens

    private var peek: UInt8? { i < bytes.count ? bytes[i] : nil }

    /// Skips JSON whitespace; the next byte, not consumed.
    @inline(__always)
    private mutating func whitespace() -> UInt8? {
        while i < bytes.count {
            let b = bytes[i]
            guard b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 else { return b }
            i += 1
        }
        return nil
    }

    private mutating func atEnd() -> Bool { whitespace() == nil }

    /// Walks an object's members: `member` gets the key's bytes (without quotes) and must
    /// consume the value. False for anything `JSONScanner` would refuse or that the fast path
    /// does not follow.
    private mutating func object(depth: Int, _ member: (inout JSONRecordScan, Range<Int>) -> Bool) -> Bool {
        guard depth < Self.maxDepth, whitespace() == UInt8(ascii: "{") else { return false }
        i += 1
        if whitespace() == UInt8(ascii: "}") {
            i += 1
            return true
        }
        while true {
            guard whitespace() == UInt8(ascii: "\""), let key = plainString(), whitespace() == UInt8(ascii: ":") else { return false }
            i += 1
            var canonical = true
            guard member(&self, key), let closed = afterMember(UInt8(ascii: "}"), &canonical) else { return false }
            if closed { return true }
        }
    }

    /// At a quote: the string's bytes without the quotes, consumed, and whether it holds
    /// escapes. Nil for a control character, no closing quote, or an escape the fast path does
    /// not check exactly as `JSONScanner` (only `\" \\ \/ \b \f \n \r \t` and `\uXXXX` outside
    /// the surrogates are taken).
    private mutating func string() -> (Range<Int>, escaped: Bool)? {
        let start = i + 1
        var j = start
        var escaped = false
        while j < bytes.count {
            let b = bytes[j]
            if b == UInt8(ascii: "\"") {
                i = j + 1
                return (start..<j, escaped)
            }
            if b < 0x20 { return nil }
            if b == UInt8(ascii: "\\") {
                guard j + 1 < bytes.count else { return nil }
                escaped = true
                switch bytes[j + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    j += 2
                case UInt8(ascii: "u"):
                    guard j + 5 < bytes.count else { return nil }
                    var value: UInt32 = 0
                    for k in (j + 2)...(j + 5) {
                        guard let digit = Character(Unicode.Scalar(bytes[k])).hexDigitValue else { return nil }
                        value = value * 16 + UInt32(digit)
                    }
                    guard !(0xD800..<0xE000).contains(value) else { return nil }
                    j += 6
                default:
                    return nil
                }
                continue
            }
            j += 1
        }
        return nil
    }

    /// At a quote: a string without escapes (a key or word to compare), consumed.
    private mutating func plainString() -> Range<Int>? {
        guard let (range, escaped) = string(), !escaped else { return nil }
        return range
    }

    /// A bare word (up to a delimiter, as `JSONScanner` reads it), consumed.
    private mutating func word() -> Range<Int>? {
        let start = i
        let stops = JSONScanner.wordStops.table
        while i < bytes.count, !stops[Int(bytes[i])] { i += 1 }
        guard i > start, i - start <= Self.maxWord else { return nil }
        return start..<i
    }

    /// A value that is a number, or (when asked) a string holding one, as `TextValues.number`
    /// reads it (a string's text trimmed first); nil for anything else.
    private mutating func number(orString: Bool) -> Double? {
        switch whitespace() {
        case UInt8(ascii: "\""):
            guard orString, let text = plainString() else { return nil }
            return value(text)
        case UInt8(ascii: "{"), UInt8(ascii: "["), nil: return nil
        default:
            return word().flatMap(value)
        }
    }

    private func value(_ range: Range<Int>) -> Double? {
        BatchRowParser.number(UnsafeBufferPointer(rebasing: bytes[range]))
    }

    private func equals(_ range: Range<Int>, _ name: [UInt8]) -> Bool {
        guard range.count == name.count else { return false }
        for k in 0..<name.count where bytes[range.lowerBound + k] != name[k] { return false }
        return true
    }

    // MARK: Skipping

    /// Skips one value, checking it as `JSONScanner` would.
    private mutating func skipValue(depth: Int) -> Bool {
        var canonical = true
        return skipValue(depth: depth, canonical: &canonical)
    }

    /// As `skipValue(depth:)`; `canonical` is cleared unless the value is written exactly as
    /// `JSONValue.jsonText` writes it back: no whitespace, strings of valid UTF-8 without
    /// escapes, numbers in the form it gives them.
    private mutating func skipValue(depth: Int, canonical: inout Bool) -> Bool {
        guard depth < Self.maxDepth else { return false }
        switch whitespace(noting: &canonical) {
        case nil:
            return false
        case UInt8(ascii: "{"):
            i += 1
            if whitespace(noting: &canonical) == UInt8(ascii: "}") {
                i += 1
                return true
            }
            while true {
                guard whitespace(noting: &canonical) == UInt8(ascii: "\""), let (key, escaped) = string() else { return false }
                if canonical, escaped || !Self.isValidUTF8(bytes[key]) { canonical = false }
                guard whitespace(noting: &canonical) == UInt8(ascii: ":") else { return false }
                i += 1
                guard skipValue(depth: depth + 1, canonical: &canonical), let closed = afterMember(UInt8(ascii: "}"), &canonical) else {
                    return false
                }
                if closed { return true }
            }
        case UInt8(ascii: "["):
            i += 1
            if whitespace(noting: &canonical) == UInt8(ascii: "]") {
                i += 1
                return true
            }
            while true {
                guard skipValue(depth: depth + 1, canonical: &canonical), let closed = afterMember(UInt8(ascii: "]"), &canonical) else {
                    return false
                }
                if closed { return true }
            }
        case UInt8(ascii: "\""):
            guard let (text, escaped) = string() else { return false }
            if canonical, escaped || !Self.isValidUTF8(bytes[text]) { canonical = false }
            return true
        default:
            guard let range = word() else { return false }
            if Self.literals.contains(where: { equals(range, $0) }) { return true }
            guard let number = value(range) else { return false }
            if canonical, !Self.isShortest(UnsafeBufferPointer(rebasing: bytes[range]), number) { canonical = false }
            return true
        }
    }

    /// After a member or element, consumes what follows: true for `close`, false for a comma,
    /// nil for anything else.
    private mutating func afterMember(_ close: UInt8, _ canonical: inout Bool) -> Bool? {
        let next = whitespace(noting: &canonical)
        i += 1
        if next == close { return true }
        return next == UInt8(ascii: ",") ? false : nil
    }

    /// `whitespace()`, clearing `canonical` when there was any.
    @inline(__always)
    private mutating func whitespace(noting canonical: inout Bool) -> UInt8? {
        let before = i
        let next = whitespace()
        if i != before { canonical = false }
        return next
    }

    private static let literals = ["true", "false", "null"].map { Array($0.utf8) }

    private static func isValidUTF8(_ slice: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        for b in slice where b >= 0x80 {
            return String(validating: UnsafeBufferPointer(rebasing: slice), as: UTF8.self) != nil
        }
        return true
    }

    /// Whether `word` is how `JSONValue.jsonText` writes `value`: an integer below 10¹⁵ as its
    /// digits (no sign on zero, no leading zero), anything else as Swift's shortest form.
    private static func isShortest(_ word: UnsafeBufferPointer<UInt8>, _ value: Double) -> Bool {
        if value == value.rounded(), abs(value) < 1e15 {
            var digits = word[...]
            if digits.first == UInt8(ascii: "-") {
                guard value != 0 else { return false }
                digits = digits.dropFirst()
            }
            guard let first = digits.first, first != UInt8(ascii: "0") || digits.count == 1 else { return false }
            return digits.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
        }
        var text = "\(value)"
        return text.withUTF8 { $0.elementsEqual(word) }
    }
}
