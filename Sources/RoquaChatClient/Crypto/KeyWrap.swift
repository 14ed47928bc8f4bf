import Crypto
import Foundation

/// A group key sealed for one device: an ephemeral X25519 key agreed with the device's
/// agreement key, HKDF-SHA256 to an AES-256-GCM key, the group key sealed with associated data
/// naming the group, epoch and recipient. Only the holder of the recipient's private agreement
/// key can open it; whoever stores or forwards it (the server) learns nothing.
public struct WrappedGroupKey: Codable, Sendable, Equatable {
    /// The group.
    public var groupID: String
    /// The key epoch.
    public var epoch: Int
    /// The device it is sealed for.
    public var recipientDeviceID: String
    /// Base64: ephemeral public key (32 bytes) ‖ nonce ‖ ciphertext ‖ tag.
    public var sealed: String

    enum CodingKeys: String, CodingKey {
        case groupID = "group_id"
        case epoch
        case recipientDeviceID = "recipient_device_id"
        case sealed
    }

    /// Seals `key` for the device whose agreement public key is `recipient` (32 raw bytes).
    /// - Throws: `ChatClientError.invalidInput` for a malformed public key; `CryptoKitError`.
    public static func wrap(_ key: GroupKey, for recipientDeviceID: String, publicKey recipient: Data) throws -> WrappedGroupKey {
        guard let recipientKey = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: recipient) else {
            throw ChatClientError.invalidInput(field: "agreement key", value: recipient.base64EncodedString(), reason: "not an X25519 public key")
        }
        let ephemeral = Curve25519.KeyAgreement.PrivateKey()
        let wrapping = try wrappingKey(ephemeral.sharedSecretFromKeyAgreement(with: recipientKey),
                                       ephemeral: ephemeral.publicKey.rawRepresentation, recipient: recipient)
        let box = try AES.GCM.seal(key.rawBytes, using: wrapping,
                                   authenticating: aad(group: key.groupID, epoch: key.epoch, device: recipientDeviceID))
        guard let combined = box.combined else { throw CryptoKitError.incorrectParameterSize }
        return WrappedGroupKey(groupID: key.groupID, epoch: key.epoch, recipientDeviceID: recipientDeviceID,
                               sealed: (ephemeral.publicKey.rawRepresentation + combined).base64EncodedString())
    }

    /// Opens the key with the recipient's private agreement key.
    /// - Throws: `ChatClientError.rejectedMessage` when it is not for this key or was altered.
    public func unwrap(with agreementKey: Curve25519.KeyAgreement.PrivateKey) throws -> GroupKey {
        do {
            guard let bytes = Data(base64Encoded: sealed), bytes.count > 32 else { throw CryptoKitError.incorrectParameterSize }
            let ephemeral = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: bytes.prefix(32))
            let wrapping = try Self.wrappingKey(agreementKey.sharedSecretFromKeyAgreement(with: ephemeral),
                                                ephemeral: bytes.prefix(32), recipient: agreementKey.publicKey.rawRepresentation)
            let raw = try AES.GCM.open(try AES.GCM.SealedBox(combined: bytes.dropFirst(32)), using: wrapping,
                                       authenticating: Self.aad(group: groupID, epoch: epoch, device: recipientDeviceID))
            return GroupKey(groupID: groupID, epoch: epoch, key: SymmetricKey(data: raw))
        } catch {
            throw ChatClientError.rejectedMessage(localID: "key:\(groupID)#\(epoch)", reason: "the wrapped group key does not open on this device")
        }
    }

    private static func wrappingKey(_ secret: SharedSecret, ephemeral: Data, recipient: Data) -> SymmetricKey {
        secret.hkdfDerivedSymmetricKey(using: SHA256.self, salt: ephemeral + recipient,
                                       sharedInfo: Data("roqua-chat/group-key-wrap/v1".utf8), outputByteCount: 32)
    }

    private static func aad(group: String, epoch: Int, device: String) -> Data {
        LengthPrefixed.encode(["roqua-chat/wrapped-key/v1", group, String(epoch), device])
    }
}
