import Foundation
import RoquaIO
import Testing

/// JSON string literals: the fast path (nothing to escape) and the escaping path agree with
/// Foundation's decoder on every input, plain names and hostile ones alike.
@Suite struct JSONTextTests {
    @Test(arguments: [
        "Kadıköy", "İstanbul › Türkiye", "", "Thessaloníki", "東京", "🏔️ Everest",
        "say \"hi\"", "back\\slash", "line\nbreak\r\ttab", "bell\u{07}", "\u{1F}unit", "end\\",
    ])
    func roundTripsThroughJSONDecoding(text: String) throws {
        let quoted = JSONText.quote(text)
        #expect(quoted.first == "\"" && quoted.last == "\"")
        let decoded = try JSONDecoder().decode(String.self, from: Data(quoted.utf8))
        #expect(decoded == text)
        #expect(!quoted.unicodeScalars.contains { $0.value < 0x20 })
    }

    @Test func seededRandomTextsRoundTrip() throws {
        var seed: UInt64 = 20261123
        func next() -> UInt64 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return seed >> 33
        }
        let alphabet: [Unicode.Scalar] = ["a", "ı", "\"", "\\", "\n", "\u{01}", "\u{7F}", "é", "😀", " ", "/"]
        for _ in 0..<2000 {
            let text = String(String.UnicodeScalarView((0..<Int(next() % 12)).map { _ in alphabet[Int(next() % UInt64(alphabet.count))] }))
            #expect(try JSONDecoder().decode(String.self, from: Data(JSONText.quote(text).utf8)) == text)
        }
    }
}
