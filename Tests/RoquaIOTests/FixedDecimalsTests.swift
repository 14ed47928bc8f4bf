import Foundation
import RoquaIO
import Testing

@Suite struct FixedDecimalsTests {
    /// The same text as `%.Nf` on seeded coordinates and grid values, signs and zero included.
    @Test func matchesPrintfOnSeededValues() {
        var seed: UInt64 = 20_261_123
        func next() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53)
        }
        var mismatches: [String] = []
        for _ in 0..<20_000 {
            let value = next() * 360 - 180
            for decimals in [0, 1, 3, 7] {
                let expected = String(format: "%.\(decimals)f", value)
                if TextValues.fixed(value, decimals: decimals) != expected { mismatches.append("\(value) \(decimals): \(expected)") }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
        #expect(TextValues.fixed(0, decimals: 3) == "0.000")
        #expect(TextValues.fixed(-0.00000001, decimals: 7) == "-0.0000000")
        #expect(TextValues.fixed(-12.5, decimals: 2) == "-12.50" && TextValues.fixed(29.0281, decimals: 7) == "29.0281000")
        #expect(TextValues.fixed(1e300, decimals: 2) == String(format: "%.2f", 1e300))
    }
}
