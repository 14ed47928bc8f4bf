import Foundation
import RoquaIO
import Testing

/// The store's time text, written digit by digit, against Foundation's formatter and at its ends.
@Suite struct TimeTextTests {
    @Test func millisecondTextIsFoundationsISO8601() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var random = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            // Whole milliseconds from 1600 to 2400 (Foundation's Julian calendar starts earlier).
            let milliseconds = Int64.random(in: -11_676_096_000_000...13_569_465_600_000, using: &random)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            #expect(TimeText.iso8601Milliseconds(date) == formatter.string(from: date), "\(milliseconds) ms")
        }
    }

    @Test func theEndsOfFourDigitYears() {
        func text(_ milliseconds: Double) -> String? { TimeText.iso8601Milliseconds(Date(timeIntervalSince1970: milliseconds / 1000)) }
        #expect(text(0) == "1970-01-01T00:00:00.000Z")
        #expect(text(-1) == "1969-12-31T23:59:59.999Z")
        #expect(text(1_700_000_000_123) == "2023-11-14T22:13:20.123Z")
        #expect(text(951_782_400_000) == "2000-02-29T00:00:00.000Z")
        #expect(text(-62_167_219_200_000) == "0000-01-01T00:00:00.000Z")
        #expect(text(-62_167_219_200_001) == nil)
        #expect(text(253_402_300_799_999) == "9999-12-31T23:59:59.999Z")
        #expect(text(253_402_300_800_000) == nil)
        #expect(TimeText.iso8601Milliseconds(Date(timeIntervalSince1970: .nan)) == nil)
    }
}
