import Foundation
import RoquaChatCore

extension ChatClient {
    /// Sets the name the other members of this user's groups see (nil removes it). The server
    /// keeps one name per user; members' devices fetch it at their next sync.
    /// - Throws: `invalidInput` naming the rule a name breaks (before anything is sent); `notSignedIn`, `noInternet`, `serverError`.
    @discardableResult
    public func setDisplayName(_ name: String?) async throws -> UserInfo {
        let checked = try name.map(Self.displayName)
        return try await api.call(.PUT, "/v1/me/display-name", body: DisplayNameBody(displayName: checked))
    }

    /// `name` checked against `DisplayName`'s rules.
    /// - Throws: `invalidInput` naming the rule it breaks.
    public static func displayName(_ name: String) throws -> DisplayName {
        do { return try DisplayName(name) } catch {
            throw ChatClientError.invalidInput(field: "name", value: DisplayName.visible(name), reason: "\(error)")
        }
    }

    /// How the group's senders are shown, from what this device holds (offline): the display
    /// names last fetched, and the guides of the verified log. `senders`: the user ids of the
    /// messages to be shown (a name must not look like any of their short ids either).
    /// - Throws: `notSignedIn`, `store`.
    public func senderLabels(groupID: String, senders: Set<String> = []) async throws -> SenderLabels {
        let selfID = try await user().id
        let guides = try store.logState(groupID: groupID).members.values.filter { $0.role == .guide }.map(\.userID)
        return SenderLabels(selfID: selfID, names: try store.memberNames(groupID: groupID), guides: Set(guides), others: senders)
    }
}

/// How senders are shown where messages are listed: `me`; a member's display name; the name with
/// `(…` and the end of the user id`)` when it could be mistaken for another member's name (same
/// `DisplayName.skeleton`), for `me`, or for a short id; `(guide)` beside a guide of the verified
/// log; `…` and the end of the user id for a member without a name. Names are chosen by their owners and
/// relayed by the server, so they are labels only: the frame around them (`(`, `)`, `:`, `…`) is
/// one no name may contain.
public struct SenderLabels: Sendable {
    /// This user.
    public let selfID: String
    let names: [String: DisplayName]
    let guides: Set<String>
    /// Users whose name is shown with their short id.
    let ambiguous: Set<String>

    /// `names`: user id → display name (invalid ones ignored); `others`: further user ids known in the group (senders).
    public init(selfID: String, names: [String: String], guides: Set<String>, others: Set<String> = []) {
        self.selfID = selfID
        self.guides = guides
        let valid = names.compactMapValues { try? DisplayName($0) }
        self.names = valid
        var owners: [String: Set<String>] = [:]
        for (userID, name) in valid { owners[name.skeleton, default: []].insert(userID) }
        // What no name may look like: "me", and any known member's short id.
        let taken = Set(
            ["me"] + (Set(valid.keys).union(others).union(guides).union([selfID])).map { DisplayName.skeleton(Self.shortID($0)) })
        ambiguous = Set(valid.filter { userID, name in (owners[name.skeleton]?.count ?? 0) > 1 || taken.contains(name.skeleton) }.keys)
    }

    /// The user's display name as shown (valid names only), nil when there is none.
    public func name(of userID: String) -> String? { names[userID]?.text }

    /// The label of a sender.
    public func label(of userID: String) -> String {
        if userID == selfID { return "me" }
        var notes: [String] = []
        if guides.contains(userID) { notes.append("guide") }
        guard let name = names[userID] else {
            return Self.shortID(userID) + (notes.isEmpty ? "" : " (\(notes.joined(separator: ", ")))")
        }
        if ambiguous.contains(userID) { notes.append(Self.shortID(userID)) }
        return name.text + (notes.isEmpty ? "" : " (\(notes.joined(separator: ", ")))")
    }

    /// `…` and the last six characters of a user id (a UUIDv7 starts with its time, so the tail is what tells users apart).
    public static func shortID(_ userID: String) -> String { "…" + userID.suffix(6) }
}
