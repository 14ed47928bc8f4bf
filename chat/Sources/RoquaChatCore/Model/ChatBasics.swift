/// What a message carries. The server treats `content` as opaque text (the client puts AES-GCM
/// ciphertext there); the type only tells clients how to show it.
public enum MessageType: String, Codable, Sendable, CaseIterable, Hashable {
    case text, image, location, file
    /// A signed group-log entry or join request (clients' end-to-end membership; never shown).
    case control
}

/// A user's role on the server. Guides create and manage their own groups; admins can do
/// everything; users join groups they are invited to.
public enum Role: String, Codable, Sendable, CaseIterable, Hashable {
    case user, guide, admin
}

/// A user's place in one group: the guide who created it, or a member.
public enum MemberRole: String, Codable, Sendable, Hashable {
    case guide, member
}

/// Limits both sides agree on, so that a client never builds what the server refuses.
public enum ChatLimits {
    /// Messages in one `POST /v1/sync/push`.
    public static let maxMessagesPerPush = 100
    /// UTF-8 bytes of one message's `content`.
    public static let maxContentBytes = 64 * 1024
    /// UTF-8 bytes of one message's `metadata`, in its canonical JSON form.
    public static let maxMetadataBytes = 8 * 1024
    /// Characters of a `local_id` or a `device_id`.
    public static let maxIdentifierLength = 64
    /// Characters of a group name.
    public static let maxGroupNameLength = 120
    /// Messages in one pull page, at most.
    public static let maxPullLimit = 500
    /// How far into the future a `sent_at` may lie before it is clamped for ordering.
    public static let futureSkewSeconds: Double = 120
}

/// Client-chosen identifiers (`local_id`, `device_id`): 1–64 characters of `A–Z a–z 0–9 - _ .`,
/// so that they are safe in keys, logs and file names. UUIDs (the client uses UUIDv7) qualify.
public enum ClientIdentifier {
    /// Whether `value` is an acceptable client identifier.
    public static func isValid(_ value: String) -> Bool {
        guard !value.isEmpty, value.utf8.count <= ChatLimits.maxIdentifierLength else { return false }
        return value.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                true
            default:
                false
            }
        }
    }
}
