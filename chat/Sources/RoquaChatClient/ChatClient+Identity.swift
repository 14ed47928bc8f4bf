import Foundation
import RoquaChatCore

extension ChatClient {
    /// A member's identity as this device's verified log of the group has it, and the safety
    /// number to compare with them. `member` is a user id in the log, or a member's phone
    /// number (looked up on the server).
    /// - Throws: `invalidInput` when the log holds no such member; `notSignedIn`; `store`.
    public func identity(groupID: String, member: String) async throws -> MemberIdentity {
        let me = try await user()
        let state = try store.logState(groupID: groupID)
        var userID = member
        if !state.members.values.contains(where: { $0.userID == member }), let phone = try? PhoneNumber(member).e164 {
            userID = try await group(groupID).members?.first { $0.phone == phone }?.userID ?? member
        }
        guard
            let device = state.members.values.filter({ $0.userID == userID }).map(\.device).max(by: {
                $0.record.created < $1.record.created
            })
        else {
            throw ChatClientError.invalidInput(
                field: "member", value: member,
                reason: "not a member in this device's log of group \(groupID) (give the user id that group show lists)")
        }
        let key = device.record.identityKey
        return MemberIdentity(
            userID: userID, identityKey: key,
            safetyNumber: SafetyNumber.between((me.id, identity.signingPublicKey), (userID, key)),
            confirmed: try store.isConfirmed(userID: userID, identityKey: key),
            changed: (state.identityKeys[userID]?.count ?? 0) > 1)
    }

    /// Records that the user compared the safety number with `member` and it matched.
    /// - Throws: what `identity(groupID:member:)` throws.
    @discardableResult
    public func confirmIdentity(groupID: String, member: String) async throws -> MemberIdentity {
        var found = try await identity(groupID: groupID, member: member)
        try store.confirmIdentity(userID: found.userID, identityKey: found.identityKey)
        found.confirmed = true
        return found
    }

    /// One line per member whose identity key changed in the group's log and whose new key the
    /// user has not confirmed (offline).
    /// - Throws: `store`.
    public func identityWarnings(groupID: String) throws -> [String] {
        let state = try store.logState(groupID: groupID)
        return try unconfirmedKeyChanges(state).map { userID in
            "user \(userID)'s identity key changed (\(state.identityKeys[userID]?.count ?? 0) keys in the group's log): compare safety numbers with "
                + "`roqua-chat verify \(groupID) \(userID)`, then add --confirm"
                + (state.confirmKeyChanges ? "; the group's policy blocks sending until then" : "")
        }
    }

    /// The current members (other than this user) whose identity key changed in the log and whose
    /// newest key this user has not confirmed.
    func unconfirmedKeyChanges(_ state: GroupLogState) throws -> [String] {
        try state.identityKeys.keys.sorted().filter { userID in
            guard let keys = state.identityKeys[userID], keys.count > 1, let newest = keys.last,
                keys.last != identity.signingPublicKey,
                state.members.values.contains(where: { $0.userID == userID })
            else { return false }
            return try !store.isConfirmed(userID: userID, identityKey: newest)
        }
    }
}
