import Foundation
import RoquaIO
import Testing

/// The decoder every JSON reader uses: nesting past Foundation's limit is refused before
/// Foundation sees it (Foundation crashed the process when the last byte crossed it), and every
/// other text decodes exactly as Foundation decodes it.
@Suite struct CheckedJSONDecoderTests {
    /// What crashed Foundation's decoder: the 513th opening bracket as the text's last byte.
    @Test(arguments: [
        String(repeating: "[", count: 513), String(repeating: #"{"a":"#, count: 512) + "[",
        "\n" + String(repeating: "[", count: 600) + "]",
    ])
    func nestingPastTheLimitIsADecodingError(text: String) throws {
        do {
            _ = try CheckedJSONDecoder().decode([Int].self, from: Data(text.utf8))
            Issue.record("decoded a text nested past 512")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.debugDescription.contains("more than 512 nested arrays or objects"))
            #expect(context.debugDescription.contains(text.hasPrefix("\n") ? "line 2, column 513" : "line 1"))
        }
    }

    @Test func bracketsInsideStringsDoNotCount() throws {
        let deep = String(repeating: "[", count: 700)
        let texts = [#"[""# + deep + #""]"#, #"["\"\#(deep)"]"#, #"["\\", "\#(deep)"]"#]
        for text in texts {
            let plain = try JSONDecoder().decode([String].self, from: Data(text.utf8))
            #expect(try CheckedJSONDecoder().decode([String].self, from: Data(text.utf8)) == plain)
        }
    }

    /// On texts of brackets, quotes, backslashes and values, the checked decoder refuses exactly
    /// those nested past 512 (counted here independently) and otherwise agrees with Foundation.
    @Test func agreesWithFoundationBelowTheLimit() throws {
        var seed: UInt64 = 20261127
        func next() -> UInt64 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return seed >> 33
        }
        let pieces = ["[", "]", "{", "}", "\"", "\\", ",", ":", "1", " ", "\n", #""k":"#, "[[[[[[[[", "]]]]]]]]", "null"]
        var refused = 0
        for round in 0..<3000 {
            var text = round % 3 == 0 ? String(repeating: "[", count: 500 + Int(next() % 20)) : ""
            for _ in 0..<Int(next() % 120) { text += pieces[Int(next() % UInt64(pieces.count))] }
            let data = Data(text.utf8)
            if depth(of: text) > CheckedJSONDecoder.maximumDepth {
                #expect(throws: DecodingError.self) { try CheckedJSONDecoder().decode(JSONAny.self, from: data) }
                refused += 1
                continue
            }
            let plain = Result { try JSONDecoder().decode(JSONAny.self, from: data) }
            let checked = Result { try CheckedJSONDecoder().decode(JSONAny.self, from: data) }
            #expect((try? plain.get()) == (try? checked.get()), "\(text.prefix(80))")
        }
        #expect(refused > 50)
    }

    /// Every `JSONDecoder` in the sources of both packages is a checked one, and so is jwt-kit's
    /// (it decodes a token before checking its signature).
    @Test func noSourceUsesFoundationsDecoderDirectly() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var offenders: [String] = []
        for folder in ["Sources", "chat/Sources"] {
            let files = FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            while let url = files?.nextObject() as? URL {
                guard url.pathExtension == "swift", url.lastPathComponent != "CheckedJSONDecoder.swift" else { continue }
                let text = try String(contentsOf: url, encoding: .utf8)
                if text.range(of: #"(?<![A-Za-z])JSONDecoder\(|JWTKeyCollection\(\)|DefaultJWTParser\(\)"#, options: .regularExpression)
                    != nil
                {
                    offenders.append(url.path)
                }
            }
        }
        #expect(offenders.isEmpty, "use CheckedJSONDecoder: \(offenders)")
    }

    private func depth(of text: String) -> Int {
        var depth = 0, deepest = 0, inString = false, escaped = false
        for byte in text.utf8 {
            if inString {
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
            } else if byte == 0x22 {
                inString = true
            } else if byte == 0x5B || byte == 0x7B {
                depth += 1
                deepest = max(deepest, depth)
            } else if byte == 0x5D || byte == 0x7D {
                depth = max(0, depth - 1)
            }
        }
        return deepest
    }

    /// Any JSON value, compared structurally.
    private indirect enum JSONAny: Decodable, Equatable {
        case null, bool(Bool), number(Double), string(String), array([JSONAny]), object([String: JSONAny])
        init(from decoder: any Decoder) throws {
            if var items = try? decoder.unkeyedContainer() {
                var values: [JSONAny] = []
                while !items.isAtEnd { values.append(try items.decode(JSONAny.self)) }
                self = .array(values)
            } else if let keyed = try? decoder.container(keyedBy: AnyKey.self) {
                self = .object(
                    try Dictionary(uniqueKeysWithValues: keyed.allKeys.map { ($0.stringValue, try keyed.decode(JSONAny.self, forKey: $0)) })
                )
            } else {
                let single = try decoder.singleValueContainer()
                if single.decodeNil() {
                    self = .null
                } else if let b = try? single.decode(Bool.self) {
                    self = .bool(b)
                } else if let d = try? single.decode(Double.self) {
                    self = .number(d)
                } else {
                    self = .string(try single.decode(String.self))
                }
            }
        }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
