import Foundation
import RoquaChatCore
import Testing

@testable import RoquaChatServer

@Suite("Authorization policy and push planning (pure)")
struct PolicyAndPlannerTests {
    let t0 = Date(timeIntervalSince1970: 1_746_000_000)
    var group: GroupRecord { GroupRecord(id: "g", name: "G", guideID: "guide", startDate: nil, endDate: nil, createdAt: t0, lastSeq: 10) }

    func membership(_ user: String, removedAtSeq: Int64? = nil) -> MembershipRecord {
        MembershipRecord(
            groupID: "g", userID: user, role: user == "guide" ? .guide : .member, joinedAt: t0, visibleAfterSeq: 3,
            removedAt: removedAtSeq.map { _ in t0 }, removedAtSeq: removedAtSeq)
    }

    @Test("the matrix: each role and relation against each action")
    func matrix() {
        let actors: [(String, Actor, MembershipRecord?)] = [
            ("admin", Actor(userID: "admin", role: .admin, deviceID: "d"), nil),
            ("owner", Actor(userID: "guide", role: .guide, deviceID: "d"), membership("guide")),
            ("other guide", Actor(userID: "other", role: .guide, deviceID: "d"), nil),
            ("member", Actor(userID: "m", role: .user, deviceID: "d"), membership("m")),
            ("removed", Actor(userID: "r", role: .user, deviceID: "d"), membership("r", removedAtSeq: 7)),
            ("outsider", Actor(userID: "x", role: .user, deviceID: "d"), nil),
        ]
        let expected: [(ChatAction, Set<String>)] = [
            (.createGroup, ["admin", "owner", "other guide"]),
            (.readGroup, ["admin", "owner", "member"]),
            (.invite, ["admin", "owner"]),
            (.removeMember(userID: "someone"), ["admin", "owner"]),
            (.removeMember(userID: "m"), ["admin", "owner", "member"]),
            (.post, ["admin", "owner", "member"]),
            (.pull, ["admin", "owner", "member"]),
            (.markReceipts, ["admin", "owner", "member"]),
            (.setRole, ["admin"]),
        ]
        for (action, allowed) in expected {
            for (name, actor, membership) in actors {
                #expect(
                    Policy.allows(action, actor: actor, group: group, membership: membership) == allowed.contains(name),
                    "\(name) → \(action)")
            }
        }
        #expect(throws: ChatServerError.forbidden(ChatAction.invite.description)) {
            try Policy.require(.invite, actor: actors[3].1, group: group, membership: actors[3].2)
        }
    }

    @Test("visible ranges: everything for admins and the guide, the membership window otherwise")
    func ranges() {
        let removed = membership("r", removedAtSeq: 7)
        #expect(Policy.visibleRange(actor: Actor(userID: "r", role: .user, deviceID: "d"), group: group, membership: removed) == (3, 7))
        #expect(Policy.visibleRange(actor: Actor(userID: "guide", role: .guide, deviceID: "d"), group: group, membership: nil) == (0, nil))
        #expect(Policy.visibleRange(actor: Actor(userID: "a", role: .admin, deviceID: "d"), group: group, membership: nil) == (0, nil))
        #expect(Policy.visibleRange(actor: Actor(userID: "x", role: .user, deviceID: "d"), group: group, membership: nil) == (0, 0))
    }

    @Test("the planner numbers new rows per group after the reserved base, replays and conflicts in request order")
    func planner() throws {
        let uploader = Actor(userID: "m", role: .user, deviceID: "d")
        func prepared(_ localID: String, group: String = "g", content: String = "x") throws -> PreparedPush {
            let message = PushMessage(localID: localID, groupID: group, type: .text, content: content, sentAt: t0)
            return PreparedPush(
                message: message, authorID: "m", digest: try MessageSigningFields(message, senderID: "m").digest, precheck: nil)
        }
        let stored = try prepared("old")
        var second = group
        second.id = "h"
        let snapshot = PushSnapshot(
            existing: [stored.key: ExistingMessage(groupID: "g", serverID: "s-old", seq: 4, digest: stored.digest)],
            groups: ["g": group, "h": second],
            memberships: [
                MembershipKey(groupID: "g", userID: "m"): membership("m"),
                MembershipKey(groupID: "h", userID: "m"): membership("m"),
            ])
        let items = [
            try prepared("a"), try prepared("old"), try prepared("b", group: "h"), try prepared("old", content: "changed"),
            try prepared("c"), try prepared("a"), try prepared("z", group: "nope"),
        ]
        let plan = PushPlanner.plan(items, uploader: uploader, snapshot: snapshot, now: t0)
        #expect(plan.groupsToAdvance == ["g", "h"])
        let (rows, result) = plan.assign(lastSeqBefore: ["g": 10, "h": 0], syncTime: t0)
        #expect(rows.map { "\($0.message.groupID)\($0.message.seq)" } == ["g11", "g12", "h1"])
        #expect(result.synced.map(\.localID) == ["a", "old", "b", "c", "a"])
        #expect(result.synced.map(\.seq) == [11, 4, 1, 12, 11])
        #expect(result.synced[1].serverID == "s-old" && result.synced[0].serverID == result.synced[4].serverID)
        #expect(
            result.rejected == [RejectedMessage(localID: "old", reason: .conflict), RejectedMessage(localID: "z", reason: .groupNotFound)])
    }
}
