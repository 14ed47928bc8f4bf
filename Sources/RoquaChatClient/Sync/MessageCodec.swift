import Crypto
import Foundation
import RoquaChatCore

/// Builds this device's signed, encrypted messages and reads everyone's: the body is sealed
/// under the group key (`GroupCipher`), the hybrid logical clock time travels in `metadata`, and
/// the author's Ed25519 signature covers the envelope (ciphertext, epoch, metadata, ids).
struct MessageCodec: Sendable {
    let identity: DeviceIdentity
    let clock: HybridLogicalClock

    /// A new outgoing message of `senderID` in `key`'s group, signed and sealed.
    /// - Throws: `CryptoKitError`, `EncodingError`.
    func outgoing(type: MessageType, body: String, key: GroupKey, senderID: String, now: Date) throws -> StoredRecord {
        let localID = UUIDv7.make(at: now)
        let hlc = clock.now()
        let content = try GroupCipher.seal(Data(body.utf8), key: key, senderID: senderID, localID: localID, type: type)
        var wire = PushMessage(localID: localID, groupID: key.groupID, type: type, content: content, sentAt: ChatTime.rounded(now),
                               metadata: .object(["hlc": .string(hlc.description)]), senderID: senderID,
                               deviceID: identity.deviceID, keyEpoch: key.epoch)
        wire.signature = try DeviceSignature.sign(try MessageSigningFields(wire, senderID: senderID), with: identity.signingKey)
        return StoredRecord(wire: wire, senderID: senderID, body: body, hlc: hlc, status: .pending)
    }

    /// The record of a message pulled from the server; the body stays nil when this device
    /// holds no key for its epoch or the body does not open.
    func incoming(_ message: ChatMessage, key: GroupKey?) -> StoredRecord {
        let hlc = message.metadata?["hlc"]?.stringValue.flatMap(HLCTimestamp.init)
            ?? HLCTimestamp(wall: ChatTime.milliseconds(message.sentAt), counter: 0)
        clock.receive(hlc)
        // A body that does not open is kept without plaintext: it still counts as held (it is
        // the author's signed message as the server stored it) but shows as unreadable.
        let body = key.flatMap { key in
            try? GroupCipher.open(message.content, key: key, senderID: message.senderID, localID: message.localID, type: message.type)
        }.map { String(decoding: $0, as: UTF8.self) }
        let wire = PushMessage(localID: message.localID, groupID: message.groupID, type: message.type, content: message.content,
                               sentAt: message.sentAt, metadata: message.metadata, senderID: message.senderID,
                               deviceID: message.deviceID, keyEpoch: message.keyEpoch, signature: message.signature)
        return StoredRecord(wire: wire, senderID: message.senderID, body: body, hlc: hlc, status: .sent,
                            serverID: message.serverID, seq: message.seq, syncedAt: message.receivedAt)
    }
}
