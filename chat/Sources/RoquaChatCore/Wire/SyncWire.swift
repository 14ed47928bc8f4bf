import Foundation

/// One message in `POST /v1/sync/push`. Idempotent forever on (author, `local_id`), where the
/// author is `sender_id` when given (a member relaying someone else's message; then
/// `device_id` and `signature` are required) and otherwise the signed-in user.
public struct PushMessage: Codable, Sendable, Equatable {
    /// `local_id`: the author's own id for the message (UUIDv7).
    public var localID: String
    /// `group_id`: the group.
    public var groupID: String
    /// What the message carries.
    public var type: MessageType
    /// The body; opaque to the server (ciphertext once end-to-end encryption is on).
    public var content: String
    /// `sent_at`: when the author's device says it was sent.
    public var sentAt: Date
    /// Free JSON (a location's latitude, longitude and address), covered by the signature.
    public var metadata: JSONValue?
    /// The author, when not the uploader (relayed messages).
    public var senderID: String?
    /// The author's device; with a registered key, `signature` is checked against it.
    public var deviceID: String?
    /// The group key epoch `content` is encrypted under (end-to-end encryption); opaque to the server.
    public var keyEpoch: Int?
    /// Base64 Ed25519 signature over `MessageSigning.payload(...)`.
    public var signature: String?

    /// Creates the value from its parts.
    public init(
        localID: String, groupID: String, type: MessageType, content: String, sentAt: Date,
        metadata: JSONValue? = nil, senderID: String? = nil, deviceID: String? = nil,
        keyEpoch: Int? = nil, signature: String? = nil
    ) {
        self.localID = localID
        self.groupID = groupID
        self.type = type
        self.content = content
        self.sentAt = sentAt
        self.metadata = metadata
        self.senderID = senderID
        self.deviceID = deviceID
        self.keyEpoch = keyEpoch
        self.signature = signature
    }

    enum CodingKeys: String, CodingKey {
        case localID = "local_id"
        case groupID = "group_id"
        case type, content
        case sentAt = "sent_at"
        case metadata
        case senderID = "sender_id"
        case deviceID = "device_id"
        case keyEpoch = "key_epoch"
        case signature
    }
}

/// The body of `POST /v1/sync/push` (at most `ChatLimits.maxMessagesPerPush` messages).
public struct PushBody: Codable, Sendable, Equatable {
    /// The messages.
    public var messages: [PushMessage]
    /// Creates the value from its parts.
    public init(messages: [PushMessage]) { self.messages = messages }
}

/// A message the server holds: its id and its place in the group's sequence.
public struct SyncedMessage: Codable, Sendable, Equatable, Hashable {
    /// `local_id`: the author's own id for the message (UUIDv7).
    public var localID: String
    /// `server_id`: the server's id for the message.
    public var serverID: String
    /// The message's place in its group's sequence (the pull cursor).
    public var seq: Int64

    /// Creates the value from its parts.
    public init(localID: String, serverID: String, seq: Int64) {
        self.localID = localID
        self.serverID = serverID
        self.seq = seq
    }

    enum CodingKeys: String, CodingKey {
        case localID = "local_id"
        case serverID = "server_id"
        case seq
    }
}

/// Why the server refused one message of a push (the others are unaffected).
public enum RejectionReason: String, Codable, Sendable, Equatable, CaseIterable {
    /// The same (author, `local_id`) was stored before with different content.
    case conflict
    case groupNotFound = "group_not_found"
    /// The uploader (or the author of a relayed message) may not post in this group.
    case notAMember = "not_a_member"
    case invalidLocalID = "invalid_local_id"
    case invalidDeviceID = "invalid_device_id"
    case contentTooLarge = "content_too_large"
    case metadataTooLarge = "metadata_too_large"
    /// A relayed message without `device_id` and `signature`.
    case signatureRequired = "signature_required"
    /// The signature does not match the author's registered device key.
    case badSignature = "bad_signature"
    /// The author's device has no registered key to check a signature against.
    case unknownDevice = "unknown_device"
    /// `metadata.blobs` is not a list of at most 16 SHA-256 digests (lower-case hex).
    case invalidAttachment = "invalid_attachment"
    /// `sent_at` lies before the author's account existed (by more than a day) or more than
    /// 5 minutes ahead of the server's clock; being signed, it cannot be corrected, only refused.
    case sentAtOutOfRange = "sent_at_out_of_range"
    /// The group's attachments would exceed the server's per-group quota.
    case quotaExceeded = "quota_exceeded"
}

/// One refused message.
public struct RejectedMessage: Codable, Sendable, Equatable {
    /// `local_id`: the author's own id for the message (UUIDv7).
    public var localID: String
    /// Why it was refused.
    public var reason: RejectionReason

    /// Creates the value from its parts.
    public init(localID: String, reason: RejectionReason) {
        self.localID = localID
        self.reason = reason
    }

    enum CodingKeys: String, CodingKey {
        case localID = "local_id"
        case reason
    }
}

/// The answer to a push; a replayed message appears in `synced` exactly as the first time.
public struct PushResult: Codable, Sendable, Equatable {
    /// Messages the server holds (new or replayed).
    public var synced: [SyncedMessage]
    /// Messages refused, with why.
    public var rejected: [RejectedMessage]
    /// `sync_time`: the server's time of this push.
    public var syncTime: Date

    /// Creates the value from its parts.
    public init(synced: [SyncedMessage], rejected: [RejectedMessage], syncTime: Date) {
        self.synced = synced
        self.rejected = rejected
        self.syncTime = syncTime
    }

    enum CodingKeys: String, CodingKey {
        case synced, rejected
        case syncTime = "sync_time"
    }
}
