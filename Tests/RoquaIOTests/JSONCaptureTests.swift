import Foundation
import RoquaIO
import Testing

/// `JSONScanner.captureValue` hands a FeatureCollection's features to the workers as raw bytes:
/// the extent it finds must be exactly the value's, wherever the stream's refills fall and
/// whatever the strings hold, and what it cannot leave to the later parse it must refuse itself.
@Suite struct JSONCaptureTests {
    /// The elements of the top-level array in `text` as captured, with the line each starts on,
    /// read through a file in refills of `chunk` bytes (16 is the smallest).
    static func captured(_ text: String, chunk: Int, limit: Int = 1 << 20) throws -> [(text: String, line: Int)] {
        let path = NSTemporaryDirectory() + "roqua-capture-\(UUID().uuidString).json"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let json = JSONScanner(stream: try ByteStream(path: path, chunkSize: chunk))
        try json.beginArray("the test array")
        var out: [(String, Int)] = []
        while try json.nextElement() {
            let line = try json.tokenLine()
            var bytes: [UInt8] = Array("junk".utf8)  // what is there already stays and does not count
            try json.captureValue(into: &bytes, limit: limit)
            #expect(bytes.prefix(4) == Array("junk".utf8)[...])
            out.append((String(decoding: bytes.dropFirst(4), as: UTF8.self), line))
        }
        try json.expectEnd()
        return out
    }

    static let values = [
        #"{"type":"Feature","geometry":{"type":"Point","coordinates":[29.0281,40.9879]},"properties":{"name":"Kadıköy"}}"#,
        #"{"s":"a ] } , [ { \" \\","t":"\\","u":"\u005d\"}"}"#,
        #""a string ] with \"brackets\" {""#,
        "-12.5e3", "true", "null", "[]", "{}", "[[1,[2,[3]]],{\"a\":{\"b\":[]}}]",
        "{\n  \"multi\": [\n    1,\n    2\n  ]\n}",
        #"{"emoji":"🏔️ İstanbul › Türkiye","esc":"\ud83d\ude00"}"#,
    ]

    @Test func extentsAreTheValuesWhereverTheRefillsFall() throws {
        // Whitespace and newlines between the elements, none inside the bare words.
        let text = "[ " + Self.values.joined(separator: " ,\n\t") + "\r\n]\n"
        var lines: [Int] = []
        var line = 1
        for (i, value) in Self.values.enumerated() {
            if i > 0 { line += 1 }
            lines.append(line)
            line += value.filter { $0 == "\n" }.count
        }
        for chunk in [16, 17, 23, 64, 1 << 20] {
            let got = try Self.captured(text, chunk: chunk)
            #expect(got.map(\.text) == Self.values, "refills of \(chunk) bytes")
            #expect(got.map(\.line) == lines, "refills of \(chunk) bytes")
        }
        // A bare word as the last thing in the file, with no bracket after it.
        let path = NSTemporaryDirectory() + "roqua-capture-\(UUID().uuidString).json"
        try Data("  42".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var bytes: [UInt8] = []
        try JSONScanner(stream: try ByteStream(path: path, chunkSize: 16)).captureValue(into: &bytes)
        #expect(bytes == Array("42".utf8))
    }

    @Test(arguments: [
        ("[{\"a\":[1}]", "mismatched '}' (expected ']')"),
        ("[{\"a\":", "file ends inside a JSON value"),
        ("[\"abc", "file ends inside a string begun on line 1"),
        ("[\"a\nb\"]", "control character inside a string"),
        ("[\"ab\\", "file ends inside a string"),
        ("[{\"a\":1},]", "where a JSON value was expected"),
        ("[" + String(repeating: "[", count: 600) + "]", "JSON nested too deeply"),
        ("[{\"name\":\"" + String(repeating: "x", count: 3000) + "\"}]", "one JSON record is larger than 1000 bytes"),
        ("[[" + String(repeating: "1,", count: 3000) + "1]]", "one JSON record is larger than 1000 bytes"),
        ("[" + String(repeating: "7", count: 3000) + "]", "one JSON record is larger than 1000 bytes"),
    ])
    func whatCannotWaitIsRefusedHere(text: String, message: String) throws {
        for chunk in [16, 1 << 20] {
            #expect { try Self.captured(text, chunk: chunk, limit: 1000) } throws: { error in
                "\(error)".contains(message)
            }
        }
    }

    @Test func bytesTheParseMustRefuseAreCapturedForIt() throws {
        // Only the extent is found here: a bad word, a missing colon or comma inside is the
        // later parse's to refuse, with its line.
        let got = try Self.captured("[{\"a\" 1},\n{\"b\":tru},\n[1 2]]", chunk: 16)
        #expect(got.map(\.text) == ["{\"a\" 1}", "{\"b\":tru}", "[1 2]"])
        for (text, line) in got {
            let json = JSONScanner(stream: ByteStream(bytes: Array(text.utf8), name: "f.geojson", line: line))
            #expect {
                _ = try json.readValue()
                try json.expectEnd()
            } throws: { error in
                (error as? InputError)?.line == line
            }
        }
    }
}

/// Escapes in strings the scanner decodes itself (keys, kept values).
@Suite struct JSONEscapeTests {
    static func string(_ literal: String) throws -> String {
        let json = JSONScanner(stream: ByteStream(bytes: Array("[\(literal)]".utf8), name: "t.json", line: 1))
        try json.beginArray("the test array")
        guard try json.nextElement() else { throw CocoaError(.coderValueNotFound) }
        return try json.readString()
    }

    @Test func surrogatePairsJoinAndLoneSurrogatesBecomeReplacementCharacters() throws {
        #expect(try Self.string(#""\ud83d\ude00""#) == "😀")
        // Two high surrogates in a row (found by the google-records fuzzer: it overflowed).
        #expect(try Self.string(#""\udaE7\udaE7x""#) == "\u{FFFD}\u{FFFD}x")
        #expect(try Self.string(#""\ud83d\u0041""#) == "\u{FFFD}A")
        #expect(try Self.string(#""\udc00""#) == "\u{FFFD}")
    }
}
