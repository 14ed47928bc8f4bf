/// A phone number in E.164 form (`+` and 8–15 digits, no leading zero), the only form the server
/// stores. Spaces, dashes, dots and parentheses typed by people are dropped first.
public struct PhoneNumber: ValidatedText, Hashable, CustomStringConvertible {
    /// The E.164 text, e.g. `+905551234567`.
    public let e164: String

    /// Normalizes and validates `raw`.
    /// - Throws: `PhoneNumberError.invalid` naming the value when it is not a phone number.
    public init(_ raw: String) throws {
        let kept = raw.filter { !" -.()\t".contains($0) }
        let digits = kept.dropFirst()
        guard kept.first == "+", (8...15).contains(digits.count), digits.first != "0",
              digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw PhoneNumberError.invalid(raw)
        }
        e164 = kept
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
