import Foundation
import RoquaChatCore

/// One pushed message after the checks that need no database: its author, its digest, and a
/// rejection found already (size, identifiers, signature), if any.
package struct PreparedPush: Sendable {
    package var message: PushMessage
    package var authorID: String
    package var digest: Data
    package var precheck: RejectionReason?

    package init(message: PushMessage, authorID: String, digest: Data, precheck: RejectionReason?) {
        self.message = message
        self.authorID = authorID
        self.digest = digest
        self.precheck = precheck
    }

    package var key: AuthorLocalID { AuthorLocalID(authorID: authorID, localID: message.localID) }
}

/// What a store read inside its push transaction.
package struct PushSnapshot: Sendable {
    package var existing: [AuthorLocalID: ExistingMessage]
    package var groups: [String: GroupRecord]
    package var memberships: [MembershipKey: MembershipRecord]

    package init(
        existing: [AuthorLocalID: ExistingMessage], groups: [String: GroupRecord],
        memberships: [MembershipKey: MembershipRecord]
    ) {
        self.existing = existing
        self.groups = groups
        self.memberships = memberships
    }
}

/// The decisions for one push: per message a result, and per group the new rows in order. New
/// rows get their sequence numbers from the store (`assign`), which reserves them atomically.
package struct PushPlan: Sendable {
    enum Outcome: Sendable {
        case synced(SyncedMessage)
        case rejected(RejectedMessage)
        case inserted(groupID: String, ordinal: Int, localID: String, serverID: String)
    }

    var outcomes: [Outcome] = []
    /// New rows per group, `seq` still 0.
    package private(set) var inserts: [String: [StoredMessage]] = [:]

    /// The groups that get new rows, sorted (stores lock them in this order).
    package var groupsToAdvance: [String] { inserts.keys.sorted() }

    /// The rows with their sequence numbers, given each group's last sequence number before this
    /// push, and the answer for the client in the order of the request.
    package func assign(lastSeqBefore: [String: Int64], syncTime: Date) -> (rows: [StoredMessage], result: PushResult) {
        var rows: [StoredMessage] = []
        for groupID in groupsToAdvance {
            let base = lastSeqBefore[groupID] ?? 0
            for (ordinal, var row) in (inserts[groupID] ?? []).enumerated() {
                row.message.seq = base + Int64(ordinal) + 1
                rows.append(row)
            }
        }
        var synced: [SyncedMessage] = []
        var rejected: [RejectedMessage] = []
        for outcome in outcomes {
            switch outcome {
            case .synced(let result): synced.append(result)
            case .rejected(let rejection): rejected.append(rejection)
            case let .inserted(groupID, ordinal, localID, serverID):
                synced.append(
                    SyncedMessage(
                        localID: localID, serverID: serverID,
                        seq: (lastSeqBefore[groupID] ?? 0) + Int64(ordinal) + 1))
            }
        }
        return (rows, PushResult(synced: synced, rejected: rejected, syncTime: syncTime))
    }

    mutating func insert(_ row: StoredMessage) -> Outcome {
        let groupID = row.message.groupID
        let ordinal = inserts[groupID]?.count ?? 0
        inserts[groupID, default: []].append(row)
        return .inserted(groupID: groupID, ordinal: ordinal, localID: row.message.localID, serverID: row.message.serverID)
    }
}

/// Idempotency, membership and ordering for a push, pure.
package enum PushPlanner {
    /// Plans `items` pushed by `uploader` at `now` against what the store holds.
    package static func plan(_ items: [PreparedPush], uploader: Actor, snapshot: PushSnapshot, now: Date) -> PushPlan {
        var plan = PushPlan()
        var planned: [AuthorLocalID: (digest: Data, outcome: PushPlan.Outcome)] = [:]
        let latestOrder = now.addingTimeInterval(ChatLimits.futureSkewSeconds)
        for item in items {
            let localID = item.message.localID
            // Idempotent forever: a stored (author, local_id) answers with its first result.
            if let existing = snapshot.existing[item.key] {
                plan.outcomes.append(
                    existing.digest == item.digest
                        ? .synced(SyncedMessage(localID: localID, serverID: existing.serverID, seq: existing.seq))
                        : .rejected(RejectedMessage(localID: localID, reason: .conflict)))
                continue
            }
            if let earlier = planned[item.key] {
                plan.outcomes.append(
                    earlier.digest == item.digest
                        ? earlier.outcome : .rejected(RejectedMessage(localID: localID, reason: .conflict)))
                continue
            }
            if let reason = item.precheck ?? admission(item, uploader: uploader, snapshot: snapshot) {
                plan.outcomes.append(.rejected(RejectedMessage(localID: localID, reason: reason)))
                continue
            }
            let message = item.message
            let row = StoredMessage(
                message: ChatMessage(
                    serverID: UUIDv7.make(at: now), seq: 0, groupID: message.groupID, senderID: item.authorID,
                    deviceID: message.deviceID, localID: localID, type: message.type, content: message.content,
                    metadata: message.metadata, sentAt: ChatTime.rounded(message.sentAt),
                    orderAt: ChatTime.rounded(min(message.sentAt, latestOrder)), receivedAt: ChatTime.rounded(now),
                    keyEpoch: message.keyEpoch, signature: message.signature),
                digest: item.digest)
            let outcome = plan.insert(row)
            planned[item.key] = (item.digest, outcome)
            plan.outcomes.append(outcome)
        }
        return plan
    }

    /// Whether the group exists and both the uploader and (for a relayed message) the author
    /// may post in it.
    static func admission(_ item: PreparedPush, uploader: Actor, snapshot: PushSnapshot) -> RejectionReason? {
        let groupID = item.message.groupID
        guard let group = snapshot.groups[groupID] else { return .groupNotFound }
        let uploaderMembership = snapshot.memberships[MembershipKey(groupID: groupID, userID: uploader.userID)]
        guard Policy.allows(.post, actor: uploader, group: group, membership: uploaderMembership) else { return .notAMember }
        if item.authorID != uploader.userID {
            guard snapshot.memberships[MembershipKey(groupID: groupID, userID: item.authorID)]?.isActive == true else {
                return .notAMember
            }
        }
        return nil
    }
}
