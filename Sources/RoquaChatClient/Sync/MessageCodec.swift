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
    func outgoing(type: MessageType, body: String, key: GroupKey, senderID: String, counter: Int64, now: Date) throws -> StoredRecord {
        let localID = UUIDv7.make(at: now)
        let hlc = clock.now()
        let content = try GroupCipher.seal(Data(body.utf8), key: key, senderID: senderID, localID: localID, type: type)
        var wire = PushMessage(localID: localID, groupID: key.groupID, type: type, content: content, sentAt: ChatTime.rounded(now),
                               metadata: .object(["hlc": .string(hlc.description), "n": .number(Double(counter))]), senderID: senderID,
                               deviceID: identity.deviceID, keyEpoch: key.epoch)
        wire.signature = try DeviceSignature.sign(try MessageSigningFields(wire, senderID: senderID), with: identity.signingKey)
        return StoredRecord(wire: wire, senderID: senderID, body: body, hlc: hlc, status: .pending)
    }

    /// The record of a message pulled from the server; the body stays nil when this device
    /// holds no key for its epoch or the body does not open.
    func incoming(_ message: ChatMessage, key: GroupKey?) -> StoredRecord {
        let wire = PushMessage(localID: message.localID, groupID: message.groupID, type: message.type, content: message.content,
                               sentAt: message.sentAt, metadata: message.metadata, senderID: message.senderID,
                               deviceID: message.deviceID, keyEpoch: message.keyEpoch, signature: message.signature)
        var record = received(wire, senderID: message.senderID, key: key)
        record.status = .sent
        record.serverID = message.serverID
        record.seq = message.seq
        record.syncedAt = message.receivedAt
        return record
    }

    /// The record of a verified message from the server or a peer (then still `pending`: any
    /// member may upload it).
    func received(_ wire: PushMessage, senderID: String, key: GroupKey?) -> StoredRecord {
        let hlc = wire.metadata?["hlc"]?.stringValue.flatMap(HLCTimestamp.init)
            ?? HLCTimestamp(wall: ChatTime.milliseconds(wire.sentAt), counter: 0)
        clock.receive(hlc)
        // A body that does not open is kept without plaintext: it still counts as held (it is
        // the author's signed message) but shows as unreadable.
        let body = key.flatMap { key in
            try? GroupCipher.open(wire.content, key: key, senderID: senderID, localID: wire.localID, type: wire.type)
        }.map { String(decoding: $0, as: UTF8.self) }
        return StoredRecord(wire: wire, senderID: senderID, body: body, hlc: hlc, status: .pending)
    }
}
