import Crypto
import Foundation
import RoquaChatCore

/// One epoch of a group's symmetric key (AES-256). A new epoch starts whenever a member leaves.
public struct GroupKey: Sendable {
    /// The group.
    public let groupID: String
    /// Starts at 1; grows by one per rotation.
    public let epoch: Int
    /// The 256-bit key.
    public let key: SymmetricKey

    /// Creates the value from its parts.
    public init(groupID: String, epoch: Int, key: SymmetricKey) {
        self.groupID = groupID
        self.epoch = epoch
        self.key = key
    }

    /// A fresh random key for `epoch`.
    public static func random(groupID: String, epoch: Int) -> GroupKey {
        GroupKey(groupID: groupID, epoch: epoch, key: SymmetricKey(size: .bits256))
    }

    /// The raw key bytes (for the local store only).
    var rawBytes: Data { key.withUnsafeBytes { Data($0) } }
}

/// Message bodies: AES-256-GCM under the group key. The associated data binds the group, the
/// author, the message id, the key epoch and the type, so a body cannot be moved to another
/// message, group or epoch without failing to open. The wire form is base64 of nonce ‖
/// ciphertext ‖ tag, which the author's Ed25519 signature then covers.
enum GroupCipher {
    static func associatedData(groupID: String, senderID: String, localID: String, epoch: Int, type: MessageType) -> Data {
        LengthPrefixed.encode(["roqua-chat/body/v1", groupID, senderID, localID, String(epoch), type.rawValue])
    }

    /// - Throws: `CryptoKitError` if sealing fails.
    static func seal(_ plaintext: Data, key: GroupKey, senderID: String, localID: String, type: MessageType) throws -> String {
        let aad = associatedData(groupID: key.groupID, senderID: senderID, localID: localID, epoch: key.epoch, type: type)
        let box = try AES.GCM.seal(plaintext, using: key.key, authenticating: aad)
        guard let combined = box.combined else { throw CryptoKitError.incorrectParameterSize }
        return combined.base64EncodedString()
    }

    /// - Throws: `ChatClientError.rejectedMessage` when the body is not base64 or does not open.
    static func open(_ content: String, key: GroupKey, senderID: String, localID: String, type: MessageType) throws -> Data {
        let aad = associatedData(groupID: key.groupID, senderID: senderID, localID: localID, epoch: key.epoch, type: type)
        do {
            guard let combined = Data(base64Encoded: content) else {
                throw ChatClientError.rejectedMessage(localID: localID, reason: "the body is not base64")
            }
            return try AES.GCM.open(try AES.GCM.SealedBox(combined: combined), using: key.key, authenticating: aad)
        } catch let error as ChatClientError {
            throw error
        } catch {
            throw ChatClientError.rejectedMessage(localID: localID, reason: "the body does not decrypt under epoch \(key.epoch): \(error)")
        }
    }
}

/// Unambiguous concatenation: each part as a 4-byte big-endian length and its UTF-8 bytes.
enum LengthPrefixed {
    static func encode(_ parts: [String]) -> Data {
        var data = Data()
        for part in parts {
            let bytes = Array(part.utf8)
            let count = UInt32(bytes.count)
            data.append(contentsOf: [UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)])
            data.append(contentsOf: bytes)
        }
        return data
    }
}
