import Foundation
import Testing
@testable import RoquaIO

struct TextValuesTests {
    /// The readers' trimming answers as Foundation's on every string made of whitespace of both
    /// kinds (ASCII, and Unicode's that only Foundation's path knows) and text.
    @Test func trimmedWhitespaceIsFoundationsTrimming() {
        let pieces = [" ", "\t", "\n", "\u{0B}", "\u{0C}", "\r", "a", "1", "\u{00A0}", "\u{0085}", "é", "2024-05-01T10:00:00Z", "\u{2003}"]
        var state: UInt64 = 34
        for _ in 0..<30_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            var bits = state, text = ""
            for _ in 0..<Int(bits % 7) {
                bits /= 7
                text += pieces[Int(bits % UInt64(pieces.count))]
                bits /= UInt64(pieces.count)
            }
            #expect(TextValues.trimmedWhitespace(text) == text.trimmingCharacters(in: .whitespacesAndNewlines),
                    "\(Array(text.unicodeScalars))")
        }
    }
}
