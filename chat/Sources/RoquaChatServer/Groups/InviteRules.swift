import Foundation

/// What accepting an invite does, decided from the rows the store read in its transaction.
package enum InviteDecision: Sendable, Equatable {
    /// Mark the invite used and write this membership (new, or reactivated after a removal).
    case join(MembershipRecord)
    /// Mark the invite used; the user is an active member already.
    case alreadyMember(groupID: String)
    case failed(ChatServerError)
}

/// Single use, expiry, and the phone the invite was made for.
package enum InviteRules {
    package static func decide(
        invite: InviteRecord?, group: GroupRecord?, user: UserRecord,
        membership: MembershipRecord?, now: Date
    ) -> InviteDecision {
        guard let invite, let group else { return .failed(.inviteNotFound) }
        guard invite.acceptedAt == nil else { return .failed(.inviteUsed) }
        guard now < invite.expiresAt else { return .failed(.inviteExpired) }
        guard invite.phone == user.phone else { return .failed(.inviteForAnotherPhone) }
        if let membership {
            if membership.isActive { return .alreadyMember(groupID: group.id) }
            // Rejoining: nothing from the time away, nothing before it either (that was delivered
            // or deliberately withheld already).
            var rejoined = membership
            rejoined.joinedAt = now
            rejoined.visibleAfterSeq = group.lastSeq
            rejoined.removedAt = nil
            rejoined.removedAtSeq = nil
            return .join(rejoined)
        }
        return .join(MembershipRecord(groupID: group.id, userID: user.id, role: .member, joinedAt: now))
    }
}
