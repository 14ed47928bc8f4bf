import Crypto
import Foundation

/// `POST /v1/server-identity {nonce}`: 32 random bytes the client chose for this exchange.
public struct ServerIdentityChallenge: Codable, Sendable, Equatable {
    /// Base64 of the nonce.
    public var nonce: String

    /// A fresh challenge (32 bytes from the system's CSPRNG).
    public init() {
        nonce = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }.base64EncodedString()
    }

    /// Creates the value from its parts.
    public init(nonce: String) { self.nonce = nonce }

    /// The nonce's bytes when it is base64 of 16 to 64 bytes.
    public var bytes: Data? {
        guard nonce.utf8.count <= 100, let data = Data(base64Encoded: nonce), (16...64).contains(data.count) else { return nil }
        return data
    }
}

/// The server's answer: its Ed25519 key and its signature over the client's nonce. A home pins
/// the key at its first sign-in and checks every answer after against it: a server without the
/// pinned key's secret cannot answer, and an answer copied from an earlier exchange does not fit
/// a new nonce.
public struct ServerIdentityProof: Codable, Sendable, Equatable {
    /// `server_key`: base64 Ed25519 public key of the server.
    public var serverKey: String
    /// Base64 Ed25519 signature over `payload(nonce:)`.
    public var signature: String

    /// Creates the value from its parts.
    public init(serverKey: String, signature: String) {
        self.serverKey = serverKey
        self.signature = signature
    }

    enum CodingKeys: String, CodingKey {
        case serverKey = "server_key"
        case signature
    }

    /// What is signed: a label (the key signs nothing else that could be taken for this) and the nonce.
    public static func payload(nonce: Data) -> Data {
        Data("roqua-chat server identity v1\n".utf8) + nonce
    }

    /// The server's answer to `nonce`.
    /// - Throws: `CryptoKitError`.
    public static func sign(nonce: Data, key: Curve25519.Signing.PrivateKey) throws -> ServerIdentityProof {
        ServerIdentityProof(
            serverKey: key.publicKey.rawRepresentation.base64EncodedString(),
            signature: try key.signature(for: payload(nonce: nonce)).base64EncodedString())
    }

    /// Whether `trusted` (the pinned key, not the one in the answer) signed `nonce`.
    public func verifies(nonce: Data, trusted: Data) -> Bool {
        guard let signatureBytes = Data(base64Encoded: signature),
            let key = try? Curve25519.Signing.PublicKey(rawRepresentation: trusted)
        else { return false }
        return key.isValidSignature(signatureBytes, for: Self.payload(nonce: nonce))
    }
}
