import Crypto
import Foundation

/// What a device says about itself, signed with its own Ed25519 identity key: who owns it, its
/// identity key, and the X25519 key group secrets are sealed to. The self-signature binds the
/// X25519 key to the identity key, so nobody who relays the record (the server, a peer) can
/// swap in a key of their own; whether the identity key is really that user's is what group
/// statements (an allowed member adds the record) and safety numbers settle.
public struct DeviceRecord: Codable, Sendable, Equatable, Hashable {
    /// `user_id`: the owner, as the server knows them.
    public var userID: String
    /// `device_id`: the device (UUIDv7).
    public var deviceID: String
    /// `identity_key`: base64 Ed25519 public key; signs messages, statements, sessions.
    public var identityKey: String
    /// `agreement_key`: base64 X25519 public key; epoch secrets are sealed to it (HPKE).
    public var agreementKey: String
    /// `created`: whole milliseconds since 1970.
    public var created: Int64

    /// Creates the value from its parts.
    public init(userID: String, deviceID: String, identityKey: String, agreementKey: String, created: Int64) {
        self.userID = userID
        self.deviceID = deviceID
        self.identityKey = identityKey
        self.agreementKey = agreementKey
        self.created = created
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case deviceID = "device_id"
        case identityKey = "identity_key"
        case agreementKey = "agreement_key"
        case created
    }

    static let domainTag = "roqua-chat/device-record/v1"

    /// The bytes the identity key signs.
    public var payload: Data {
        SignedBytes.encode([Self.domainTag, userID, deviceID, identityKey, agreementKey, String(created)])
    }
}

/// A device record and its self-signature (base64 Ed25519 by the record's identity key).
public struct SignedDeviceRecord: Codable, Sendable, Equatable, Hashable {
    /// The record.
    public var record: DeviceRecord
    /// `signature`: base64.
    public var signature: String

    /// Creates the value from its parts.
    public init(record: DeviceRecord, signature: String) {
        self.record = record
        self.signature = signature
    }

    /// Signs `record` with `key`, which must be the record's identity key.
    /// - Throws: `CryptoKitError`.
    public static func sign(_ record: DeviceRecord, with key: Curve25519.Signing.PrivateKey) throws -> SignedDeviceRecord {
        SignedDeviceRecord(record: record, signature: try key.signature(for: record.payload).base64EncodedString())
    }

    /// The record's Ed25519 key, when the record is well formed and signed by it; else nil.
    public var verifiedIdentityKey: Curve25519.Signing.PublicKey? {
        guard record.userID.utf8.count <= ChatLimits.maxIdentifierLength, record.deviceID.utf8.count <= ChatLimits.maxIdentifierLength,
            let identity = Data(base64Encoded: record.identityKey),
            let key = try? Curve25519.Signing.PublicKey(rawRepresentation: identity),
            let agreement = Data(base64Encoded: record.agreementKey), agreement.count == 32,
            (try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: agreement)) != nil,
            let signature = Data(base64Encoded: signature), key.isValidSignature(signature, for: record.payload)
        else { return nil }
        return key
    }

    /// The X25519 key, valid only after `verifiedIdentityKey` was checked.
    public var agreementKey: Curve25519.KeyAgreement.PublicKey? {
        Data(base64Encoded: record.agreementKey).flatMap { try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: $0) }
    }
}

/// Unambiguous concatenation for signing and key derivation: each part as a 4-byte big-endian
/// length and its bytes.
public enum SignedBytes {
    /// `parts` as UTF-8, each length-prefixed.
    public static func encode(_ parts: [String]) -> Data {
        encode(parts.map { Data($0.utf8) })
    }

    /// `parts`, each length-prefixed.
    public static func encode(_ parts: [Data]) -> Data {
        var data = Data()
        for part in parts {
            withUnsafeBytes(of: UInt32(part.count).bigEndian) { data.append(contentsOf: $0) }
            data.append(part)
        }
        return data
    }
}
