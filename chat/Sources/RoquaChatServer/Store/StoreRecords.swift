import Foundation
import RoquaChatCore

/// A user row.
package struct UserRecord: Sendable, Equatable {
    package var id: String
    package var phone: PhoneNumber
    package var role: Role
    package var createdAt: Date
    /// The name the user gave themselves (`DisplayName`), if any.
    package var displayName: String?

    package init(id: String, phone: PhoneNumber, role: Role, createdAt: Date, displayName: String? = nil) {
        self.id = id
        self.phone = phone
        self.role = role
        self.createdAt = createdAt
        self.displayName = displayName
    }

    package var info: UserInfo { UserInfo(id: id, phone: phone, role: role, displayName: displayName) }
}

/// One device of one user (whose Ed25519 key, when registered, signs its messages).
package struct DeviceRef: Sendable, Hashable {
    package var userID: String
    package var deviceID: String

    package init(userID: String, deviceID: String) {
        self.userID = userID
        self.deviceID = deviceID
    }
}

/// One sign-in family: the chain of refresh tokens that descends from one code verification.
package struct RefreshFamilyRecord: Sendable, Equatable {
    package var id: String
    package var userID: String
    package var deviceID: String
    package var createdAt: Date
    package var revokedAt: Date?

    package init(id: String, userID: String, deviceID: String, createdAt: Date, revokedAt: Date? = nil) {
        self.id = id
        self.userID = userID
        self.deviceID = deviceID
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}

/// A refresh token, known only by its SHA-256.
package struct RefreshTokenRecord: Sendable, Equatable {
    package var tokenHash: String
    package var familyID: String
    package var issuedAt: Date
    package var expiresAt: Date
    package var usedAt: Date?

    package init(tokenHash: String, familyID: String, issuedAt: Date, expiresAt: Date, usedAt: Date? = nil) {
        self.tokenHash = tokenHash
        self.familyID = familyID
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.usedAt = usedAt
    }
}

/// A tour group.
package struct GroupRecord: Sendable, Equatable {
    package var id: String
    package var name: String
    package var guideID: String
    package var startDate: CalendarDay?
    package var endDate: CalendarDay?
    package var createdAt: Date
    /// The newest message's sequence number (0 when none).
    package var lastSeq: Int64

    package init(
        id: String, name: String, guideID: String, startDate: CalendarDay?, endDate: CalendarDay?,
        createdAt: Date, lastSeq: Int64 = 0
    ) {
        self.id = id
        self.name = name
        self.guideID = guideID
        self.startDate = startDate
        self.endDate = endDate
        self.createdAt = createdAt
        self.lastSeq = lastSeq
    }
}

/// A user's membership of a group. A member sees the messages with
/// `visibleAfterSeq < seq ≤ removedAtSeq` (no upper bound while active): a removed member gets
/// nothing sent after the removal, and someone who rejoins gets nothing from the gap.
package struct MembershipRecord: Sendable, Equatable {
    package var groupID: String
    package var userID: String
    package var role: MemberRole
    package var joinedAt: Date
    package var visibleAfterSeq: Int64
    package var removedAt: Date?
    package var removedAtSeq: Int64?

    package init(
        groupID: String, userID: String, role: MemberRole, joinedAt: Date, visibleAfterSeq: Int64 = 0,
        removedAt: Date? = nil, removedAtSeq: Int64? = nil
    ) {
        self.groupID = groupID
        self.userID = userID
        self.role = role
        self.joinedAt = joinedAt
        self.visibleAfterSeq = visibleAfterSeq
        self.removedAt = removedAt
        self.removedAtSeq = removedAtSeq
    }

    package var isActive: Bool { removedAt == nil }
}

/// A membership with the member's phone and display name, for group details.
package struct MemberRow: Sendable, Equatable {
    package var membership: MembershipRecord
    package var phone: PhoneNumber
    package var displayName: String?

    package init(membership: MembershipRecord, phone: PhoneNumber, displayName: String? = nil) {
        self.membership = membership
        self.phone = phone
        self.displayName = displayName
    }
}

/// An invitation, known only by the SHA-256 of its code.
package struct InviteRecord: Sendable, Equatable {
    package var codeHash: String
    package var groupID: String
    package var phone: PhoneNumber
    package var createdBy: String
    package var createdAt: Date
    package var expiresAt: Date
    package var acceptedAt: Date?
    package var acceptedBy: String?

    package init(
        codeHash: String, groupID: String, phone: PhoneNumber, createdBy: String, createdAt: Date,
        expiresAt: Date, acceptedAt: Date? = nil, acceptedBy: String? = nil
    ) {
        self.codeHash = codeHash
        self.groupID = groupID
        self.phone = phone
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.acceptedAt = acceptedAt
        self.acceptedBy = acceptedBy
    }
}

/// A stored message and its conflict digest (`MessageSigningFields.digest`).
package struct StoredMessage: Sendable, Equatable {
    package var message: ChatMessage
    package var digest: Data

    package init(message: ChatMessage, digest: Data) {
        self.message = message
        self.digest = digest
    }
}

/// What idempotency needs to know about a message already stored under (author, `local_id`).
package struct ExistingMessage: Sendable, Equatable {
    package var groupID: String
    package var serverID: String
    package var seq: Int64
    package var digest: Data

    package init(groupID: String, serverID: String, seq: Int64, digest: Data) {
        self.groupID = groupID
        self.serverID = serverID
        self.seq = seq
        self.digest = digest
    }
}

/// The key of a message for idempotency.
package struct AuthorLocalID: Sendable, Hashable {
    package var authorID: String
    package var localID: String

    package init(authorID: String, localID: String) {
        self.authorID = authorID
        self.localID = localID
    }
}

/// The key of a membership.
package struct MembershipKey: Sendable, Hashable {
    package var groupID: String
    package var userID: String

    package init(groupID: String, userID: String) {
        self.groupID = groupID
        self.userID = userID
    }
}

/// What storing a blob did.
package enum BlobPutOutcome: Sendable, Equatable {
    case created
    case existed
    /// Not stored: the uploader already holds `used` bytes of blobs.
    case overQuota(used: Int64)
}
