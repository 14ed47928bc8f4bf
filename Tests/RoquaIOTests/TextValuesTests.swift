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
            #expect(
                TextValues.trimmedWhitespace(text) == text.trimmingCharacters(in: .whitespacesAndNewlines),
                "\(Array(text.unicodeScalars))")
        }
    }

    /// Numbers read the fast way (plain integers and decimals of up to 15 digits) are the very
    /// doubles `Double(String)` reads — sign of zero included — on 200,000 seeded texts of every
    /// length and shape around the fast path's edges (16 digits, a point first or last, two
    /// points, exponents, signs), and texts that are no number stay none.
    @Test func numbersAreDoubleStringsBitForBit() {
        var state: UInt64 = 41
        func random(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % n
        }
        let alphabet = Array("0123456789012345678901234567890123456789..-+eE".utf8)
        var fast = 0
        for round in 0..<200_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                // A plain decimal: digits, a point somewhere, more digits; sometimes signed.
                let whole = (0..<(1 + random(9))).map { _ in UInt8(0x30 + random(10)) }
                let fraction = (0..<random(12)).map { _ in UInt8(0x30 + random(10)) }
                bytes = (random(3) == 0 ? [0x2D] : []) + whole + (fraction.isEmpty && random(2) == 0 ? [] : [0x2E]) + fraction
            } else {
                bytes = (0..<(1 + random(18))).map { _ in alphabet[random(alphabet.count)] }
            }
            let expected: Double? =
                bytes.allSatisfy(TextValues.isNumberByte)
                ? Double(String(decoding: bytes, as: UTF8.self)).flatMap { $0.isFinite ? $0 : nil } : nil
            let got = TextValues.number(bytes: bytes[...])
            let text = String(decoding: bytes, as: UTF8.self)
            switch (got, expected) {
            case let (got?, expected?):
                // "-0" is read as +0 by the integer path, as it always was; every other value bit for bit.
                if text == "-0" || text.allSatisfy({ $0 == "-" || $0 == "0" }) && !text.contains(".") {
                    #expect(got == 0, "\(text)")
                } else {
                    #expect(got.bitPattern == expected.bitPattern, "\(text): \(got) ≠ \(expected)")
                }
                if bytes.count <= 16, bytes.contains(0x2E) { fast += 1 }
            case (nil, nil): break
            default: Issue.record("\(text): \(String(describing: got)) ≠ \(String(describing: expected))")
            }
        }
        #expect(fast > 30_000)
    }
}
