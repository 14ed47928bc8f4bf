import Foundation
import RoquaTestSupport
import Testing

@testable import RoquaIO

/// `readPlainValue` (one pass over the buffered bytes) gives what `readValue` gives — the same
/// members, values and lines — wherever it answers, and leaves everything else to `readValue`
/// untouched: checked on generated arrays of records (plain, escaped, nested, too deep, broken),
/// with and without a list of members to keep, read with tiny buffers so records straddle every
/// possible boundary.
struct JSONPlainValueTests {
    static let keys = ["latitudeE7", "longitudeE7", "timestamp", "accuracy", "velocity"]

    @Test func agreesWithReadValue() throws {
        let pieces = [
            #""latitudeE7": 410000000"#, #""longitudeE7":-289999999"#, #""timestamp": "2024-05-01T10:00:00Z""#,
            #""accuracy": 12.5"#, #""velocity": null"#, #""activity": [1, {"a": 2}]"#, #""source": "W\"IFI""#,
            #""accuracy": true"#, #""x": "ä€""#, #""latitudeE7": 4.1e8"#, "\n", #""timestamp": "2024-\u00305""#,
            #""deviceTag": -7"#, #""heading": false"#,
            #""position": {"LatLng": "41.0000442\u00b0, 28.9499890\u00B0", "accuracyMeters": 20, "n": [1, -2.5e3, true, null, []]}"#,
            #""x": "a\nb\t\u00e9\u20ac\/\\ \"q\" \b\f\r""#, #""s": "\ud83d\ude00""#, #""q": "\q""#, #""lat\u0069tudeE7": 5"#,
            #""deep": [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]"#, #""ok": [[[[[1, {"a": {}}]]]]]"#,
            #""sp": "\u0020\u0000""#, #""e": {}"#, #""u": "ä€""#, #""o": {"a": {"b": {"c": "d\u00b0"}}, "a": 2}"#,
        ]
        var state: UInt64 = 2026
        func random(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % n
        }
        var records: [String] = []
        for _ in 0..<3_000 {
            let members = (0..<random(6)).map { _ in pieces[random(pieces.count)] }
            records.append("{" + members.filter { $0 != "\n" }.joined(separator: random(3) == 0 ? ",\n  " : ", ") + "}")
        }
        for keeping in [Self.keys, nil] {
            // Broken last records: both must stop there, alike.
            for broken in [
                #"{"accuracy": 5, "velocity": 1.2.3}"#, #"{"x": "\u12G4"}"#, "{\"x\": \"tab\there\"}", #"{"x": [1 2]}"#,
                #"{"timestamp": "a\qb"}"#, #"{"latitudeE7": "\ud800x"}"#,
            ] {
                try Self.compare(records + [broken], keeping: keeping, readable: records.count)
            }
        }
    }

    /// `skipValue` passing plain runs of tokens in one pass stops where token by token stops,
    /// with the same error and lines: the records above and values made to be skipped (big,
    /// deep, escaped, words of every kind), each followed by a broken one.
    @Test func skippingAgreesTokenByToken() throws {
        var generator = SeededGenerator(state: 34)
        func random(_ n: Int) -> Int { generator.below(n) }
        let scalars = [
            "1", "-2.5e3", "true", "false", "null", #""x""#, #""a\"b\\""#, #""\u00e9\q""#, "\"\\\n\"", "0.1",
            "12345678901234567890", String(repeating: "7", count: 70), #""ä€""#, "\"tab\\\tok\"",
        ]
        func value(_ depth: Int) -> String {
            switch depth > 6 ? 0 : random(4) {
            case 0: return scalars[random(scalars.count)]
            case 1: return "[" + (0..<random(4)).map { _ in value(depth + 1) }.joined(separator: random(2) == 0 ? "," : " ,\n ") + "]"
            default: return "{" + (0..<random(4)).map { _ in #""k\#(random(9))": "# + value(depth + 1) }.joined(separator: ",\n") + "}"
            }
        }
        let values = (0..<2_000).map { _ in value(0) } + [String(repeating: "[", count: 40) + String(repeating: "]", count: 40)]
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        for broken in [
            #"{"a": [1}"#, #"{"a": tru}"#, "{\"a\": \"x\u{01}y\"}", #"[1, 2.3.4]"#, "[\"\\\u{01}\"]", deep, #"{"a": 1]"#,
            #"{"a": 1, , "b": [}"#, "[1, #]", #"{"a": "unterminated"#, #"[{"a": 1}"#, "[" + String(repeating: "9", count: 1100) + "]",
            // A word of 1,024 bytes is the longest read (here a valid number); one more is too long.
            "[0." + String(repeating: "0", count: 1022) + ", 0." + String(repeating: "0", count: 1023) + "]",
        ] {
            let text = Array(("[\n" + (values + [broken]).joined(separator: ",\n") + "\n]").utf8)
            for chunk in [7, 64, 333, 1 << 20] {
                let (runs, tokens) = JSONScanner.skipBothWays(text, chunkSize: chunk)
                #expect(runs == tokens, "chunk \(chunk), broken \(broken.prefix(20))")
                #expect(tokens.split(separator: "\n").count >= values.count + 1)
            }
        }
    }

    static func compare(_ records: [String], keeping: [String]?, readable: Int) throws {
        let text = Array(("[\n" + records.joined(separator: ",\n") + "\n]").utf8)
        for chunk in [7, 64, 333, 1 << 20] {
            let (plain, values, answered) = JSONScanner.bothWays(text, chunkSize: chunk, keeping: keeping)
            let (p, v) = (plain.split(separator: "\n"), values.split(separator: "\n"))
            #expect(p.count == v.count, "chunk \(chunk)")
            for (index, (a, b)) in zip(p, v).enumerated() where a != b {
                Issue.record("record \(index), chunk \(chunk): \(a) ≠ \(b)")
                break
            }
            #expect(v.count >= readable + 1)  // every record read, up to the broken one
            if chunk == 1 << 20 { #expect(answered > 1_000) }  // the fast path did answer, often
        }
    }
}
