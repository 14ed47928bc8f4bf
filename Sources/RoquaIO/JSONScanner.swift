import Foundation

/// A JSON value with the line it started on, so errors found after parsing can still name one.
/// (Not `indirect`: objects and arrays hold their members in arrays, already on the heap, so a
/// number or a string costs no box of its own.)
package enum JSONValue {
    /// Members in file order: records have a handful of keys, so a linear search beats hashing.
    case object([(key: String, value: JSONValue)], line: Int)
    case array([JSONValue], line: Int)
    case string(String, line: Int)
    case number(Double, line: Int)
    case bool(Bool, line: Int)
    case null(line: Int)

    package var line: Int {
        switch self {
        case let .object(_, line), let .array(_, line), let .string(_, line), let .number(_, line), let .bool(_, line): line
        case let .null(line): line
        }
    }

    /// The member named `key` (the last one, if repeated), or nil.
    package subscript(key: String) -> JSONValue? {
        guard case let .object(members, _) = self else { return nil }
        return members.last(where: { $0.key == key })?.value
    }

    package var string: String? { if case let .string(s, _) = self { s } else { nil } }
    package var number: Double? { if case let .number(n, _) = self { n } else { nil } }
    package var array: [JSONValue]? { if case let .array(a, _) = self { a } else { nil } }
    package var isNull: Bool { if case .null = self { true } else { false } }

    /// A short name for messages ("a string", "an object").
    package var kind: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        }
    }
}

/// A pull JSON tokenizer over a `ByteStream`. Readers walk the outer structure with
/// `nextKey` / `nextElement` (nothing is kept), skip what they do not need with `skipValue`
/// (nothing is kept either), and build a `JSONValue` only for one record at a time, so memory
/// is bounded by the largest record, not the file.
package final class JSONScanner {
    package let stream: ByteStream
    /// Open containers: whether each is an object, and whether a member has been read yet.
    private var containers: [(isObject: Bool, first: Bool)] = []
    private var scratch: [UInt8] = []
    /// Where the value being built by `readValue` began, to cap one record's size.
    private var recordStart = 0

    package init(stream: ByteStream) {
        self.stream = stream
    }

    package func error(_ message: String, line: Int? = nil) -> InputError { stream.error(message, line: line) }

    /// The first non-whitespace byte, not consumed (nil at the end of the file).
    package func peekToken() throws(InputError) -> UInt8? {
        try stream.skipWhitespace()
    }

    /// The line of the next token (whitespace before it skipped).
    package func tokenLine() throws(InputError) -> Int {
        _ = try peekToken()
        return stream.line
    }

    /// Starts the size count for a record walked piece by piece rather than by `readValue`.
    package func beginRecord() {
        recordStart = stream.offset
    }

    /// Consumes `{`: the start of an object walked with `nextKey`.
    package func beginObject(_ what: @autoclosure () -> String) throws(InputError) {
        guard try peekToken() == UInt8(ascii: "{") else { throw error("expected \(what()) (a JSON object) here") }
        stream.advance()
        containers.append((true, true))
    }

    /// Consumes `[`: the start of an array walked with `nextElement`.
    package func beginArray(_ what: @autoclosure () -> String) throws(InputError) {
        guard try peekToken() == UInt8(ascii: "[") else { throw error("expected \(what()) (a JSON array) here") }
        stream.advance()
        containers.append((false, true))
    }

    /// The next member's key (its `:` consumed, the value left to read or skip), or nil when the
    /// object walked by `beginObject` has ended.
    package func nextKey() throws(InputError) -> String? {
        guard try nextKeyBytes() else { return nil }
        return String(decoding: scratch, as: UTF8.self)
    }

    /// As `nextKey`, the key left decoded in `scratch` (no string made: a reader compares it
    /// with the keys it keeps first).
    private func nextKeyBytes() throws(InputError) -> Bool {
        guard try nextMember(close: UInt8(ascii: "}")) else { return false }
        guard let quote = try peekToken() else { throw error("file ends inside a JSON object: truncated file?") }
        guard quote == UInt8(ascii: "\"") else { throw error("expected a string key in an object") }
        try readString(making: false)
        guard try peekToken() == UInt8(ascii: ":") else {
            throw error("expected ':' after key \"\(String(decoding: scratch, as: UTF8.self))\"")
        }
        stream.advance()
        return true
    }

    /// True when the array walked by `beginArray` has another element (left to read or skip).
    package func nextElement() throws(InputError) -> Bool {
        try nextMember(close: UInt8(ascii: "]"))
    }

    private func nextMember(close: UInt8) throws(InputError) -> Bool {
        guard let top = containers.last else { throw error("internal: no open JSON container") }
        let byte = try peekToken()
        if byte == close {
            stream.advance()
            containers.removeLast()
            return false
        }
        if !top.first {
            guard byte == UInt8(ascii: ",") else {
                if byte == nil { throw error("file ends inside a JSON \(top.isObject ? "object" : "array"): truncated file?") }
                throw error("expected ',' or '\(Character(Unicode.Scalar(close)))' in JSON \(top.isObject ? "object" : "array")")
            }
            stream.advance()
        } else if byte == nil {
            throw error("file ends inside a JSON \(top.isObject ? "object" : "array"): truncated file?")
        }
        containers[containers.count - 1].first = false
        return true
    }

    /// After the top-level value: only whitespace may follow.
    package func expectEnd() throws(InputError) {
        if try peekToken() != nil { throw error("unexpected content after the end of the JSON document") }
    }

    // MARK: - Values

    /// Reads one value. For objects, `keeping` (when given) limits the members kept at this
    /// level; the rest are skipped without being built.
    package func readValue(keeping: [String]? = nil, depth: Int = 0) throws(InputError) -> JSONValue {
        guard depth < InputLimits.maxDepth else { throw error("JSON nested too deeply") }
        let line = try tokenLine()
        if depth == 0 { recordStart = stream.offset }
        guard stream.offset - recordStart <= InputLimits.maxRecordBytes else {
            throw error("one JSON record is larger than \(InputLimits.maxRecordBytes >> 20) MiB")
        }
        switch try peekToken() {
        case UInt8(ascii: "{"):
            stream.advance()
            containers.append((true, true))
            var members: [(key: String, value: JSONValue)] = []
            members.reserveCapacity(keeping?.count ?? 4)
            while try nextKeyBytes() {
                let key: String
                if let keeping {
                    // The kept key's own string: no string is made per member read.
                    guard let kept = keeping.first(where: { $0.utf8.elementsEqual(scratch) }) else { try skipValue(); continue }
                    key = kept
                } else {
                    key = String(decoding: scratch, as: UTF8.self)
                }
                members.append((key, try readValue(depth: depth + 1)))
            }
            return .object(members, line: line)
        case UInt8(ascii: "["):
            stream.advance()
            containers.append((false, true))
            var elements: [JSONValue] = []
            while try nextElement() { elements.append(try readValue(depth: depth + 1)) }
            return .array(elements, line: line)
        case UInt8(ascii: "\""):
            return .string(try readString(), line: line)
        case nil:
            throw error("file ends where a JSON value was expected: truncated file?")
        default:
            try readBareWord()
            if scratch == Self.trueBytes { return .bool(true, line: line) }
            if scratch == Self.falseBytes { return .bool(false, line: line) }
            if scratch == Self.nullBytes { return .null(line: line) }
            guard let number = TextValues.number(bytes: scratch[...]) else { throw invalidWord() }
            return .number(number, line: line)
        }
    }

    /// The next value as `readValue(keeping:)` reads it, when it is an object of plain members
    /// (strings without escapes, numbers, `true`, `false`, `null`) lying whole in the bytes
    /// buffered now: read in one pass over those bytes, with no token-by-token calls. Nil, with
    /// nothing consumed, for anything else: the caller then reads it with `readValue`, which
    /// also names what is wrong with it. (Most records of a location history are such objects.)
    package func readFlatObject(keeping: [String]) -> JSONValue? {
        let startLine = stream.line
        return stream.takeBuffered { p -> (used: Int, newlines: Int, value: JSONValue)? in
            let n = p.count
            var i = 0, newlines = 0
            func whitespace() {
                while i < n {
                    let b = p[i]
                    if b == 0x0A { newlines += 1 } else if b != 0x20, b != 0x09, b != 0x0D { return }
                    i += 1
                }
            }
            /// A string's bytes up to its closing quote (consumed); nil at an escape, a control
            /// character or the end of the buffer.
            func plainString() -> Range<Int>? {
                i += 1
                let start = i
                while i < n {
                    let b = p[i]
                    if b == UInt8(ascii: "\"") { i += 1; return start..<(i - 1) }
                    if b == UInt8(ascii: "\\") || b < 0x20 { return nil }
                    i += 1
                }
                return nil
            }
            whitespace()
            guard i < n, p[i] == UInt8(ascii: "{") else { return nil }
            let objectLine = startLine + newlines
            i += 1
            var members: [(key: String, value: JSONValue)] = []
            members.reserveCapacity(keeping.count)
            whitespace()
            if i < n, p[i] == UInt8(ascii: "}") { return (i + 1, newlines, .object(members, line: objectLine)) }
            while true {
                whitespace()
                guard i < n, p[i] == UInt8(ascii: "\""), let keyRange = plainString() else { return nil }
                let key = UnsafeBufferPointer(rebasing: p[keyRange])
                whitespace()
                guard i < n, p[i] == UInt8(ascii: ":") else { return nil }
                i += 1
                whitespace()
                guard i < n else { return nil }
                let line = startLine + newlines
                let kept = keeping.first { $0.utf8.elementsEqual(key) }
                let value: JSONValue
                switch p[i] {
                case UInt8(ascii: "\""):
                    guard let range = plainString() else { return nil }
                    value = .string(kept == nil ? "" : String(decoding: UnsafeBufferPointer(rebasing: p[range]), as: UTF8.self), line: line)
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    return nil
                default:
                    let start = i
                    let stops = Self.wordStops.table
                    while i < n, !stops[Int(p[i])] { i += 1 }
                    // A word running to the end of the buffer may go on in the next one.
                    guard i < n, i > start, i - start <= 1024 else { return nil }
                    scratch.removeAll(keepingCapacity: true)
                    scratch.append(contentsOf: UnsafeBufferPointer(rebasing: p[start..<i]))
                    if scratch == Self.trueBytes { value = .bool(true, line: line) }
                    else if scratch == Self.falseBytes { value = .bool(false, line: line) }
                    else if scratch == Self.nullBytes { value = .null(line: line) }
                    else if let number = TextValues.number(bytes: scratch[...]) { value = .number(number, line: line) }
                    else { return nil }
                }
                if let kept { members.append((kept, value)) }
                whitespace()
                guard i < n else { return nil }
                if p[i] == UInt8(ascii: ",") { i += 1; continue }
                guard p[i] == UInt8(ascii: "}") else { return nil }
                return (i + 1, newlines, .object(members, line: objectLine))
            }
        }
    }

    /// Skips one value of any size, keeping nothing but the stack of open brackets (so a
    /// mismatched bracket in skipped data is still caught).
    package func skipValue() throws(InputError) {
        var closers: [UInt8] = []
        repeat {
            guard let byte = try peekToken() else { throw error("file ends inside a JSON value: truncated file?") }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                stream.advance()
                closers.append(byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]"))
                guard closers.count < InputLimits.maxDepth else { throw error("JSON nested too deeply") }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard let expected = closers.last else { throw error("unexpected '\(Character(Unicode.Scalar(byte)))'") }
                guard byte == expected else {
                    throw error("mismatched '\(Character(Unicode.Scalar(byte)))' (expected '\(Character(Unicode.Scalar(expected)))')")
                }
                stream.advance()
                closers.removeLast()
            case UInt8(ascii: ","), UInt8(ascii: ":"):
                guard !closers.isEmpty else { throw error("unexpected '\(Character(Unicode.Scalar(byte)))'") }
                stream.advance()
            case UInt8(ascii: "\""):
                try readString(keep: false)
            default:
                try readBareWord()
                guard scratch == Self.trueBytes || scratch == Self.falseBytes || scratch == Self.nullBytes
                    || TextValues.number(bytes: scratch[...]) != nil else { throw invalidWord() }
            }
        } while !closers.isEmpty
    }

    /// Appends the bytes of the next value as they are in the file (whitespace before it
    /// skipped) to `output` and consumes them, so that another thread can parse it with a
    /// `JSONScanner` of its own, in one pass over the stream's buffer. Only the value's extent
    /// is found here: brackets are matched and strings skipped (control characters in them,
    /// truncation, depth and size are checked); the words, escapes and separators inside are
    /// checked by that later parse.
    /// - Throws: `InputError` for a truncated value, a mismatched bracket, a control character
    ///   inside a string, nesting over `InputLimits.maxDepth` or a value over `limit` bytes.
    package func captureValue(into output: inout [UInt8], limit: Int = InputLimits.maxRecordBytes) throws(InputError) {
        guard let first = try peekToken() else { throw error("file ends where a JSON value was expected: truncated file?") }
        if first == UInt8(ascii: "}") || first == UInt8(ascii: "]") || first == UInt8(ascii: ",") || first == UInt8(ascii: ":") {
            throw error("unexpected '\(Character(Unicode.Scalar(first)))' where a JSON value was expected")
        }
        let start = output.count
        let isWord = first != UInt8(ascii: "{") && first != UInt8(ascii: "[") && first != UInt8(ascii: "\"")
        var closers: [UInt8] = []
        var inString = false, escaped = false
        var stringLine = 0
        let stream = stream
        let ended = try stream.consume { (chunk) throws(InputError) -> (count: Int, newlines: Int, done: Bool) in
            var k = 0, newlines = 0
            var done = false
            scanning: while k < chunk.count {
                let b = chunk[k]
                if b == 0x0A { newlines += 1 }
                if inString {
                    if escaped {
                        escaped = false
                    } else if b == UInt8(ascii: "\"") {
                        inString = false
                        if closers.isEmpty { k += 1; done = true; break scanning }
                    } else if b == UInt8(ascii: "\\") {
                        escaped = true
                    } else if b < 0x20 {
                        throw stream.error("control character inside a string (unterminated string?)", line: stringLine)
                    }
                } else if isWord {
                    if Self.wordStops.table[Int(b)] {
                        if b == 0x0A { newlines -= 1 }  // not consumed
                        done = true
                        break scanning
                    }
                } else {
                    switch b {
                    case UInt8(ascii: "{"), UInt8(ascii: "["):
                        closers.append(b == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]"))
                        guard closers.count < InputLimits.maxDepth else {
                            throw stream.error("JSON nested too deeply", line: stream.line + newlines)
                        }
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        guard let expected = closers.last, b == expected else {
                            let expected = closers.last ?? b
                            throw stream.error("mismatched '\(Character(Unicode.Scalar(b)))' (expected '\(Character(Unicode.Scalar(expected)))')",
                                               line: stream.line + newlines)
                        }
                        closers.removeLast()
                        if closers.isEmpty { k += 1; done = true; break scanning }
                    case UInt8(ascii: "\""):
                        inString = true
                        stringLine = stream.line + newlines
                    default:
                        break
                    }
                }
                k += 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[..<k]))
            guard output.count - start <= limit else { throw stream.error("one JSON record is larger than \(Self.size(limit))") }
            return (k, newlines, done)
        }
        if !ended {
            guard isWord, !inString else {
                if inString { throw error("file ends inside a string begun on line \(stringLine): truncated file?") }
                throw error("file ends inside a JSON value: truncated file?")
            }
        }
    }

    private static func size(_ bytes: Int) -> String { bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : "\(bytes) bytes" }

    /// A quoted string with escapes decoded (`keep: false` only checks and skips it).
    @discardableResult
    package func readString(keep: Bool = true) throws(InputError) -> String {
        try readString(making: keep, keep: keep)
    }

    /// The string's bytes, decoded, left in `scratch` (`keep`), and made a `String` (`making`).
    @discardableResult
    private func readString(making: Bool, keep: Bool = true) throws(InputError) -> String {
        let startLine = stream.line
        stream.advance() // the opening quote
        scratch.removeAll(keepingCapacity: true)
        while true {
            if keep {
                try stream.collect(until: Self.stringStops, into: &scratch)
            } else {
                try stream.skip(until: Self.stringStops)
            }
            guard let byte = try stream.next() else { throw error("file ends inside a string begun on line \(startLine): truncated file?") }
            switch byte {
            case UInt8(ascii: "\""):
                return making ? String(decoding: scratch, as: UTF8.self) : ""
            case UInt8(ascii: "\\"):
                guard let escaped = try stream.next() else { throw error("file ends inside a string: truncated file?") }
                guard keep else { continue }
                switch escaped {
                case UInt8(ascii: "n"): scratch.append(0x0A)
                case UInt8(ascii: "t"): scratch.append(0x09)
                case UInt8(ascii: "r"): scratch.append(0x0D)
                case UInt8(ascii: "b"): scratch.append(0x08)
                case UInt8(ascii: "f"): scratch.append(0x0C)
                case UInt8(ascii: "u"): try readUnicodeEscape()
                default: scratch.append(escaped) // \" \\ \/
                }
            case 0..<0x20:
                throw error("control character inside a string (unterminated string?)", line: startLine)
            default:
                break // not a stop byte: cannot happen
            }
            guard scratch.count <= InputLimits.maxRecordBytes else { throw error("string too long", line: startLine) }
        }
    }

    /// After `\u`: four hex digits, joined with a following `\uDCxx` when a surrogate pair; a
    /// lone surrogate becomes U+FFFD (a high one followed by another escape that is no low
    /// surrogate keeps that escape as its own character).
    private func readUnicodeEscape() throws(InputError) {
        func hex4() throws(InputError) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let b = try stream.next(), let digit = Character(Unicode.Scalar(b)).hexDigitValue else {
                    throw error("bad \\u escape in a string")
                }
                value = value * 16 + UInt32(digit)
            }
            return value
        }
        var value = try hex4()
        if (0xD800..<0xDC00).contains(value), try stream.peek() == UInt8(ascii: "\\") {
            stream.advance()
            guard try stream.next() == UInt8(ascii: "u") else { throw error("bad surrogate pair in a string") }
            let low = try hex4()
            if (0xDC00..<0xE000).contains(low) {
                value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
            } else {
                appendScalar(0xFFFD)
                value = low
            }
        }
        appendScalar(value)
    }

    private func appendScalar(_ value: UInt32) {
        let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
        scratch.append(contentsOf: Array(String(Character(scalar)).utf8))
    }

    /// A number, `true`, `false` or `null`: bytes up to a delimiter, left in `scratch`.
    private func readBareWord() throws(InputError) {
        scratch.removeAll(keepingCapacity: true)
        try stream.collect(until: Self.wordStops, into: &scratch, limit: 1024)
        guard !scratch.isEmpty else {
            if let b = try stream.peek() { throw error("unexpected '\(Character(Unicode.Scalar(b)))' where a JSON value was expected") }
            throw error("file ends where a JSON value was expected: truncated file?")
        }
    }

    private func invalidWord() -> InputError {
        error("invalid JSON value \"\(String(decoding: scratch.prefix(64), as: UTF8.self))\"")
    }

    private static let trueBytes = Array("true".utf8), falseBytes = Array("false".utf8), nullBytes = Array("null".utf8)
    /// Where a string's plain run ends: the closing quote, an escape, or a control character.
    private static let stringStops = ByteSet([UInt8(ascii: "\""), UInt8(ascii: "\\")] + Array(0..<0x20))
    /// Where a bare word ends (also at quotes and brackets, so `1"x"` is not one word).
    package static let wordStops = ByteSet(Array(",}]:{[\" \n\r\t".utf8))

}
