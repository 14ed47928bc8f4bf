import RoquaChatCore

/// The signed-in user making a request, as the access token and the user table say.
package struct Actor: Sendable, Equatable {
    package var userID: String
    package var role: Role
    package var deviceID: String

    package init(userID: String, role: Role, deviceID: String) {
        self.userID = userID
        self.role = role
        self.deviceID = deviceID
    }
}

/// What an actor wants to do; group actions are judged with the group and the actor's membership.
package enum ChatAction: Sendable, Equatable, CustomStringConvertible {
    case createGroup
    case readGroup
    case invite
    case removeMember(userID: String)
    case post
    case pull
    case markReceipts
    case setRole

    package var description: String {
        switch self {
        case .createGroup: "create a group (guides and admins only)"
        case .readGroup: "read this group (members, its guide and admins only)"
        case .invite: "invite to this group (its guide and admins only)"
        case .removeMember(let userID): "remove '\(userID)' from this group (its guide and admins only; members may leave)"
        case .post: "post in this group (active members and admins only)"
        case .pull: "read this group's messages (members, its guide and admins only)"
        case .markReceipts: "mark receipts in this group (active members and admins only)"
        case .setRole: "change roles (admins only)"
        }
    }
}

/// Authorization, in one place: every route asks here and nowhere else.
///
/// | action | user | guide | admin |
/// |---|---|---|---|
/// | create group | – | ✓ | ✓ |
/// | read group, pull | active member | active member / own group | ✓ |
/// | invite, remove member | – (may leave) | own group | ✓ |
/// | post, receipts | active member | active member / own group | ✓ |
/// | set role | – | – | ✓ |
package enum Policy {
    /// Whether `actor` may do `action`; `group` and `membership` (the actor's) for group actions.
    package static func allows(
        _ action: ChatAction, actor: Actor, group: GroupRecord? = nil,
        membership: MembershipRecord? = nil
    ) -> Bool {
        if actor.role == .admin { return true }
        let isActiveMember = membership?.isActive == true && membership?.userID == actor.userID
        let ownsGroup = actor.role == .guide && group?.guideID == actor.userID
        switch action {
        case .createGroup:
            return actor.role == .guide
        case .readGroup:
            return ownsGroup || isActiveMember
        case .invite:
            return ownsGroup
        case .removeMember(let userID):
            return ownsGroup || (isActiveMember && userID == actor.userID)
        case .post, .markReceipts:
            return ownsGroup || isActiveMember
        case .pull:
            // Removal is immediate: a removed member's token reads nothing of the group from then
            // on (what it was shown before is on its device already).
            return ownsGroup || isActiveMember
        case .setRole:
            return false
        }
    }

    /// Throws `forbidden` unless `allows`.
    /// - Throws: `ChatServerError.forbidden` naming the action.
    package static func require(
        _ action: ChatAction, actor: Actor, group: GroupRecord? = nil,
        membership: MembershipRecord? = nil
    ) throws {
        guard allows(action, actor: actor, group: group, membership: membership) else {
            throw ChatServerError.forbidden(action.description)
        }
    }

    /// The range of sequence numbers `actor` may pull from the group: after the first, up to the
    /// second (nil: no upper bound). Admins and the group's guide see everything.
    package static func visibleRange(actor: Actor, group: GroupRecord, membership: MembershipRecord?) -> (after: Int64, upTo: Int64?) {
        if actor.role == .admin || (actor.role == .guide && group.guideID == actor.userID) { return (0, nil) }
        guard let membership else { return (0, 0) }
        return (membership.visibleAfterSeq, membership.removedAtSeq)
    }
}
