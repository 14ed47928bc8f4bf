import Foundation

/// A stored message as `GET /v1/sync/pull` returns it. `sent_at` is what the author's device
/// said (and signed); `order_at` is `sent_at` clamped to at most two minutes after the server
/// received it, for ordering; `seq` is the group's pull cursor.
public struct ChatMessage: Codable, Sendable, Equatable {
    /// `server_id`: the server's id for the message.
    public var serverID: String
    /// The message's place in its group's sequence (the pull cursor).
    public var seq: Int64
    /// `group_id`: the group.
    public var groupID: String
    /// `sender_id`: the author.
    public var senderID: String
    /// `device_id`: the device.
    public var deviceID: String?
    /// `local_id`: the author's own id for the message (UUIDv7).
    public var localID: String
    /// What the message carries.
    public var type: MessageType
    /// The body; opaque to the server (ciphertext once end-to-end encryption is on).
    public var content: String
    /// Free JSON (a location's latitude, longitude and address), covered by the signature.
    public var metadata: JSONValue?
    /// `sent_at`: when the author's device says it was sent.
    public var sentAt: Date
    /// `order_at`: `sent_at` clamped to at most two minutes after `received_at`.
    public var orderAt: Date
    /// `received_at`: when the server first stored it.
    public var receivedAt: Date
    /// `key_epoch`: the group key epoch of an encrypted body.
    public var keyEpoch: Int?
    /// Base64 Ed25519 signature of the author's device, if signed.
    public var signature: String?

    /// Creates the value from its parts.
    public init(
        serverID: String, seq: Int64, groupID: String, senderID: String, deviceID: String?,
        localID: String, type: MessageType, content: String, metadata: JSONValue?, sentAt: Date,
        orderAt: Date, receivedAt: Date, keyEpoch: Int?, signature: String?
    ) {
        self.serverID = serverID
        self.seq = seq
        self.groupID = groupID
        self.senderID = senderID
        self.deviceID = deviceID
        self.localID = localID
        self.type = type
        self.content = content
        self.metadata = metadata
        self.sentAt = sentAt
        self.orderAt = orderAt
        self.receivedAt = receivedAt
        self.keyEpoch = keyEpoch
        self.signature = signature
    }

    enum CodingKeys: String, CodingKey {
        case serverID = "server_id"
        case seq
        case groupID = "group_id"
        case senderID = "sender_id"
        case deviceID = "device_id"
        case localID = "local_id"
        case type, content, metadata
        case sentAt = "sent_at"
        case orderAt = "order_at"
        case receivedAt = "received_at"
        case keyEpoch = "key_epoch"
        case signature
    }
}

/// A member's receipt marks in one group: every message with `seq` ≤ the mark was delivered to
/// (read by) one of their devices. Marks only grow.
public struct ReceiptMark: Codable, Sendable, Equatable {
    /// `group_id`: the group.
    public var groupID: String
    /// `user_id`: the user.
    public var userID: String
    /// `delivered_up_to`: every message with `seq` up to this reached a device.
    public var deliveredUpTo: Int64
    /// `read_up_to`: every message with `seq` up to this was read.
    public var readUpTo: Int64
    /// When a mark last grew.
    public var updatedAt: Date

    /// Creates the value from its parts.
    public init(groupID: String, userID: String, deliveredUpTo: Int64, readUpTo: Int64, updatedAt: Date) {
        self.groupID = groupID
        self.userID = userID
        self.deliveredUpTo = deliveredUpTo
        self.readUpTo = readUpTo
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case groupID = "group_id"
        case userID = "user_id"
        case deliveredUpTo = "delivered_up_to"
        case readUpTo = "read_up_to"
        case updatedAt = "updated_at"
    }
}

/// `GET /v1/sync/pull?group=ID&since=SEQ[&limit=N]`: messages with `seq` > `since` in order.
/// Ask again with `since = next_since` while `has_more`.
public struct PullResult: Codable, Sendable, Equatable {
    /// The messages.
    public var messages: [ChatMessage]
    /// Receipt marks.
    public var receipts: [ReceiptMark]
    /// `next_since`: the cursor for the next pull.
    public var nextSince: Int64
    /// `has_more`: another page is waiting.
    public var hasMore: Bool

    /// Creates the value from its parts.
    public init(messages: [ChatMessage], receipts: [ReceiptMark], nextSince: Int64, hasMore: Bool) {
        self.messages = messages
        self.receipts = receipts
        self.nextSince = nextSince
        self.hasMore = hasMore
    }

    enum CodingKeys: String, CodingKey {
        case messages, receipts
        case nextSince = "next_since"
        case hasMore = "has_more"
    }
}

/// One group's marks in `POST /v1/receipts`; a missing mark leaves it as it is.
public struct ReceiptUpdate: Codable, Sendable, Equatable {
    /// `group_id`: the group.
    public var groupID: String
    /// `delivered_up_to`: every message with `seq` up to this reached a device.
    public var deliveredUpTo: Int64?
    /// `read_up_to`: every message with `seq` up to this was read.
    public var readUpTo: Int64?

    /// Creates the value from its parts.
    public init(groupID: String, deliveredUpTo: Int64? = nil, readUpTo: Int64? = nil) {
        self.groupID = groupID
        self.deliveredUpTo = deliveredUpTo
        self.readUpTo = readUpTo
    }

    enum CodingKeys: String, CodingKey {
        case groupID = "group_id"
        case deliveredUpTo = "delivered_up_to"
        case readUpTo = "read_up_to"
    }
}

/// The body of `POST /v1/receipts`, and (with the merged marks) its answer.
public struct ReceiptsBody: Codable, Sendable, Equatable {
    /// Receipt marks.
    public var receipts: [ReceiptUpdate]
    /// Creates the value from its parts.
    public init(receipts: [ReceiptUpdate]) { self.receipts = receipts }
}

/// The caller's marks after merging.
public struct ReceiptsResult: Codable, Sendable, Equatable {
    /// Receipt marks.
    public var receipts: [ReceiptMark]
    /// Creates the value from its parts.
    public init(receipts: [ReceiptMark]) { self.receipts = receipts }
}

/// `PUT /v1/blobs/{sha256}`: whether the blob was new.
public struct BlobStored: Codable, Sendable, Equatable {
    /// The blob's SHA-256 (lower-case hex).
    public var sha256: String
    /// Bytes stored.
    public var size: Int
    /// Whether the blob was new.
    public var created: Bool

    /// Creates the value from its parts.
    public init(sha256: String, size: Int, created: Bool) {
        self.sha256 = sha256
        self.size = size
        self.created = created
    }
}
