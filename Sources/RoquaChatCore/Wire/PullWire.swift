import Foundation

/// A stored message as `GET /v1/sync/pull` returns it. `sent_at` is what the author's device
/// said (and signed); `order_at` is `sent_at` clamped to at most two minutes after the server
/// received it, for ordering; `seq` is the group's pull cursor.
public struct ChatMessage: Codable, Sendable, Equatable {
    public var serverID: String
    public var seq: Int64
    public var groupID: String
    public var senderID: String
    public var deviceID: String?
    public var localID: String
    public var type: MessageType
    public var content: String
    public var metadata: JSONValue?
    public var sentAt: Date
    public var orderAt: Date
    public var receivedAt: Date
    public var keyEpoch: Int?
    public var signature: String?

    public init(serverID: String, seq: Int64, groupID: String, senderID: String, deviceID: String?,
                localID: String, type: MessageType, content: String, metadata: JSONValue?, sentAt: Date,
                orderAt: Date, receivedAt: Date, keyEpoch: Int?, signature: String?) {
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
    public var groupID: String
    public var userID: String
    public var deliveredUpTo: Int64
    public var readUpTo: Int64
    public var updatedAt: Date

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
    public var messages: [ChatMessage]
    public var receipts: [ReceiptMark]
    public var nextSince: Int64
    public var hasMore: Bool

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
    public var groupID: String
    public var deliveredUpTo: Int64?
    public var readUpTo: Int64?

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
    public var receipts: [ReceiptUpdate]
    public init(receipts: [ReceiptUpdate]) { self.receipts = receipts }
}

/// The caller's marks after merging.
public struct ReceiptsResult: Codable, Sendable, Equatable {
    public var receipts: [ReceiptMark]
    public init(receipts: [ReceiptMark]) { self.receipts = receipts }
}

/// `PUT /v1/blobs/{sha256}`: whether the blob was new.
public struct BlobStored: Codable, Sendable, Equatable {
    public var sha256: String
    public var size: Int
    public var created: Bool

    public init(sha256: String, size: Int, created: Bool) {
        self.sha256 = sha256
        self.size = size
        self.created = created
    }
}
