import Foundation
import RoquaIO
import Testing

/// `OrderedJSONEncoder`: keys in the order encoded, numbers as Swift prints them, strings
/// escaped as answers always were.
@Suite struct OrderedJSONEncoderTests {
    func text<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try OrderedJSONEncoder().encode(value), as: UTF8.self)
    }

    struct Declared: Encodable {
        var zeta = 1
        var alpha = "a"
        var mid = 40.0
        var absent: Int?
        var present: Int? = 7
        var list = [0.1, 1e-05, 1e21, -0.0]
        var nested = Inner()
        var flags = [true, false]
    }

    struct Inner: Encodable {
        var small: Int8 = -3
        var wide: UInt64 = 18_446_744_073_709_551_615
        var id: Int64 = -9_007_199_254_740_993
        var float: Float = 0.5
        var empty: [String] = []
    }

    @Test func synthesisedTypesKeepTheirDeclarationOrder() throws {
        #expect(
            try text(Declared()) == #"{"zeta":1,"alpha":"a","mid":40.0,"present":7,"list":[0.1,1e-05,1e+21,-0.0],"#
                + #""nested":{"small":-3,"wide":18446744073709551615,"id":-9007199254740993,"float":0.5,"empty":[]},"flags":[true,false]}"#)
    }

    /// Nested containers have no end call: each is closed when its parent writes on, or at the end.
    struct Hand: Encodable {
        func encode(to encoder: any Encoder) throws {
            var top = encoder.container(keyedBy: JSONKey.self)
            try top.encodeNil(forKey: "none")
            var inner = top.nestedContainer(keyedBy: JSONKey.self, forKey: "inner")
            try inner.encode("x", forKey: "a")
            var list = inner.nestedUnkeyedContainer(forKey: "list")
            try list.encode(1)
            var pair = list.nestedUnkeyedContainer()
            try pair.encode(JSONNumber(text: "2.50"))
            try pair.encodeNil()
            try list.encode(3)
            try top.encode("after", forKey: "b")
            var tail = top.nestedUnkeyedContainer(forKey: "tail")
            var object = tail.nestedContainer(keyedBy: JSONKey.self)
            try object.encode(1, forKey: "k")
        }
    }

    @Test func nestedContainersCloseWhereTheyEnd() throws {
        #expect(try text(Hand()) == #"{"none":null,"inner":{"a":"x","list":[1,[2.50,null],3]},"b":"after","tail":[{"k":1}]}"#)
        #expect(try text([Hand(), Hand()]).hasPrefix(#"[{"none":null"#))
        #expect(try text([[1, 2], [], [3]]) == "[[1,2],[],[3]]")
        #expect(try text(["only": [String: Int]()]) == #"{"only":{}}"#)
    }

    /// A value asking for its container twice gets the same one (as `JSONEncoder` does).
    struct Twice: Encodable {
        func encode(to encoder: any Encoder) throws {
            var first = encoder.container(keyedBy: JSONKey.self)
            try first.encode(1, forKey: "a")
            var second = encoder.container(keyedBy: JSONKey.self)
            try second.encode(2, forKey: "b")
        }
    }

    struct Nothing: Encodable {
        func encode(to encoder: any Encoder) throws {}
    }

    @Test func oddButLegalEncodings() throws {
        #expect(try text(Twice()) == #"{"a":1,"b":2}"#)
        #expect(try text(Nothing()) == "{}")
        #expect(try text(["k": Nothing()]) == #"{"k":{}}"#)
        #expect(try text(Optional<Int>.none) == "null")
        #expect(try text("top") == #""top""#)
    }

    @Test func nonFiniteNumbersAreRefused() {
        #expect(throws: EncodingError.self) { try text([Double.nan]) }
        #expect(throws: EncodingError.self) { try text(["x": Double.infinity]) }
    }

    /// The escaping `JSONText.quote` did by hand before the encoder, kept here as the reference.
    static func previousQuote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let s where s.value < 0x20: out += String(format: "\\u%04x", s.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    @Test func stringsAreEscapedAsBefore() throws {
        var generator = SystemRandomNumberGenerator()
        var samples = [
            "", "Kadıköy", "a/b", "quote \" and \\ back", "tab\tline\nreturn\r", "\u{0}\u{1}\u{8}\u{c}\u{1f}\u{7f}",
            "İstanbul › Kadıköy 🌍", "\u{2028}\u{2029}",
        ]
        for _ in 0..<200 {
            samples.append(
                String(
                    String.UnicodeScalarView(
                        (0..<12).compactMap { _ in
                            Unicode.Scalar([0x22, 0x5C, 0x0A, 0x01, 0x41, 0xE9, 0x131, 0x1F30D].randomElement(using: &generator) ?? 0x41)
                        })))
        }
        for sample in samples {
            #expect(try text(sample) == Self.previousQuote(sample), "\(sample.debugDescription)")
            #expect(JSONText.quote(sample) == Self.previousQuote(sample))
        }
    }

    @Test func appendingKeepsWhatWasThere() throws {
        var bytes = Array("{\"row\":1}\n".utf8)
        try OrderedJSONEncoder().encode(["a": 1], appendingTo: &bytes)
        try OrderedJSONEncoder().encode([2.5], appendingTo: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "{\"row\":1}\n{\"a\":1}[2.5]")
    }

    @Test func foundationReadsWhatItWrites() throws {
        let object = try JSONSerialization.jsonObject(with: Data(try OrderedJSONEncoder().encode(Declared()))) as? [String: Any]
        #expect(object?["mid"] as? Double == 40 && (object?["nested"] as? [String: Any])?["small"] as? Int == -3)
    }
}
