import Foundation
import RoquaChatCore

extension ChatClient {
    /// The id of the group `reference` names: a group id, or the name of exactly one group this
    /// home created or joined. Works offline (it reads only the local store).
    /// - Throws: `invalidInput` for an unknown or ambiguous group; `store`.
    public func groupID(_ reference: String) throws -> String {
        let known = try store.groupIDs()
        if known.contains(reference) { return reference }
        let named = try store.groupIDs(named: reference)
        if named.count == 1 { return named[0] }
        if named.isEmpty {
            throw ChatClientError.invalidInput(
                field: "group", value: reference,
                reason: "no such group on this device (give a group id or the name of a group created or joined here)")
        }
        throw ChatClientError.invalidInput(
            field: "group", value: reference,
            reason: "\(named.count) groups have this name; give the group id instead")
    }

    /// The groups held here that were made before group logs (an old home's): they can only be
    /// re-created; `send` refuses them and `sync` leaves them alone, both saying so. Offline.
    /// - Throws: `store`.
    public func groupsBeforeLog() throws -> [GroupBeforeLog] { try store.groupsBeforeLog() }

    /// Makes the member `member` names (a user id, or a phone number of a member) a guide or a
    /// member of the group: a signed `role` entry in its log, which every member's device checks
    /// (only a guide may change roles; the last guide stays one) and the next sync carries up.
    /// Returns the user's id.
    /// - Throws: `invalidInput` when no member of the log matches or the log refuses the change;
    ///   `ChatClientError` from the server.
    @discardableResult
    public func setRole(groupID: String, member: String, role: MemberRole) async throws -> String {
        let user = try await user()
        let state = try store.logState(groupID: groupID)
        let phone = try? PhoneNumber(member).e164  // nil: not a phone number, so it must be a user id
        let viaPhone = phone == nil ? nil : try await group(groupID).members?.first { $0.phone == phone }?.userID
        guard let userID = [member, viaPhone].compactMap({ $0 }).first(where: { id in state.members.values.contains { $0.userID == id } })
        else {
            throw ChatClientError.invalidInput(field: "member", value: member, reason: "not a member of the group's log on this device")
        }
        do {
            try keeper.setRole(role, userID: userID, groupID: groupID, selfID: user.id)
        } catch let error as GroupLogError {
            throw ChatClientError.invalidInput(field: "role", value: role.rawValue, reason: "\(error)")
        }
        _ = try await engine.syncOnce()
        return userID
    }

    /// Removes the member `member` names (a user id, or a phone number of a member) from the
    /// group and rotates its key; returns the removed user's id.
    /// - Throws: `invalidInput` when no member matches; what `removeMember(groupID:userID:)` throws.
    @discardableResult
    public func removeMember(groupID: String, member: String) async throws -> String {
        let members = try await group(groupID).members ?? []
        let phone = try? PhoneNumber(member).e164  // nil: not a phone number, so it must be a user id
        guard let match = members.first(where: { $0.userID == member || $0.phone == phone }) else {
            throw ChatClientError.invalidInput(field: "member", value: member, reason: "not a member of group \(groupID)")
        }
        try await removeMember(groupID: groupID, userID: match.userID)
        return match.userID
    }
}
