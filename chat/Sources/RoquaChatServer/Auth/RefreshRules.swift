import Foundation

/// What the store found for a presented refresh token: the token, its family, and the row of the
/// successor the presented token derives (see `RefreshTokens`).
package struct RefreshLookup: Sendable, Equatable {
    package var token: RefreshTokenRecord?
    package var family: RefreshFamilyRecord?
    package var successor: RefreshTokenRecord?

    package init(token: RefreshTokenRecord?, family: RefreshFamilyRecord?, successor: RefreshTokenRecord?) {
        self.token = token
        self.family = family
        self.successor = successor
    }
}

/// What to do with a presented refresh token.
package enum RefreshDecision: Sendable, Equatable {
    /// Unused and valid: mark it used and store its successor.
    case rotate(RefreshFamilyRecord)
    /// Used moments ago by a concurrent request of the same app: hand out the same successor.
    case repeatWithinGrace(RefreshFamilyRecord)
    /// Used moments ago, and its successor was used too: the caller holds a newer token.
    case superseded
    /// Used before the grace window: someone replays a stolen token. Revoke the whole family.
    case reused(familyID: String)
    case expired
    case invalid
}

/// Rotation with reuse detection, pure: stores apply the decision in the same transaction.
package enum RefreshRules {
    package static func decide(_ lookup: RefreshLookup, now: Date, settings: ChatSettings) -> RefreshDecision {
        guard let token = lookup.token, let family = lookup.family, family.revokedAt == nil else { return .invalid }
        guard let usedAt = token.usedAt else {
            return now < token.expiresAt ? .rotate(family) : .expired
        }
        guard now.timeIntervalSince(usedAt) <= settings.refreshGrace else { return .reused(familyID: family.id) }
        guard let successor = lookup.successor, successor.familyID == family.id else { return .invalid }
        return successor.usedAt == nil ? .repeatWithinGrace(family) : .superseded
    }
}
