import Crypto
import Foundation
import RoquaChatCore

/// Secrets handed to people and devices. Random bytes come from swift-crypto's key generation
/// (the system CSPRNG); numbers from `SystemRandomNumberGenerator`, which is also
/// cryptographically secure on every platform Swift supports.
package enum SecureRandom {
    /// A six-digit sign-in code, uniformly drawn (leading zeros kept).
    package static func signInCode() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = Int.random(in: 0..<1_000_000, using: &generator)
        let text = String(value)
        return String(repeating: "0", count: 6 - text.count) + text
    }

    /// An opaque token: `prefix` and 32 random bytes in base64url.
    package static func token(prefix: String) -> String {
        let bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        return prefix + Base64URL.encode(bytes)
    }

    /// An invite code: 12 characters of Crockford base32 (60 bits), grouped `XXXX-XXXX-XXXX`.
    package static func inviteCode() -> String {
        let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        var generator = SystemRandomNumberGenerator()
        let characters = (0..<12).map { _ in alphabet[Int.random(in: 0..<32, using: &generator)] }
        return String(characters[0..<4]) + "-" + String(characters[4..<8]) + "-" + String(characters[8..<12])
    }
}

/// Base64url without padding (RFC 4648 §5).
package enum Base64URL {
    package static func encode(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// SHA-256 of text, in hex: how refresh tokens and invite codes are looked up without being stored.
package enum TokenHash {
    package static func sha256Hex(_ text: String) -> String {
        Hex.encode(SHA256.hash(data: Data(text.utf8)))
    }
}
