import Crypto
import Foundation
import RoquaChatCore

/// Proves the server's identity to a signed-in client: its Ed25519 signature over the client's
/// nonce. The key is derived from the server secret, so every instance sharing the secret signs
/// with the same key and restarts keep it — the key each home pinned at its first sign-in.
package struct ServerIdentityService: Sendable {
    let signingKey: Curve25519.Signing.PrivateKey

    package init(secret: ServerSecret) {
        // 32 derived bytes are a valid Ed25519 seed, so this cannot fail.
        signingKey = secret.key(for: .serverIdentity).withUnsafeBytes { bytes in
            (try? Curve25519.Signing.PrivateKey(rawRepresentation: Data(bytes))) ?? Curve25519.Signing.PrivateKey()
        }
    }

    /// The server's answer to `challenge`.
    /// - Throws: `invalidField` for a nonce that is not base64 of 16–64 bytes.
    package func prove(_ challenge: ServerIdentityChallenge) throws -> ServerIdentityProof {
        guard let nonce = challenge.bytes else {
            throw ChatServerError.invalidField(field: "nonce", reason: "not base64 of 16 to 64 bytes")
        }
        do { return try ServerIdentityProof.sign(nonce: nonce, key: signingKey) } catch {
            throw ChatServerError.storage("signing failed: \(error)")
        }
    }
}
