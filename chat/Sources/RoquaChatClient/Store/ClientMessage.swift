import Foundation
import RoquaChatCore
import RoquaIO

/// Where a message is on its way. Moves only forward (`pending → sent → delivered → read`);
/// `failed` is reachable from `pending` only (the server refused it) and goes back to
/// `pending` on an explicit retry.
public enum MessageStatus: String, Codable, Sendable, CaseIterable {
    case pending, sent, delivered, read, failed

    /// The order statuses move in; `failed` ranks with `pending`.
    var rank: Int {
        switch self {
        case .pending, .failed: 0
        case .sent: 1
        case .delivered: 2
        case .read: 3
        }
    }
}

/// A location message's body: where, and the address Roqua's resolver gave offline.
public struct LocationBody: Codable, Sendable, Equatable {
    /// Degrees north.
    public var latitude: Double
    /// Degrees east.
    public var longitude: Double
    /// "Kadıköy, İstanbul, Türkiye", or nil when the point lies outside every boundary.
    public var address: String?

    /// Creates the value from its parts.
    public init(latitude: Double, longitude: Double, address: String?) {
        self.latitude = latitude
        self.longitude = longitude
        self.address = address
    }
}

/// A message as this device holds it: decrypted body (when a key was held), wire fields for
/// pushing and relaying, and its sync state.
public struct ClientMessage: Codable, Sendable, Equatable {
    /// `local_id`: the author's own id (UUIDv7).
    public var localID: String
    /// The group.
    public var groupID: String
    /// The author.
    public var senderID: String
    /// The author's device.
    public var deviceID: String
    /// What it carries.
    public var type: MessageType
    /// The plaintext (text, or a `LocationBody` in JSON); nil when no key for its epoch is held.
    public var body: String?
    /// The author's device time.
    public var sentAt: Date
    /// The hybrid logical clock time it orders by.
    public var hlc: String
    /// The group key epoch of the body.
    public var keyEpoch: Int
    /// Where it is on its way.
    public var status: MessageStatus
    /// The server's sequence number, once the server holds it.
    public var seq: Int64?
    /// When the server confirmed (own messages) or handed it over (others').
    public var syncedAt: Date?
    /// Why the server refused it, for `failed`.
    public var failure: String?

    enum CodingKeys: String, CodingKey {
        case localID = "local_id"
        case groupID = "group_id"
        case senderID = "sender_id"
        case deviceID = "device_id"
        case type, body
        case sentAt = "sent_at"
        case hlc
        case keyEpoch = "key_epoch"
        case status, seq
        case syncedAt = "synced_at"
        case failure
    }

    /// The location, for location messages whose body was decrypted.
    public var location: LocationBody? {
        guard type == .location, let body else { return nil }
        return try? CheckedJSONDecoder().decode(LocationBody.self, from: Data(body.utf8))  // nil: not a location body
    }

    /// An image's or file's attachment, when the body is readable.
    public var attachment: AttachmentBody? {
        guard type == .image || type == .file, let body else { return nil }
        return try? CheckedJSONDecoder().decode(AttachmentBody.self, from: Data(body.utf8))  // nil: not an attachment body
    }
}
