import Foundation
import Logging
import RoquaChatCore

/// Groups, invites and membership. Every decision about who may do what goes through `Policy`.
package struct GroupService: EnvironmentService {
    package let environment: ServiceEnvironment

    package init(_ environment: ServiceEnvironment) {
        self.environment = environment
    }

    /// Creates a group led by the actor.
    /// - Throws: `forbidden` for users; `invalidField` for an empty or long name or a window that ends before it starts.
    package func create(_ body: CreateGroupBody, actor: Actor) async throws -> GroupInfo {
        try Policy.require(.createGroup, actor: actor)
        let name = body.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= ChatLimits.maxGroupNameLength else {
            throw ChatServerError.invalidField(field: "name", reason: "must be 1–\(ChatLimits.maxGroupNameLength) characters")
        }
        if let start = body.startDate, let end = body.endDate, end < start {
            throw ChatServerError.invalidField(field: "end_date", reason: "\(end) is before the start date \(start)")
        }
        let now = clock.now()
        let group = GroupRecord(
            id: UUIDv7.make(at: now), name: name, guideID: actor.userID,
            startDate: body.startDate, endDate: body.endDate, createdAt: now)
        try await store.createGroup(
            group,
            guideMembership: MembershipRecord(
                groupID: group.id, userID: actor.userID,
                role: .guide, joinedAt: now))
        logger.info("group created", metadata: ["group": "\(group.id)", "user": "\(actor.userID)"])
        return try await details(groupID: group.id, actor: actor)
    }

    /// The groups the actor is an active member of (admins: every group).
    package func list(actor: Actor) async throws -> GroupList {
        let groups = try await store.groups(memberID: actor.role == .admin ? nil : actor.userID)
        return GroupList(groups: groups.map { info($0, members: nil) })
    }

    /// A group with its active members.
    /// - Throws: `groupNotFound`, `forbidden`.
    package func details(groupID: String, actor: Actor) async throws -> GroupInfo {
        let (group, membership) = try await access(groupID: groupID, actor: actor)
        try Policy.require(.readGroup, actor: actor, group: group, membership: membership)
        let manages = Policy.allows(.invite, actor: actor, group: group, membership: membership)
        let members = try await store.members(groupID: groupID).filter(\.membership.isActive).map { row in
            GroupMemberInfo(
                userID: row.membership.userID,
                phone: manages || row.membership.userID == actor.userID ? row.phone.e164 : row.phone.redacted,
                role: row.membership.role, joinedAt: row.membership.joinedAt, displayName: row.displayName)
        }
        return info(group, members: members)
    }

    /// An invite for one phone number, single use.
    /// - Throws: `groupNotFound`, `forbidden`, `invalidField` for a lifetime out of range.
    package func invite(groupID: String, _ body: CreateInviteBody, actor: Actor) async throws -> InviteInfo {
        let (group, membership) = try await access(groupID: groupID, actor: actor)
        try Policy.require(.invite, actor: actor, group: group, membership: membership)
        let hours = body.expiresInHours ?? settings.inviteDefaultHours
        guard (1...settings.inviteMaxHours).contains(hours) else {
            throw ChatServerError.invalidField(field: "expires_in_hours", reason: "\(hours) is not within 1–\(settings.inviteMaxHours)")
        }
        let now = clock.now()
        let code = SecureRandom.inviteCode()
        let invite = InviteRecord(
            codeHash: Self.codeHash(code), groupID: groupID, phone: body.phone, createdBy: actor.userID,
            createdAt: now, expiresAt: now.addingTimeInterval(Double(hours) * 3600))
        try await store.createInvite(invite)
        logger.info("invite created", metadata: ["group": "\(groupID)", "user": "\(actor.userID)"])
        return InviteInfo(code: code, groupID: groupID, expiresAt: invite.expiresAt)
    }

    /// Joins the group of an invite made for the actor's phone.
    /// - Throws: `inviteNotFound`, `inviteUsed`, `inviteExpired`, `inviteForAnotherPhone`.
    package func accept(code: String, actor: Actor) async throws -> GroupInfo {
        guard let user = try await store.user(id: actor.userID) else { throw ChatServerError.userNotFound(actor.userID) }
        let decision = try await store.acceptInvite(codeHash: Self.codeHash(code), user: user, now: clock.now())
        switch decision {
        case .join(let membership):
            logger.info("invite accepted", metadata: ["group": "\(membership.groupID)", "user": "\(actor.userID)"])
            return try await details(groupID: membership.groupID, actor: actor)
        case .alreadyMember(let groupID):
            return try await details(groupID: groupID, actor: actor)
        case .failed(let error):
            throw error
        }
    }

    /// Ends a membership: the member receives nothing sent from now on.
    /// - Throws: `groupNotFound`, `forbidden`, `cannotRemoveGuide`, `userNotFound` when not an active member.
    package func remove(userID: String, from groupID: String, actor: Actor) async throws {
        let (group, membership) = try await access(groupID: groupID, actor: actor)
        try Policy.require(.removeMember(userID: userID), actor: actor, group: group, membership: membership)
        guard userID != group.guideID else { throw ChatServerError.cannotRemoveGuide(userID) }
        guard try await store.removeMember(groupID: groupID, userID: userID, now: clock.now()) else {
            throw ChatServerError.userNotFound(userID)
        }
        logger.info("member removed", metadata: ["group": "\(groupID)", "user": "\(actor.userID)", "removed": "\(userID)"])
    }

    /// The group and the actor's membership.
    /// - Throws: `groupNotFound`.
    func access(groupID: String, actor: Actor) async throws -> (GroupRecord, MembershipRecord?) {
        guard let group = try await store.group(id: groupID) else { throw ChatServerError.groupNotFound(groupID) }
        return (group, try await store.membership(groupID: groupID, userID: actor.userID))
    }

    func info(_ group: GroupRecord, members: [GroupMemberInfo]?) -> GroupInfo {
        let today = CalendarDay(utcSecondsSince1970: clock.now().timeIntervalSince1970)
        let active = (group.startDate.map { $0 <= today } ?? true) && (group.endDate.map { today <= $0 } ?? true)
        return GroupInfo(
            id: group.id, name: group.name, guideID: group.guideID, startDate: group.startDate,
            endDate: group.endDate, isActive: active, createdAt: group.createdAt, lastSeq: group.lastSeq,
            members: members)
    }

    /// Codes are compared in Crockford form: case, dashes and spaces ignored, O read as 0, I and L as 1.
    static func codeHash(_ code: String) -> String {
        let canonical = code.uppercased().compactMap { character -> Character? in
            switch character {
            case "-", " ": nil
            case "O": "0"
            case "I", "L": "1"
            default: character
            }
        }
        return TokenHash.sha256Hex(String(canonical))
    }
}
