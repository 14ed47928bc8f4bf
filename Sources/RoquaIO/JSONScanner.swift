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
    // The two buffers every token touches: not checked for overlapping access at run time (a
    // check per token was a tenth of reading a Records.json in release builds). Private to a
    // scanner that one thread uses, changed only by its own methods.
    /// Open containers: whether each is an object, and whether a member has been read yet.
    @exclusivity(unchecked) private var containers: [(isObject: Bool, first: Bool)] = []
    @exclusivity(unchecked) private var scratch: [UInt8] = []
    /// Whether `skipValue` passes plain runs of whole tokens in one pass (`skipPlainTokens`);
    /// off only to compare the two ways (tests, fuzzing).
    package var skipsPlainRuns = true
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
                    guard let kept = keeping.first(where: { $0.utf8.elementsEqual(scratch) }) else {
                        try skipValue()
                        continue
                    }
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

    /// The next value as `readValue(keeping:)` reads it — the same members, values and lines —
    /// when it lies whole in the bytes buffered now and is plain: strict JSON nested at most
    /// `maxPlainDepth` deep, its strings' escapes the simple ones and `\u` of characters outside
    /// the surrogates. Read in one pass over those bytes, with no token-by-token calls; members
    /// `keeping` leaves out (at the top level, as `readValue`) are checked and not built. Nil,
    /// with nothing consumed, for anything else: the caller then reads it with `readValue`, which
    /// also names what is wrong with it. (Nearly every record of a location history is such.)
    /// `accept` is asked before anything is consumed: false declines the value too (a reader
    /// that finds it wrong leaves it to `readValue` and its own error message).
    package func readPlainValue(keeping: [String]? = nil, accept: (JSONValue) -> Bool = { _ in true }) -> JSONValue? {
        let startLine = stream.line
        return stream.takeBuffered { p -> (used: Int, newlines: Int, value: JSONValue)? in
            // The scanner's buffer, lent to the pass and given back (a copy would share it and be
            // copied again on the first write).
            var pass = JSONPlainValue(p, startLine: startLine, text: [])
            swap(&pass.text, &scratch)
            defer { swap(&pass.text, &scratch) }
            guard let found = pass.value(keeping: keeping, depth: 0, build: true), accept(found) else { return nil }
            return (pass.i, pass.newlines, found)
        }
    }

    /// A record as `readValue(keeping:)` reads it: in one pass when it is plain (`readPlainValue`),
    /// token by token otherwise. The readers of location histories read each record so.
    package func readRecord(keeping: [String]) throws(InputError) -> JSONValue {
        if let plain = readPlainValue(keeping: keeping) { return plain }
        return try readValue(keeping: keeping)
    }

    /// The next value when it is a flat record, as most records of a location history are: an
    /// object lying whole in the bytes buffered now, plain as `readPlainValue` reads, whose keys
    /// have no escapes and whose members kept by `record` (the last one of a repeated key) are
    /// numbers, strings without escapes or null. Its
    /// other members are checked as `readValue` would check them, and not kept. `accept` sees it
    /// before anything is consumed. False, with nothing consumed, for any other value or when
    /// `accept` declines: the caller then reads it with `readRecord`, which also names what is
    /// wrong with it. No string or array is made per record.
    package func readFlatRecord(into record: inout FlatRecord, accept: (FlatRecord) -> Bool) -> Bool {
        let startLine = stream.line
        defer { record.bytes = UnsafeBufferPointer(start: nil, count: 0) }
        return stream.takeBuffered { p -> (used: Int, newlines: Int, value: Bool)? in
            var pass = JSONPlainValue(p, startLine: startLine, text: [])
            swap(&pass.text, &scratch)
            defer { swap(&pass.text, &scratch) }
            record.bytes = p
            guard pass.flatRecord(into: &record), accept(record) else { return nil }
            return (pass.i, pass.newlines, true)
        } ?? false
    }

    /// How deep `readPlainValue` reads before it leaves a value to `readValue`.
    package static let maxPlainDepth = 16

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
                guard
                    scratch == Self.trueBytes || scratch == Self.falseBytes || scratch == Self.nullBytes
                        || TextValues.number(bytes: scratch[...]) != nil
                else { throw invalidWord() }
            }
        } while !closers.isEmpty && !(skipsPlainRuns && skipPlainTokens(&closers))
    }

    /// Inside a value `skipValue` is skipping: consumes the whole tokens in the bytes buffered
    /// now that it would pass without a word — brackets matching `closers`, separators, plain
    /// strings (escapes of a printable byte), valid words — in one pass, and stops before the
    /// first one it might object to or that may run on past the buffer, leaving that to it.
    /// True when the value's last bracket was consumed.
    private func skipPlainTokens(_ closers: inout [UInt8]) -> Bool {
        stream.takeBuffered { p -> (used: Int, newlines: Int, value: Bool)? in
            let n = p.count, stops = Self.wordStops.table
            var i = 0, newlines = 0
            /// Where the last whole token ended, and the newlines before it.
            var done = 0, doneNewlines = 0
            scanning: while i < n {
                let b = p[i]
                switch b {
                case 0x20, 0x09, 0x0D:
                    i += 1
                    continue scanning
                case 0x0A:
                    newlines += 1
                    i += 1
                    continue scanning
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    guard closers.count + 1 < InputLimits.maxDepth else { break scanning }
                    closers.append(b == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]"))
                    i += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    guard closers.last == b else { break scanning }
                    closers.removeLast()
                    i += 1
                    if closers.isEmpty { return (i, newlines, true) }
                case UInt8(ascii: ","), UInt8(ascii: ":"):
                    i += 1
                case UInt8(ascii: "\""):
                    var k = i + 1
                    while k < n {
                        let c = p[k]
                        if c == UInt8(ascii: "\"") { break }
                        if c < 0x20 { break scanning }
                        if c == UInt8(ascii: "\\") {
                            guard k + 1 < n, p[k + 1] >= 0x20 else { break scanning }
                            k += 2
                        } else {
                            k += 1
                        }
                    }
                    guard k < n else { break scanning }
                    i = k + 1
                default:
                    var k = i
                    while k < n, !stops[Int(p[k])] { k += 1 }
                    guard k < n, k - i <= 1024 else { break scanning }
                    let word = UnsafeBufferPointer(rebasing: p[i..<k])
                    guard
                        word.elementsEqual(Self.trueBytes) || word.elementsEqual(Self.falseBytes)
                            || word.elementsEqual(Self.nullBytes) || TextValues.number(buffer: word) != nil
                    else { break scanning }
                    i = k
                }
                (done, doneNewlines) = (i, newlines)
            }
            return (done, doneNewlines, false)
        } ?? false
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
                        if closers.isEmpty {
                            k += 1
                            done = true
                            break scanning
                        }
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
                            throw stream.error(
                                "mismatched '\(Character(Unicode.Scalar(b)))' (expected '\(Character(Unicode.Scalar(expected)))')",
                                line: stream.line + newlines)
                        }
                        closers.removeLast()
                        if closers.isEmpty {
                            k += 1
                            done = true
                            break scanning
                        }
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
        stream.advance()  // the opening quote
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
                if escaped == UInt8(ascii: "u") {
                    try readUnicodeEscape()
                } else {
                    scratch.append(Self.simpleEscape(escaped) ?? escaped)  // any other: itself
                }
            case 0..<0x20:
                throw error("control character inside a string (unterminated string?)", line: startLine)
            default:
                break  // not a stop byte: cannot happen
            }
            guard scratch.count <= InputLimits.maxRecordBytes else { throw error("string too long", line: startLine) }
        }
    }

    /// What `\n`, `\t`, `\r`, `\b`, `\f`, `\"`, `\\` and `\/` stand for; nil for any other byte after `\`.
    static func simpleEscape(_ escaped: UInt8) -> UInt8? {
        switch escaped {
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "t"): 0x09
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): escaped
        default: nil
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

    static let trueBytes = Array("true".utf8), falseBytes = Array("false".utf8), nullBytes = Array("null".utf8)
    /// Where a string's plain run ends: the closing quote, an escape, or a control character.
    private static let stringStops = ByteSet([UInt8(ascii: "\""), UInt8(ascii: "\\")] + Array(0..<0x20))
    /// Where a bare word ends (also at quotes and brackets, so `1"x"` is not one word).
    package static let wordStops = ByteSet(Array(",}]:{[\" \n\r\t".utf8))

}

extension JSONValue {
    /// The value with its line and every member in order, as text (comparisons in tests and fuzzing).
    package var shown: String {
        switch self {
        case let .object(members, line): "{@\(line) " + members.map { "\($0.key)=\($0.value.shown)" }.joined(separator: ",") + "}"
        case let .array(elements, line): "[@\(line) " + elements.map(\.shown).joined(separator: ",") + "]"
        case let .string(s, line): "\"\(s)\"@\(line)"
        case let .number(n, line): "\(n)@\(line)"
        case let .bool(b, line): "\(b)@\(line)"
        case let .null(line): "null@\(line)"
        }
    }
}

extension JSONScanner {
    /// `bytes`, a JSON array of records, read through buffers of `chunkSize` bytes twice — each
    /// record by `readPlainValue` where it answers (else `readValue`), and each by `readValue` —
    /// as text: every record shown with its lines, the error that stopped the reading, the line
    /// reached. The two must be equal (tests; the `json-plain` fuzz target). `answered`: records
    /// `readPlainValue` read.
    package static func bothWays(_ bytes: [UInt8], chunkSize: Int, keeping: [String]?) -> (plain: String, values: String, answered: Int) {
        func read(plainFirst: Bool) -> (String, Int) {
            var lines: [String] = []
            var answered = 0
            var scanner: JSONScanner?
            do throws(InputError) {
                let json = JSONScanner(stream: try ByteStream(source: MemorySource(bytes), name: "both.json", chunkSize: chunkSize))
                scanner = json
                try json.beginArray("records")
                while try json.nextElement() {
                    var value = plainFirst ? json.readPlainValue(keeping: keeping) : nil
                    if value != nil { answered += 1 }
                    if value == nil { value = try json.readValue(keeping: keeping) }
                    lines.append(value?.shown ?? "")
                }
            } catch {
                lines.append("error: \(error)")
            }
            lines.append("line \(scanner?.stream.line ?? 0)")
            return (lines.joined(separator: "\n"), answered)
        }
        let (plain, answered) = read(plainFirst: true)
        return (plain, read(plainFirst: false).0, answered)
    }

    /// `bytes`, a JSON array, each of its elements skipped by `skipValue` with plain runs passed
    /// in one pass and token by token, through buffers of `chunkSize` bytes, as text: the line
    /// after each element, the error that stopped the skipping, the line reached. The two must
    /// be equal (tests; the `json-plain` fuzz target).
    package static func skipBothWays(_ bytes: [UInt8], chunkSize: Int) -> (runs: String, tokens: String) {
        func skip(runs: Bool) -> String {
            var lines: [String] = []
            var scanner: JSONScanner?
            do throws(InputError) {
                let json = JSONScanner(stream: try ByteStream(source: MemorySource(bytes), name: "skip.json", chunkSize: chunkSize))
                json.skipsPlainRuns = runs
                scanner = json
                try json.beginArray("values")
                while try json.nextElement() {
                    try json.skipValue()
                    lines.append("\(json.stream.line) \(json.stream.offset)")
                }
            } catch {
                lines.append("error: \(error)")
            }
            lines.append("line \(scanner?.stream.line ?? 0)")
            return lines.joined(separator: "\n")
        }
        return (skip(runs: true), skip(runs: false))
    }
}
