import Foundation
import RoquaChatCore

/// The server's storage. Two implementations (SQLite through GRDB here, PostgreSQL in
/// `RoquaChatPostgres`) behave the same: each operation that reads and then writes runs in one
/// transaction and applies the same pure rules (`OTPRules`, `RefreshRules`, `InviteRules`,
/// `PushPlanner`), so several server processes may share one PostgreSQL database.
package protocol ChatStore: Sendable {
    // MARK: Users and devices

    func user(id: String) async throws -> UserRecord?
    func user(phone: PhoneNumber) async throws -> UserRecord?
    /// The user with this phone (created with role `user` on first sign-in) after registering
    /// the device, replacing its public key when one is given.
    func signIn(phone: PhoneNumber, deviceID: String, publicKey: Data?, now: Date) async throws -> UserRecord
    /// Sets the role of the user with this phone, creating the user if needed (bootstrapping).
    func setRole(phone: PhoneNumber, role: Role, now: Date) async throws -> UserRecord
    /// Sets the role of an existing user; nil when there is none.
    func setRole(userID: String, role: Role) async throws -> UserRecord?
    /// Sets (nil: removes) the display name of an existing user, already checked against
    /// `DisplayName`'s rules; nil when there is no such user.
    func setDisplayName(userID: String, name: String?) async throws -> UserRecord?
    /// The registered public keys of these devices (absent: none registered).
    func deviceKeys(_ devices: Set<DeviceRef>) async throws -> [DeviceRef: Data]

    // MARK: Sign-in codes

    /// Runs `body` on the phone's code state (empty when none) and stores the result, in one transaction.
    func updateOTP<Result: Sendable>(phone: PhoneNumber, _ body: @escaping @Sendable (inout OTPState) -> Result) async throws -> Result

    // MARK: Refresh tokens

    func createRefreshFamily(_ family: RefreshFamilyRecord, firstToken: RefreshTokenRecord) async throws
    /// Looks up the presented token, its family and its successor, applies
    /// `RefreshRules.decide`, and stores what it says: on `.rotate` the token is marked used and
    /// the successor stored (same family, valid for `settings.refreshTokenLifetime`); on
    /// `.reused` the family is revoked.
    func rotateRefreshToken(
        presentedHash: String, successorHash: String, now: Date,
        settings: ChatSettings
    ) async throws -> RefreshDecision
    /// The sign-in (family) this token belongs to.
    func refreshFamily(tokenHash: String) async throws -> RefreshFamilyRecord?
    func refreshFamily(id: String) async throws -> RefreshFamilyRecord?
    /// Revokes the family of this token (sign-out) and returns it; nil when the token is unknown.
    func revokeRefreshFamily(tokenHash: String, now: Date) async throws -> RefreshFamilyRecord?
    /// Revokes every sign-in of the user ("log out all devices"); the ids of those it ended.
    func revokeRefreshFamilies(userID: String, now: Date) async throws -> [String]

    // MARK: Groups and invites

    /// Stores a new group and its guide's membership.
    func createGroup(_ group: GroupRecord, guideMembership: MembershipRecord) async throws
    func group(id: String) async throws -> GroupRecord?
    func membership(groupID: String, userID: String) async throws -> MembershipRecord?
    /// Every membership of the group, active or not, with the member's phone and display name.
    func members(groupID: String) async throws -> [MemberRow]
    /// The groups the user is an active member of; every group when `userID` is nil.
    func groups(memberID userID: String?) async throws -> [GroupRecord]
    func createInvite(_ invite: InviteRecord) async throws
    /// Applies `InviteRules.decide` to the invite and writes what it says, in one transaction.
    func acceptInvite(codeHash: String, user: UserRecord, now: Date) async throws -> InviteDecision
    /// Ends an active membership: the member sees nothing after the group's current last
    /// sequence number. False when the user was not an active member.
    func removeMember(groupID: String, userID: String, now: Date) async throws -> Bool

    // MARK: Messages and receipts

    /// Plans the push with `PushPlanner` against the stored rows and stores the new messages, in
    /// one transaction, reserving each group's sequence numbers atomically.
    func push(_ items: [PreparedPush], uploader: Actor, now: Date) async throws -> PushResult
    /// Messages with `since < seq ≤ upTo` (no upper bound when nil) and, unless they are `control`
    /// (the group's signed log, which every member needs whole to verify it), `seq > visibleAfter`;
    /// oldest first, at most `limit`.
    func messages(groupID: String, since: Int64, visibleAfter: Int64, upTo: Int64?, limit: Int) async throws -> [ChatMessage]
    func receipts(groupID: String) async throws -> [ReceiptMark]
    /// Raises the user's marks in the group to at least these values (never lowers them).
    func mergeReceipt(groupID: String, userID: String, deliveredUpTo: Int64, readUpTo: Int64, now: Date) async throws -> ReceiptMark

    // MARK: Blobs

    /// Whether `userID` may read the blob: they uploaded it, or an image or file message naming
    /// its digest (signed metadata `blobs`) was sent to a group they are an active member of,
    /// after they joined.
    func blobReadable(sha256: String, userID: String) async throws -> Bool

    /// Stores a blob under its SHA-256 unless the uploader's blobs would then exceed `quota`
    /// bytes (checked in the same transaction); a blob already stored is not stored or counted again.
    func putBlob(sha256: String, data: Data, uploadedBy: String, quota: Int64, now: Date) async throws -> BlobPutOutcome
    /// The bytes of the blobs the group's messages name, and of those among `digests` it does
    /// not name yet (blobs not uploaded count 0).
    func groupBlobBytes(groupID: String, adding digests: Set<String>) async throws -> (used: Int64, added: Int64)
    /// Records that the group's messages name these blobs.
    func recordGroupBlobs(groupID: String, digests: Set<String>) async throws
    func blob(sha256: String) async throws -> Data?
}

/// Failures of a store itself (not of a request).
package enum ChatStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    case cannotOpen(location: String, reason: String)
    case corruptRow(table: String, reason: String)
    case migrationFailed(version: Int, reason: String)

    package var description: String {
        switch self {
        case let .cannotOpen(location, reason): "\(location): cannot open the chat store: \(reason)"
        case let .corruptRow(table, reason): "unreadable row in \(table): \(reason)"
        case let .migrationFailed(version, reason): "schema migration \(version) failed: \(reason)"
        }
    }
}

extension ChatStore {
    /// Messages with `after < seq ≤ upTo` (no upper bound when nil), oldest first, at most `limit`.
    package func messages(groupID: String, after: Int64, upTo: Int64?, limit: Int) async throws -> [ChatMessage] {
        try await messages(groupID: groupID, since: after, visibleAfter: after, upTo: upTo, limit: limit)
    }
}
