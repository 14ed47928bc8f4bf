/// A phone number in E.164 form (`+` and 8–15 digits, no leading zero), the only form the server
/// stores. Spaces, dashes, dots and parentheses typed by people are dropped first.
public struct PhoneNumber: ValidatedText, Hashable, CustomStringConvertible {
    /// The E.164 text, e.g. `+905551234567`.
    public let e164: String

    /// Normalizes and validates `raw`: separators dropped, and a national trunk prefix `0`
    /// written after the country code dropped too (`+90 0555 …` is `+90 555 …`, as dialled from
    /// abroad), except where a leading 0 belongs to the number itself (Italy, San Marino, the
    /// Vatican, Côte d'Ivoire, Gabon, the Republic of the Congo).
    /// - Throws: `PhoneNumberError.invalid` naming the value when it is not a phone number.
    public init(_ raw: String) throws {
        let kept = raw.filter { !" -.()\t".contains($0) }
        var digits = Array(kept.dropFirst())
        guard kept.first == "+", digits.first != "0", digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw PhoneNumberError.invalid(raw)
        }
        let code = Self.countryCodeLength(digits)
        if digits.count > code, digits[code] == "0", !Self.zeroIsSignificant.contains(String(digits.prefix(code))) {
            digits.remove(at: code)
            // One trunk prefix at most: a national number there never starts with 0 itself.
            guard digits.count <= code || digits[code] != "0" else { throw PhoneNumberError.invalid(raw) }
        }
        guard (8...15).contains(digits.count) else { throw PhoneNumberError.invalid(raw) }
        e164 = "+" + String(digits)
    }

    /// The two-digit country calling codes (ITU-T E.164); `1` and `7` are one digit, every other
    /// code three. Calling codes are prefix-free, so the first digits decide.
    static let twoDigitCodes: Set<String> = [
        "20", "27", "30", "31", "32", "33", "34", "36", "39", "40", "41", "43", "44", "45", "46", "47", "48", "49",
        "51", "52", "53", "54", "55", "56", "57", "58", "60", "61", "62", "63", "64", "65", "66",
        "81", "82", "84", "86", "90", "91", "92", "93", "94", "95", "98",
    ]

    /// Countries whose numbers themselves may start with 0 (no trunk prefix to drop).
    static let zeroIsSignificant: Set<String> = ["39", "378", "379", "225", "241", "242"]

    static func countryCodeLength(_ digits: [Character]) -> Int {
        guard let first = digits.first else { return 0 }
        if first == "1" || first == "7" { return 1 }
        return twoDigitCodes.contains(String(digits.prefix(2))) ? 2 : 3
    }

    /// For logs and for people who may not see the whole number: `+90•••••••67`.
    public var redacted: String {
        let digits = e164.dropFirst()
        let shownHead = min(2, digits.count), shownTail = min(2, digits.count - shownHead)
        let hidden = digits.count - shownHead - shownTail
        return "+" + digits.prefix(shownHead) + String(repeating: "•", count: hidden) + digits.suffix(shownTail)
    }

    public var description: String { e164 }

    /// The E.164 text.
    public var text: String { e164 }
}

/// Why a phone number was refused.
public enum PhoneNumberError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalid(String)

    public var description: String {
        switch self {
        case .invalid(let raw):
            "'\(raw)' is not a phone number in international form (+ and 8 to 15 digits, e.g. +905551234567)"
        }
    }
}
