import Foundation
import RoquaIO

/// Finds the messages of a push body (`{"messages": [{…}, {…}], …}`) as it streams in, without
/// decoding it: each message's byte range, so that messages are decoded one at a time and the
/// body never has to be held, or parsed, whole. It tracks strings (with escapes) and nesting
/// only; each message's own bytes are checked by the JSON decoder afterwards. Other members of
/// the top-level object are skipped, as the decoder would; a trailing comma is let through, as
/// Foundation's decoder does.
package struct PushBodySplitter {
    /// Why the body is not a push, with the byte offset.
    package struct Malformed: Error, Equatable, CustomStringConvertible {
        package let description: String
    }

    private enum Place: Equatable {
        /// Before the top-level `{`.
        case start
        /// In the top-level object, expecting a key (or `}` right after `{` or a value).
        case expectingKey
        /// Reading a top-level key.
        case key
        /// After a key, expecting `:`.
        case colon
        /// After `:`, expecting the value.
        case value
        /// Inside a value of another key, at this nesting depth below the top level (0: a scalar).
        case skipping(depth: Int)
        /// Inside `messages`, expecting `{` or `]` (or `,` between elements).
        case inMessages
        /// Inside a message, at this nesting depth (1: the message's own object).
        case message(depth: Int)
        /// After the top-level `}`: only whitespace may follow.
        case end
    }

    private var place = Place.start
    private var inString = false
    private var escaped = false
    private var keyBytes: [UInt8] = []
    private var currentKey = ""
    private var expectingComma = false
    private var elementStart = 0
    private var sawMessages = false
    private var offset = 0
    /// Messages found so far.
    package private(set) var count = 0
    package let maxMessages: Int

    package init(maxMessages: Int = ChatLimits.maxMessagesPerPush) {
        self.maxMessages = maxMessages
    }

    /// Reads the next bytes of the body; the byte ranges of the messages they complete.
    /// - Throws: `Malformed` at the first byte that cannot be part of a push body, or when there
    ///   are more than `maxMessages` messages.
    package mutating func feed(_ bytes: some Sequence<UInt8>) throws(Malformed) -> [Range<Int>] {
        let copy = Array(bytes)
        var outcome: Result<[Range<Int>], Malformed> = .success([])
        copy.withUnsafeBytes { raw in
            do throws(Malformed) { outcome = .success(try feed(raw)) } catch { outcome = .failure(error) }
        }
        return try outcome.get()
    }

    /// `feed` over raw bytes (the server's path: no copy, no generic iteration).
    package mutating func feed(_ bytes: UnsafeRawBufferPointer) throws(Malformed) -> [Range<Int>] {
        var completed: [Range<Int>] = []
        for byte in bytes {
            defer { offset += 1 }
            if inString {
                if case .key = place, keyBytes.count < 256 { keyBytes.append(byte) }
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if case .key = place {
                        keyBytes.removeLast()
                        currentKey = try Self.keyText(keyBytes, at: offset)
                        place = .colon
                    } else if case .skipping(0) = place {
                        place = .expectingKey
                        expectingComma = true
                    }
                }
                continue
            }
            if Self.isWhitespace(byte) { continue }
            switch place {
            case .start:
                guard byte == UInt8(ascii: "{") else { throw fail("the body must be a JSON object with \"messages\"") }
                place = .expectingKey
                expectingComma = false
            case .expectingKey:
                if byte == UInt8(ascii: "}") {
                    place = .end
                } else if expectingComma {
                    guard byte == UInt8(ascii: ",") else { throw fail("expected ',' or '}'") }
                    expectingComma = false
                } else {
                    guard byte == UInt8(ascii: "\"") else { throw fail("expected a key") }
                    inString = true
                    keyBytes.removeAll(keepingCapacity: true)
                    place = .key
                }
            case .key:
                break  // Unreachable: a key is read inside the string branch.
            case .colon:
                guard byte == UInt8(ascii: ":") else { throw fail("expected ':' after \"\(currentKey)\"") }
                place = .value
            case .value:
                if currentKey == "messages" {
                    guard !sawMessages else { throw fail("\"messages\" appears twice") }
                    guard byte == UInt8(ascii: "[") else { throw fail("messages should be an array") }
                    sawMessages = true
                    place = .inMessages
                    expectingComma = false
                } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                    place = .skipping(depth: 1)
                } else if byte == UInt8(ascii: "\"") {
                    inString = true
                    place = .skipping(depth: 0)
                } else {
                    place = .skipping(depth: 0)
                }
            case .skipping(let depth):
                if depth == 0 {
                    // A number, true, false or null: it ends at ',' or '}'.
                    if byte == UInt8(ascii: ",") {
                        place = .expectingKey
                    } else if byte == UInt8(ascii: "}") {
                        place = .end
                    }
                } else if byte == UInt8(ascii: "\"") {
                    inString = true
                } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                    place = .skipping(depth: depth + 1)
                } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                    if depth == 1 {
                        place = .expectingKey
                        expectingComma = true
                    } else {
                        place = .skipping(depth: depth - 1)
                    }
                }
            case .inMessages:
                if byte == UInt8(ascii: "]") {
                    place = .expectingKey
                    expectingComma = true
                } else if expectingComma {
                    guard byte == UInt8(ascii: ",") else { throw fail("expected ',' or ']' after messages[\(count - 1)]") }
                    expectingComma = false
                } else {
                    guard byte == UInt8(ascii: "{") else { throw fail("messages[\(count)] should be an object") }
                    guard count < maxMessages else {
                        throw Malformed(description: "more than \(maxMessages) messages; at most \(maxMessages) per push")
                    }
                    elementStart = offset
                    place = .message(depth: 1)
                }
            case .message(let depth):
                if byte == UInt8(ascii: "\"") {
                    inString = true
                } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                    place = .message(depth: depth + 1)
                } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                    if depth == 1 {
                        completed.append(elementStart..<(offset + 1))
                        count += 1
                        place = .inMessages
                        expectingComma = true
                    } else {
                        place = .message(depth: depth - 1)
                    }
                }
            case .end:
                throw fail("unexpected bytes after the body's object")
            }
        }
        return completed
    }

    /// Checks that the body ended where a push body may end.
    /// - Throws: `Malformed` for a body cut short, or one without `messages`.
    package func finish() throws(Malformed) {
        guard place == .end, !inString else {
            throw Malformed(description: offset == 0 ? "the body is empty; JSON expected" : "the body ends early (after \(offset) bytes)")
        }
        guard sawMessages else { throw Malformed(description: "messages is missing") }
    }

    private func fail(_ reason: String) -> Malformed {
        Malformed(description: "not valid JSON for a push: \(reason) (at byte \(offset))")
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// A key's text; escapes are resolved by the JSON decoder, as for the rest of the body.
    private static func keyText(_ bytes: [UInt8], at offset: Int) throws(Malformed) -> String {
        guard bytes.contains(UInt8(ascii: "\\")) else { return String(decoding: bytes, as: UTF8.self) }
        guard let text = try? CheckedJSONDecoder().decode(String.self, from: Data([UInt8(ascii: "\"")] + bytes + [UInt8(ascii: "\"")]))
        else {
            throw Malformed(description: "a key is not a JSON string (at byte \(offset))")
        }
        return text
    }
}
