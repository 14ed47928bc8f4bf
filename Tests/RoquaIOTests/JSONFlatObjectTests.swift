import Foundation
import Testing
@testable import RoquaIO

/// `readFlatObject` (one pass over the buffered bytes) gives what `readValue` gives — the same
/// members, values and lines — wherever it answers, and leaves everything else to `readValue`
/// untouched: checked on generated arrays of records (plain, escaped, nested, broken), read with
/// tiny buffers so records straddle every possible boundary.
struct JSONFlatObjectTests {
    static let keys = ["latitudeE7", "longitudeE7", "timestamp", "accuracy", "velocity"]

    @Test func agreesWithReadValue() throws {
        let pieces = [#""latitudeE7": 410000000"#, #""longitudeE7":-289999999"#, #""timestamp": "2024-05-01T10:00:00Z""#,
                      #""accuracy": 12.5"#, #""velocity": null"#, #""activity": [1, {"a": 2}]"#, #""source": "W\"IFI""#,
                      #""accuracy": true"#, #""x": "ä€""#, #""latitudeE7": 4.1e8"#, "\n", #""timestamp": "2024-\u00305""#,
                      #""deviceTag": -7"#, #""heading": false"#]
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
        records.append(#"{"accuracy": 5, "velocity": 1.2.3}"#)  // broken: both must stop here, alike
        let text = Array(("[\n" + records.joined(separator: ",\n") + "\n]").utf8)
        for chunk in [7, 64, 333, 1 << 20] {
            let slow = JSONScanner(stream: try ByteStream(source: MemorySource(text), name: "a.json", chunkSize: chunk))
            let fast = JSONScanner(stream: try ByteStream(source: MemorySource(text), name: "a.json", chunkSize: chunk))
            try slow.beginArray("records")
            try fast.beginArray("records")
            var answeredFast = 0, index = 0
            while try slow.nextElement() {
                #expect(try fast.nextElement())
                let expected = Result { try slow.readValue(keeping: Self.keys) }
                let flat = fast.readFlatObject(keeping: Self.keys)
                if flat != nil { answeredFast += 1 }
                let got = Result { try flat ?? fast.readValue(keeping: Self.keys) }
                switch (expected, got) {
                case let (.success(a), .success(b)): #expect(Self.show(a) == Self.show(b), "record \(index), chunk \(chunk)")
                case let (.failure(a), .failure(b)): #expect("\(a)" == "\(b)", "record \(index), chunk \(chunk)")
                default: Issue.record("record \(index), chunk \(chunk): \(expected) ≠ \(got)")
                }
                guard case .success = expected else { break }  // broken JSON ends the file for both
                #expect(slow.stream.line == fast.stream.line)
                index += 1
            }
            #expect(index == 3_000)  // every record read, up to the broken one
            if chunk == 1 << 20 { #expect(answeredFast > 1_000) }  // the fast path did answer, often
        }
    }

    /// A value with its line, every member in order.
    static func show(_ value: JSONValue) -> String {
        switch value {
        case let .object(members, line): "{@\(line) " + members.map { "\($0.key)=\(show($0.value))" }.joined(separator: ",") + "}"
        case let .array(elements, line): "[@\(line) " + elements.map(show).joined(separator: ",") + "]"
        case let .string(s, line): "\"\(s)\"@\(line)"
        case let .number(n, line): "\(n)@\(line)"
        case let .bool(b, line): "\(b)@\(line)"
        case let .null(line): "null@\(line)"
        }
    }
}
