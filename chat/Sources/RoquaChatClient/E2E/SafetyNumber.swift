import Crypto
import Foundation
import RoquaChatCore

/// A safety number for two users: each user's fingerprint (SHA-512 iterated 5,200 times over
/// their identity key and user id, the convention people know from Signal) as 30 digits, the
/// two in a fixed order, shown as 12 groups of 5. Both devices compute the same number; when two
/// people compare it in person (or scan it as a QR code), a server or network that swapped a key
/// in between is found out.
public enum SafetyNumber {
    static let iterations = 5200

    /// 30 digits for one user's identity key.
    static func fingerprint(userID: String, identityKey: String) -> String {
        let key = Data(base64Encoded: identityKey) ?? Data(identityKey.utf8)
        var hash = Data(SHA512.hash(data: Data([0, 0]) + key + Data(userID.utf8)))
        for _ in 0..<iterations { hash = Data(SHA512.hash(data: hash + key)) }
        let bytes = [UInt8](hash.prefix(30))
        return stride(from: 0, to: 30, by: 5).map { start in
            let value = bytes[start..<start + 5].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } % 100_000
            return String(value).leftPadded(to: 5)
        }.joined()
    }

    /// The safety number of two (user, identity key) pairs: 60 digits in 12 groups of 5.
    public static func between(_ a: (userID: String, identityKey: String), _ b: (userID: String, identityKey: String)) -> String {
        let digits = [fingerprint(userID: a.userID, identityKey: a.identityKey), fingerprint(userID: b.userID, identityKey: b.identityKey)]
            .sorted().joined()
        return stride(from: 0, to: digits.count, by: 5).map { start in
            let from = digits.index(digits.startIndex, offsetBy: start)
            return String(digits[from..<digits.index(from, offsetBy: 5)])
        }.joined(separator: " ")
    }

    /// What the QR code of a safety number holds: a label, so that no other code is taken for
    /// one, and the 60 digits. Both phones show the same code.
    public static func scanText(_ number: String) -> String { scanLabel + number.filter(\.isASCIIDigit) }

    static let scanLabel = "ROQUA-SN1:"

    /// The 60 digits a scanned code holds (or a number typed with any spacing); nil for anything else.
    public static func digits(scanned text: String) -> String? {
        var rest = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
        if rest.uppercased().hasPrefix(scanLabel) { rest = rest.dropFirst(scanLabel.count) }
        let digits = rest.filter { $0 != " " }
        return digits.count == 60 && digits.allSatisfy(\.isASCIIDigit) ? String(digits) : nil
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}

/// What `verify` shows about a member.
public struct MemberIdentity: Sendable, Equatable {
    /// The member's user id.
    public var userID: String
    /// Their identity key (of their newest device in the log), base64.
    public var identityKey: String
    /// The safety number of this user and them.
    public var safetyNumber: String
    /// Whether the user confirmed this key (`verify --confirm`).
    public var confirmed: Bool
    /// Whether the log shows them with another identity key before this one.
    public var changed: Bool

    /// What the QR code of the safety number holds (`verify --qr`).
    public var scanText: String { SafetyNumber.scanText(safetyNumber) }

    /// Whether a code scanned from the member's phone (or the number read out and typed) is this
    /// safety number.
    /// - Throws: `invalidInput` for text that is no safety number.
    public func matches(scanned text: String) throws -> Bool {
        guard let digits = SafetyNumber.digits(scanned: text) else {
            throw ChatClientError.invalidInput(
                field: "scan", value: text, reason: "not a Roqua safety number (its QR code holds ROQUA-SN1: and 60 digits)")
        }
        return digits == safetyNumber.filter(\.isASCIIDigit)
    }
}
