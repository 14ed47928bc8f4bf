import Crypto
import Foundation
import RoquaChatCore

/// Builds this device's signed, encrypted messages: the body is sealed under the next key of
/// this device's sender chain (`BodyCipher`), the hybrid logical clock time, the device counter
/// `n` and the chain index `ci` travel in `metadata`, and the device's Ed25519 signature covers
/// the whole envelope (ids, time, epoch, metadata, ciphertext).
struct MessageCodec: Sendable {
    let identity: DeviceIdentity
    let clock: HybridLogicalClock

    /// A new outgoing message sealed with `key`, message `index` of this device's chain in `epoch`.
    /// - Throws: `CryptoKitError`, `EncodingError`.
    /// `blobs`: the digests of the sealed blobs an image or file message refers to, in the signed
    /// metadata (they are ciphertext digests), so the server can let this group's members, and
    /// only them, fetch the blobs.
    func outgoing(
        type: MessageType, body: String, groupID: String, epoch: Int, index: Int64, key: Data, senderID: String,
        counter: Int64, now: Date, blobs: [String] = []
    ) throws -> StoredRecord {
        let localID = UUIDv7.make(at: now)
        let sentAt = ChatTime.rounded(now)
        let context = BodyContext(
            groupID: groupID, epoch: epoch, senderID: senderID, deviceID: identity.deviceID, chainIndex: index,
            localID: localID, type: type, sentAtMilliseconds: ChatTime.milliseconds(sentAt))
        let content = try BodyCipher.seal(Data(body.utf8), key: key, context: context)
        var extra: [String: JSONValue] = ["ci": .number(Double(index))]
        if !blobs.isEmpty { extra["blobs"] = .array(blobs.map(JSONValue.string)) }
        return try signed(
            type: type, content: content, groupID: groupID, epoch: epoch, extra: extra,
            localID: localID, sentAt: sentAt, senderID: senderID, counter: counter, body: body)
    }

    /// A control message carrying a signed statement (in the clear: the server relays and orders it).
    /// - Throws: `CryptoKitError`, `EncodingError`.
    func control(_ statement: SignedStatement, groupID: String, senderID: String, counter: Int64, now: Date) throws -> StoredRecord {
        try signed(
            type: .control, content: try statement.content(), groupID: groupID, epoch: nil, extra: [:], localID: UUIDv7.make(at: now),
            sentAt: ChatTime.rounded(now), senderID: senderID, counter: counter, body: nil)
    }

    private func signed(
        type: MessageType, content: String, groupID: String, epoch: Int?, extra: [String: JSONValue], localID: String,
        sentAt: Date, senderID: String, counter: Int64, body: String?
    ) throws -> StoredRecord {
        let hlc = clock.now()
        var metadata: [String: JSONValue] = ["hlc": .string(hlc.description), "n": .number(Double(counter))]
        metadata.merge(extra) { $1 }
        var wire = PushMessage(
            localID: localID, groupID: groupID, type: type, content: content, sentAt: sentAt,
            metadata: .object(metadata), senderID: senderID, deviceID: identity.deviceID, keyEpoch: epoch)
        wire.signature = try DeviceSignature.sign(try MessageSigningFields(wire, senderID: senderID), with: identity.signingKey)
        return StoredRecord(wire: wire, senderID: senderID, body: body, hlc: hlc, status: .pending)
    }

    /// The record of a verified message from the server or a peer (then still `pending`: any
    /// member may upload it), its body still closed.
    func received(_ wire: PushMessage, senderID: String) -> StoredRecord {
        let hlc =
            wire.metadata?["hlc"]?.stringValue.flatMap(HLCTimestamp.init)
            ?? HLCTimestamp(wall: ChatTime.milliseconds(wire.sentAt), counter: 0)
        clock.receive(hlc)
        return StoredRecord(wire: wire, senderID: senderID, body: nil, hlc: hlc, status: .pending)
    }
}
