import Crypto
import Foundation

/// What the server vouches for about one device, so that peers can check each other with no
/// network: the server's Ed25519 signature over this JSON, verified with the server's public
/// key that each client fetched at sign-in.
public struct PeerCredential: Codable, Sendable, Equatable {
    /// `user_id`: the device's owner.
    public var userID: String
    /// `device_id`: the device.
    public var deviceID: String
    /// `signing_key`: base64 Ed25519 public key of the device (it signs messages and sessions).
    public var signingKey: String
    /// The groups the user is an active member of at issue time.
    public var groups: [String]
    /// The user's role.
    public var role: Role
    /// `expires_at`: when peers stop accepting it.
    public var expiresAt: Date

    /// Creates the value from its parts.
    public init(userID: String, deviceID: String, signingKey: String, groups: [String], role: Role, expiresAt: Date) {
        self.userID = userID
        self.deviceID = deviceID
        self.signingKey = signingKey
        self.groups = groups
        self.role = role
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case deviceID = "device_id"
        case signingKey = "signing_key"
        case groups, role
        case expiresAt = "expires_at"
    }
}

/// `GET /v1/peer-credential`: the credential as signed bytes, the signature, and the server's key.
public struct SignedPeerCredential: Codable, Sendable, Equatable {
    /// Base64 of the credential's JSON exactly as signed.
    public var credential: String
    /// Base64 Ed25519 signature of the server over those bytes.
    public var signature: String
    /// `server_key`: base64 Ed25519 public key of the server.
    public var serverKey: String

    /// Creates the value from its parts.
    public init(credential: String, signature: String, serverKey: String) {
        self.credential = credential
        self.signature = signature
        self.serverKey = serverKey
    }

    enum CodingKeys: String, CodingKey {
        case credential, signature
        case serverKey = "server_key"
    }

    /// Signs `credential` with the server's key.
    /// - Throws: `EncodingError`, `CryptoKitError`.
    public static func issue(_ credential: PeerCredential, key: Curve25519.Signing.PrivateKey) throws -> SignedPeerCredential {
        let bytes = try ChatJSON.encoder().encode(credential)
        return SignedPeerCredential(credential: bytes.base64EncodedString(),
                                    signature: try key.signature(for: bytes).base64EncodedString(),
                                    serverKey: key.publicKey.rawRepresentation.base64EncodedString())
    }

    /// The credential, when `serverKey` (the key the verifier trusts, not the one inside) signed it
    /// and it has not expired at `now`.
    /// - Throws: `PeerCredentialError` saying which check failed.
    public func verified(serverKey trusted: Data, now: Date) throws -> PeerCredential {
        guard let bytes = Data(base64Encoded: credential), let signatureBytes = Data(base64Encoded: signature),
              let key = try? Curve25519.Signing.PublicKey(rawRepresentation: trusted),
              key.isValidSignature(signatureBytes, for: bytes) else { throw PeerCredentialError.badSignature }
        let decoded: PeerCredential
        do { decoded = try ChatJSON.decoder().decode(PeerCredential.self, from: bytes) } catch {
            throw PeerCredentialError.malformed("\(error)")
        }
        guard now < decoded.expiresAt else { throw PeerCredentialError.expired(decoded.expiresAt) }
        return decoded
    }
}

/// Why a peer credential was refused.
public enum PeerCredentialError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not signed by the trusted server key (forged or altered).
    case badSignature
    /// Signed, but not a credential.
    case malformed(String)
    /// Past its expiry.
    case expired(Date)

    public var description: String {
        switch self {
        case .badSignature: "the peer credential is not signed by the server"
        case .malformed(let reason): "the peer credential is malformed: \(reason.prefix(120))"
        case .expired(let date): "the peer credential expired at \(ChatTime.format(date))"
        }
    }
}
