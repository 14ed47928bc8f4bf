import Foundation
import RoquaChatCore
import Testing

@testable import RoquaChatClient

/// Issue 52 (3a, 3c): roles in the group's log, and the log following the server's member list down.
@Suite("Group log: roles, and members the server dropped")
struct GroupLogRoleTests {
    @Test(
        "a guide promotes and demotes a member in the log, checked by every member; a member's own role entry is dropped; the last guide stays one"
    )
    func roles() async throws {
        try await TourParty.run { _, party, _ in
            let (guide, promoted, other, group) = (party.guide, party.travellers[0], party.travellers[1], party.group.id)
            let (guideID, promotedID, otherID) = (try await guide.user().id, try await promoted.user().id, try await other.user().id)
            func role(_ userID: String, on client: ChatClient) throws -> MemberRole? {
                try client.log(groupID: group).members.values.first { $0.userID == userID }?.role
            }
            await #expect(throws: ChatClientError.self) { try await promoted.rekey(groupID: group) }
            // A member cannot make itself a guide: refused here, and signed and pushed anyway, dropped by everyone.
            await #expect { try await other.setRole(groupID: group, member: otherID, role: .guide) } throws: { error in
                "\(error)".contains("only a guide")
            }
            let before = try other.log(groupID: group)
            var selfPromotion = GroupStatement(
                groupID: group, seq: before.seq + 1, prev: before.head, kind: .role, actorUser: otherID,
                actorDevice: other.identity.deviceID, created: ChatTime.milliseconds(Date()))
            selfPromotion.userID = otherID
            selfPromotion.role = .guide
            let signed = try SignedStatement.sign(selfPromotion, with: other.identity.signingKey)
            let wire = try other.codec.control(signed, groupID: group, senderID: otherID, counter: 1000, now: Date()).wire
            let pushed: PushResult = try await other.api.call(.POST, "/v1/sync/push", body: PushBody(messages: [wire]))
            #expect(pushed.synced.count == 1, "the server relays it; the members decide")
            for client in [guide, promoted] {
                let report = try await client.engine.sync()
                #expect(report.dropped == 1 && report.droppedReasons.joined().contains("only a guide"), "\(report.droppedReasons)")
                #expect(try role(otherID, on: client) == .member)
            }
            // The guide promotes: every member's device applies it, and the new guide may start an epoch.
            #expect(try await guide.setRole(groupID: group, member: "+905551000001", role: .guide) == promotedID)
            for client in [promoted, other] { _ = try await client.engine.sync() }
            for client in [guide, promoted, other] { #expect(try role(promotedID, on: client) == .guide) }
            let epoch = try await promoted.rekey(groupID: group)
            _ = try await promoted.engine.sync()
            for client in [guide, other] {
                _ = try await client.engine.sync()
                #expect(try client.log(groupID: group).epoch == epoch)
            }
            // Demoted again: no more epochs from it. The last guide cannot step down.
            try await guide.setRole(groupID: group, member: promotedID, role: .member)
            _ = try await promoted.engine.sync()
            #expect(try role(promotedID, on: promoted) == .member)
            await #expect(throws: ChatClientError.self) { try await promoted.rekey(groupID: group) }
            await #expect { try await guide.setRole(groupID: group, member: guideID, role: .member) } throws: { error in
                "\(error)".contains("last guide")
            }
        }
    }

    @Test("a member removed through the server's API, not the log, leaves the log at the guide's next sync and gets no later epoch")
    func removedBehindTheLog() async throws {
        try await TourParty.run { _, party, _ in
            let (guide, stays, dropped, group) = (party.guide, party.travellers[0], party.travellers[1], party.group.id)
            let droppedID = try await dropped.user().id
            let before = try guide.log(groupID: group)
            // As an old client (or anyone using the API) does it: the mailbox only.
            _ = try await guide.api.send(.DELETE, "/v1/groups/\(group)/members/\(droppedID)", body: nil, authorized: true)
            // A member's device sees the list shrink too, but only a guide's device writes the log.
            _ = try await stays.engine.sync()
            #expect(try stays.log(groupID: group).members.values.contains { $0.userID == droppedID })
            _ = try await guide.engine.sync()
            let after = try guide.log(groupID: group)
            #expect(!after.members.values.contains { $0.userID == droppedID })
            #expect(after.epoch == before.epoch + 1 && !after.device(dropped.identity.deviceID, wasIn: after.epoch))
            _ = try await stays.engine.sync()
            let seen = try stays.log(groupID: group)
            #expect(seen.epoch == after.epoch && !seen.members.values.contains { $0.userID == droppedID })
        }
    }
}

/// Issue 52 (3d): an old home's groups are named, not failed on.
@Suite("Groups from before the log")
struct GroupsBeforeLogTests {
    @Test(
        "an old home's group with messages and no log is named as needing re-creating: send says so, sync passes it by; new groups are not")
    func oldGroups() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await LiveServer(directory: scratch)
        let guide = try ChatClient(home: scratch.file("guide"))
        let guideID = try await server.signIn(guide, phone: "+905550000001", role: .guide).id
        // As a client from before the log left it: the group on the server and here, a message read then, no log.
        let old: GroupInfo = try await guide.api.call(.POST, "/v1/groups", body: CreateGroupBody(name: "Efes 2025"))
        try guide.store.saveGroups([old])
        try guide.store.write { db in
            try db.execute(
                sql: """
                    INSERT INTO messages (sender_id, local_id, device_id, group_id, type, body, content, signature, sent_at, hlc,
                                          key_epoch, status, status_rank)
                    VALUES (?, ?, ?, ?, 'text', 'Yarın Efes', 'old ciphertext', '', 1700000000000, '1700000000000-0', 1, 'read', 3)
                    """, arguments: [guideID, UUIDv7.make(), guide.identity.deviceID, old.id])
        }
        let fresh = try await guide.createGroup(name: "Kapadokya")
        #expect(try guide.groupsBeforeLog() == [GroupBeforeLog(id: old.id, name: "Efes 2025")])
        await #expect { try await guide.send(groupID: old.id, text: "Merhaba") } throws: { error in
            guard case ChatClientError.groupBeforeLog(old.id, "Efes 2025") = error else { return false }
            return "\(error)".contains("re-creates it")
        }
        let report = try await guide.engine.sync()
        #expect(report.groupsBeforeLog.map(\.id) == [old.id] && report.dropped == 0)
        // The new group works as ever, and its old messages stay readable here.
        try await guide.send(groupID: fresh.id, text: "Merhaba")
        #expect(try guide.messages(groupID: old.id).map(\.body) == ["Yarın Efes"])
        await server.stop()
    }
}
