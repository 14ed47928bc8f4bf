import Crypto
import Foundation
import RoquaChatCore

/// Epoch secrets and the keys derived from them (swift-crypto only). A `rekey` entry carries a
/// new random 32-byte epoch secret sealed with HPKE (X25519, HKDF-SHA256, ChaCha20-Poly1305,
/// RFC 9180 base mode) to each member device's X25519 key, with `info` naming the group, the
/// epoch and the device. A device that opens it derives, for every member device `d`, a sender
/// chain key `C(d,0)`, and the epoch's LAN key; then it forgets the secret. Message `i` of `d`
/// uses `K(i) = HKDF(C(d,i), "message")` and `C(d,i+1) = HKDF(C(d,i), "chain")`; each used step is
/// deleted, so the store never holds what opened an earlier message (forward secrecy).
enum EpochCrypto {
    static let suite = HPKE.Ciphersuite.Curve25519_SHA256_ChachaPoly

    static func info(group: String, epoch: Int, device: String) -> Data {
        SignedBytes.encode(["roqua-chat/epoch-secret/v1", group, String(epoch), device])
    }

    /// A fresh epoch secret.
    static func newSecret() -> SymmetricKey { SymmetricKey(size: .bits256) }

    /// `secret` sealed to `record`'s X25519 key: base64 of the encapsulated key ‖ ciphertext.
    /// - Throws: `invalidInput` when the record carries no X25519 key; `CryptoKitError`.
    static func seal(_ secret: SymmetricKey, to record: SignedDeviceRecord, group: String, epoch: Int) throws -> String {
        guard let key = record.agreementKey else {
            throw ChatClientError.invalidInput(field: "device", value: record.record.deviceID, reason: "its record carries no X25519 key")
        }
        var sender = try HPKE.Sender(
            recipientKey: key, ciphersuite: suite, info: info(group: group, epoch: epoch, device: record.record.deviceID))
        let sealed = try secret.withUnsafeBytes { try sender.seal(Data($0)) }
        return (sender.encapsulatedKey + sealed).base64EncodedString()
    }

    /// Opens an epoch secret sealed to this device.
    /// - Throws: `rejectedMessage` when it is not for this device or was altered.
    static func open(
        _ sealed: String, with key: Curve25519.KeyAgreement.PrivateKey, group: String, epoch: Int, device: String
    ) throws -> SymmetricKey {
        do {
            guard let bytes = Data(base64Encoded: sealed), bytes.count > 32 + 16 else { throw CryptoKitError.incorrectParameterSize }
            var recipient = try HPKE.Recipient(
                privateKey: key, ciphersuite: suite, info: info(group: group, epoch: epoch, device: device),
                encapsulatedKey: bytes.prefix(32))
            let secret = try recipient.open(bytes.dropFirst(32))
            guard secret.count == 32 else { throw CryptoKitError.incorrectKeySize }
            return SymmetricKey(data: secret)
        } catch {
            throw ChatClientError.rejectedMessage(
                localID: "epoch:\(group)#\(epoch)", reason: "the epoch secret does not open on this device")
        }
    }

    static func derive(_ key: SymmetricKey, _ parts: [String]) -> Data {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: key, info: SignedBytes.encode(parts), outputByteCount: 32).withUnsafeBytes { Data($0) }
    }

    /// `C(d,0)`: the first chain key of `device` in the epoch.
    static func senderChain(_ secret: SymmetricKey, group: String, epoch: Int, device: String) -> Data {
        derive(secret, ["roqua-chat/sender-chain/v1", group, String(epoch), device])
    }

    /// The epoch's key for LAN beacons and peer handshakes.
    static func lanKey(_ secret: SymmetricKey, group: String, epoch: Int) -> Data {
        derive(secret, ["roqua-chat/lan/v1", group, String(epoch)])
    }

    /// One step of a sender chain: the message key of this step and the next chain key.
    static func step(_ chain: Data) -> (message: Data, next: Data) {
        let key = SymmetricKey(data: chain)
        return (derive(key, ["roqua-chat/message-key/v1"]), derive(key, ["roqua-chat/chain-key/v1"]))
    }
}

/// Where a message sits in its author's sender chain, and everything that identifies it: the
/// associated data of its body.
struct BodyContext: Sendable {
    var groupID: String
    var epoch: Int
    var senderID: String
    var deviceID: String
    var chainIndex: Int64
    var localID: String
    var type: MessageType
    var sentAtMilliseconds: Int64

    var associatedData: Data {
        SignedBytes.encode([
            "roqua-chat/body/v2", groupID, String(epoch), senderID, deviceID, String(chainIndex), localID,
            type.rawValue, String(sentAtMilliseconds),
        ])
    }
}

/// Message bodies: ChaCha20-Poly1305 under the message's own key from its author's sender chain,
/// with `BodyContext` as associated data, so a body cannot be moved to another message, author,
/// position or epoch without failing to open. The wire form is base64 of nonce ‖ ciphertext ‖ tag,
/// which the author's Ed25519 signature then covers.
enum BodyCipher {
    /// - Throws: `CryptoKitError`.
    static func seal(_ plaintext: Data, key: Data, context: BodyContext) throws -> String {
        try ChaChaPoly.seal(plaintext, using: SymmetricKey(data: key), authenticating: context.associatedData).combined
            .base64EncodedString()
    }

    /// - Throws: `ChatClientError.rejectedMessage` when the body is not base64 or does not open.
    static func open(_ content: String, key: Data, context: BodyContext) throws -> Data {
        do {
            guard let combined = Data(base64Encoded: content) else { throw CryptoKitError.incorrectParameterSize }
            return try ChaChaPoly.open(
                try ChaChaPoly.SealedBox(combined: combined), using: SymmetricKey(data: key),
                authenticating: context.associatedData)
        } catch {
            throw ChatClientError.rejectedMessage(localID: context.localID, reason: "the body does not decrypt with its message key")
        }
    }
}
