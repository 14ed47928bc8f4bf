import Foundation

/// One pass of `JSONScanner.readPlainValue` over the bytes buffered now. Its state is this
/// struct's, changed by its own mutating methods: a local `var` captured by nested functions
/// that call each other is boxed and every access to it checked for exclusivity at run time —
/// about 40 % of reading a Records.json file in release builds — while a struct's own
/// properties are checked when compiled.
struct JSONPlainValue {
    /// The bytes buffered now.
    let p: UnsafeBufferPointer<UInt8>
    /// The line the first byte is on.
    let startLine: Int
    /// The next byte to read, and the newlines before it.
    private(set) var i = 0
    private(set) var newlines = 0
    /// The last string read, when it had no escapes: its bytes in `p` (else decoded in `text`).
    private var plain: Range<Int>?
    /// The last string read when it had escapes (the scanner's scratch buffer, lent).
    var text: [UInt8]

    init(_ p: UnsafeBufferPointer<UInt8>, startLine: Int, text: [UInt8]) {
        self.p = p
        self.startLine = startLine
        self.text = text
    }

    /// One value at `depth`: built when `build` (else checked, and `.null` stands for it); nil
    /// to decline. `keeping`, when given, names the members of an object that are built.
    mutating func value(keeping: [String]?, depth: Int, build: Bool) -> JSONValue? {
        whitespace()
        guard i < p.count, depth <= JSONScanner.maxPlainDepth else { return nil }
        let line = startLine + newlines
        switch p[i] {
        case UInt8(ascii: "{"):
            i += 1
            var members: [(key: String, value: JSONValue)] = []
            if build { members.reserveCapacity(keeping?.count ?? 4) }
            guard var closed = opened(close: UInt8(ascii: "}")) else { return nil }
            while !closed {
                guard key() else { return nil }
                let key = !build ? nil : keeping.map { keys in keys.first { isKept($0) } } ?? made()
                guard colon() else { return nil }
                guard let member = value(keeping: nil, depth: depth + 1, build: key != nil) else { return nil }
                if let key { members.append((key, member)) }
                guard let next = separated(close: UInt8(ascii: "}")) else { return nil }
                closed = next
            }
            return build ? .object(members, line: line) : .null(line: line)
        case UInt8(ascii: "["):
            i += 1
            var elements: [JSONValue] = []
            guard var closed = opened(close: UInt8(ascii: "]")) else { return nil }
            while !closed {
                guard let element = value(keeping: nil, depth: depth + 1, build: build) else { return nil }
                if build { elements.append(element) }
                guard let next = separated(close: UInt8(ascii: "]")) else { return nil }
                closed = next
            }
            return build ? .array(elements, line: line) : .null(line: line)
        case UInt8(ascii: "\""):
            i += 1
            guard string() else { return nil }
            return .string(build ? made() : "", line: line)
        default:
            let start = i
            let stops = JSONScanner.wordStops.table
            while i < p.count, !stops[Int(p[i])] { i += 1 }
            // A word running to the end of the buffer may go on in the next one.
            guard i < p.count, i > start, i - start <= 1024 else { return nil }
            let word = UnsafeBufferPointer(rebasing: p[start..<i])
            if p[start] >= UInt8(ascii: "a") {  // a number starts with a digit or a sign
                if word.elementsEqual(JSONScanner.trueBytes) { return .bool(true, line: line) }
                if word.elementsEqual(JSONScanner.falseBytes) { return .bool(false, line: line) }
                if word.elementsEqual(JSONScanner.nullBytes) { return .null(line: line) }
            }
            guard let number = TextValues.number(buffer: word) else { return nil }
            return .number(number, line: line)
        }
    }

    /// A flat record at depth 0 (see `JSONScanner.readFlatRecord`): its kept members in `record`,
    /// the rest checked as `value(keeping:depth:build:)` checks them; false to decline.
    mutating func flatRecord(into record: inout FlatRecord) -> Bool {
        whitespace()
        guard i < p.count, p[i] == UInt8(ascii: "{") else { return false }
        record.line = startLine + newlines
        record.clear()
        i += 1
        guard var closed = opened(close: UInt8(ascii: "}")) else { return false }
        while !closed {
            guard key(), let plainKey = plain else { return false }  // a key with escapes: left to the full reading
            let kept = record.kept(UnsafeBufferPointer(rebasing: p[plainKey]))
            guard colon() else { return false }
            if let kept {
                whitespace()
                guard i < p.count else { return false }
                let line = startLine + newlines
                switch p[i] {
                case UInt8(ascii: "\""):
                    i += 1
                    guard string(), let plain else { return false }  // escapes: left to the full reading
                    record.values[kept] = .string(plain, line: line)
                case UInt8(ascii: "{"), UInt8(ascii: "["): return false
                default:
                    switch value(keeping: nil, depth: 1, build: true) {
                    case let .number(number, _): record.values[kept] = .number(number, line: line)
                    case .null: record.values[kept] = .null(line: line)
                    default: return false
                    }
                }
            } else {
                guard value(keeping: nil, depth: 1, build: false) != nil else { return false }
            }
            guard let next = separated(close: UInt8(ascii: "}")) else { return false }
            closed = next
        }
        return true
    }

    private mutating func whitespace() {
        while i < p.count {
            let b = p[i]
            if b == 0x0A { newlines += 1 } else if b != 0x20, b != 0x09, b != 0x0D { return }
            i += 1
        }
    }

    /// A member's key (consumed, in `plain` or `text` as `string()` leaves it); false to decline.
    private mutating func key() -> Bool {
        whitespace()
        guard i < p.count, p[i] == UInt8(ascii: "\"") else { return false }
        i += 1
        return string()
    }

    /// The `:` after a member's key (consumed); false to decline.
    private mutating func colon() -> Bool {
        whitespace()
        guard i < p.count, p[i] == UInt8(ascii: ":") else { return false }
        i += 1
        return true
    }

    /// After `{` or `[`: true when `close` follows at once (consumed), false when an item does;
    /// nil at the end of the buffer.
    private mutating func opened(close: UInt8) -> Bool? {
        whitespace()
        guard i < p.count else { return nil }
        guard p[i] == close else { return false }
        i += 1
        return true
    }

    /// After an item: true when `close` ended the container, false after a `,`; nil to decline.
    private mutating func separated(close: UInt8) -> Bool? {
        whitespace()
        guard i < p.count else { return nil }
        if p[i] == UInt8(ascii: ",") {
            i += 1
            return false
        }
        guard p[i] == close else { return nil }
        i += 1
        return true
    }

    /// After the opening quote: the string up to its closing quote (consumed), in `plain` or
    /// `text`; false at a control character, an escape not read here, or the end of the buffer.
    private mutating func string() -> Bool {
        let n = p.count
        var start = i
        while i < n, p[i] != UInt8(ascii: "\\"), p[i] != UInt8(ascii: "\""), p[i] >= 0x20 { i += 1 }
        if i < n, p[i] == UInt8(ascii: "\"") {
            plain = start..<i
            i += 1
            return true
        }
        plain = nil
        text.removeAll(keepingCapacity: true)
        while i < n {
            while i < n, p[i] != UInt8(ascii: "\\"), p[i] != UInt8(ascii: "\""), p[i] >= 0x20 { i += 1 }
            text.append(contentsOf: UnsafeBufferPointer(rebasing: p[start..<i]))
            guard i < n else { return false }
            switch p[i] {
            case UInt8(ascii: "\""):
                i += 1
                return true
            case UInt8(ascii: "\\"):
                guard i + 1 < n else { return false }
                let escaped = p[i + 1]
                i += 2
                if let byte = JSONScanner.simpleEscape(escaped) {
                    text.append(byte)
                } else {
                    guard escaped == UInt8(ascii: "u"), let value = hex4() else { return false }
                    appendUTF8(value)
                }
            default: return false  // a control character: an error `readValue` names
            }
            start = i
        }
        return false
    }

    /// After `\u`: four hex digits (consumed) outside the surrogates, which are `readValue`'s
    /// to read; nil to decline.
    private mutating func hex4() -> UInt32? {
        guard i + 4 <= p.count else { return nil }
        var value: UInt32 = 0
        for k in i..<(i + 4) {
            let b = p[k]
            let digit: UInt8
            switch b {
            case 0x30...0x39: digit = b - 0x30
            case 0x41...0x46: digit = b - 0x41 + 10
            case 0x61...0x66: digit = b - 0x61 + 10
            default: return nil
            }
            value = value * 16 + UInt32(digit)
        }
        guard !(0xD800..<0xE000).contains(value) else { return nil }
        i += 4
        return value
    }

    /// A scalar below U+10000 (no surrogate) as UTF-8 in `text`.
    private mutating func appendUTF8(_ value: UInt32) {
        if value < 0x80 {
            text.append(UInt8(value))
        } else if value < 0x800 {
            text.append(0xC0 | UInt8(value >> 6))
            text.append(0x80 | UInt8(value & 0x3F))
        } else {
            text.append(0xE0 | UInt8(value >> 12))
            text.append(0x80 | UInt8((value >> 6) & 0x3F))
            text.append(0x80 | UInt8(value & 0x3F))
        }
    }

    private func isKept(_ key: String) -> Bool {
        // Lengths first: most keys are told apart without comparing a byte.
        if let plain { return Self.same(key, UnsafeBufferPointer(rebasing: p[plain])) }
        return text.withUnsafeBufferPointer { Self.same(key, $0) }
    }

    private func made() -> String {
        if let plain { return String(decoding: UnsafeBufferPointer(rebasing: p[plain]), as: UTF8.self) }
        return String(decoding: text, as: UTF8.self)
    }

    /// Whether `key`'s UTF-8 is `bytes`: lengths first (most keys are told apart without
    /// comparing a byte), then one `memcmp` of a native string's bytes in place.
    private static func same(_ key: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard key.utf8.count == bytes.count else { return false }
        return key.utf8.withContiguousStorageIfAvailable { own in
            own.isEmpty || memcmp(own.baseAddress!, bytes.baseAddress!, own.count) == 0
        } ?? key.utf8.elementsEqual(bytes)
    }
}

/// A record of a location history as `JSONScanner.readFlatRecord` reads it: the value of each
/// kept member, by the member's place in the keys asked for. Strings are ranges of the bytes
/// buffered while the record is looked at; its storage is reused from record to record.
package struct FlatRecord {
    /// A kept member's value.
    package enum Value {
        case absent
        case null(line: Int)
        case number(Double, line: Int)
        /// A string without escapes: where its bytes lie in `bytes`.
        case string(Range<Int>, line: Int)
    }

    /// Per kept key, in the order asked for (read through the subscript).
    var values: [Value]
    /// The line of the record's `{`.
    package internal(set) var line = 0
    /// The buffered bytes strings point into (read through `text`); valid only while the record
    /// is looked at.
    var bytes = UnsafeBufferPointer<UInt8>(start: nil, count: 0)

    /// The UTF-8 of the keys kept, in the order asked for.
    private let keys: [[UInt8]]

    /// A record keeping the members named `keys`.
    package init(keeping keys: [String]) {
        self.keys = keys.map { Array($0.utf8) }
        values = Array(repeating: .absent, count: keys.count)
    }

    /// The place of the kept key spelt `name`, if it is one.
    @inline(__always)
    func kept(_ name: UnsafeBufferPointer<UInt8>) -> Int? {
        keys.firstIndex { key in key.count == name.count && key.first == name.first && key.elementsEqual(name) }
    }

    /// The value of the kept key at `index`.
    package subscript(index: Int) -> Value { values[index] }

    /// The bytes of a string `Value`.
    package func text(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[range]) }

    mutating func clear() {
        for k in values.indices { values[k] = .absent }
    }
}
