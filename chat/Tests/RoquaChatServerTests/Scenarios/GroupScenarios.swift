import Foundation
import RoquaChatCore
import Testing

@testable import RoquaChatServer

/// Groups, invites and removal.
enum GroupScenarios {
    static var all: [Scenario] {
        [
            Scenario("groups: a guide's new group shows its guide, members and active window") { h in
                let guide = try await h.signIn("+905550000001", role: .guide)
                let today = CalendarDay(utcSecondsSince1970: h.clock.now().timeIntervalSince1970)
                let body = CreateGroupBody(
                    name: "  Efes ve Pamukkale ", startDate: try CalendarDay("2020-01-01"), endDate: try CalendarDay("2099-12-31"))
                let created = try await guide.post("/v1/groups", body)
                #expect(created.status == 201)
                let group: GroupInfo = try created.decode()
                #expect(group.name == "Efes ve Pamukkale" && group.guideID == guide.userID && group.isActive)
                #expect(group.members?.map(\.role) == [.guide] && group.lastSeq == 0)
                let past = try await guide.post(
                    "/v1/groups",
                    CreateGroupBody(
                        name: "Past", startDate: try CalendarDay("2001-01-01"),
                        endDate: try CalendarDay("2001-01-05")))
                #expect(try past.decode(GroupInfo.self).isActive == false)
                let backwards = try await guide.post(
                    "/v1/groups", CreateGroupBody(name: "x", startDate: today, endDate: try CalendarDay("2001-01-01")))
                #expect(backwards.status == 400)
                #expect(try await guide.post("/v1/groups", CreateGroupBody(name: "   ")).status == 400)
                let list: GroupList = try await guide.get("/v1/groups").decode()
                #expect(Set(list.groups.map(\.name)) == ["Efes ve Pamukkale", "Past"])
            },
            Scenario("invites: single use, bound to the invited phone, members see each other's numbers redacted") { h in
                let guide = try await h.signIn("+905550000001", role: .guide)
                let group = try await guide.createGroup()
                let traveller = try await h.signIn("+905551234567")
                let stranger = try await h.signIn("+905557654321")
                let code = try await guide.invite("+90 555 123 45 67", to: group.id)
                let wrongPerson = try await stranger.accept(code)
                #expect(wrongPerson.status == 403 && wrongPerson.errorCode == .inviteForAnotherPhone)
                // Codes are read leniently: lower case, no dashes.
                let joined = try await traveller.accept(code.lowercased().replacingOccurrences(of: "-", with: ""))
                #expect(joined.status == 200)
                let details: GroupInfo = try joined.decode()
                #expect(details.members?.count == 2)
                let guideRow = try #require(details.members?.first { $0.role == .guide })
                #expect(guideRow.phone == "+90••••••••01")
                #expect(details.members?.first { $0.userID == traveller.userID }?.phone == "+905551234567")
                let again = try await traveller.accept(code)
                #expect(again.status == 410 && again.errorCode == .inviteUsed)
                let seenByGuide: GroupInfo = try await guide.get("/v1/groups/\(group.id)").decode()
                #expect(seenByGuide.members?.contains { $0.phone == "+905551234567" } == true)
                #expect(try await traveller.accept("ZZZZ-ZZZZ-ZZZZ").status == 404)
            },
            Scenario("invites: expire after their lifetime") { h in
                let guide = try await h.signIn("+905550000001", role: .guide)
                let group = try await guide.createGroup()
                let traveller = try await h.signIn("+905551234567")
                let invite: InviteInfo = try await guide.post(
                    "/v1/groups/\(group.id)/invites",
                    CreateInviteBody(phone: try PhoneNumber("+905551234567"), expiresInHours: 1)
                ).decode()
                #expect(invite.expiresAt == h.clock.now().addingTimeInterval(3600))
                let tooLong = try await guide.post(
                    "/v1/groups/\(group.id)/invites",
                    CreateInviteBody(phone: try PhoneNumber("+905551234567"), expiresInHours: 10_000))
                #expect(tooLong.status == 400)
                h.clock.advance(by: 3601)
                let refreshed: AuthTokens = try await TokenScenarios.refresh(h, traveller.tokens.refreshToken).decode()
                let late = try await h.http.send(.POST, "/v1/invites/\(invite.code)/accept", token: refreshed.accessToken)
                #expect(late.status == 410 && late.errorCode == .inviteExpired)
            },
            Scenario("removal: a removed member's token reads nothing of the group at once, and after rejoining only what follows") { h in
                let (guide, group, members) = try await h.groupWithMembers(2)
                let (alice, bob) = (members[0], members[1])
                _ = try await alice.push([textMessage("before", group: group.id)])
                let removed = try await guide.delete("/v1/groups/\(group.id)/members/\(bob.userID)")
                #expect(removed.status == 204)
                _ = try await alice.push([textMessage("after", group: group.id)])
                // Refused at once, with the token it still holds: removal is immediate.
                #expect(try await bob.get("/v1/sync/pull?group=\(group.id)&since=0").status == 403)
                let bobPush = try await bob.push([textMessage("still here?", group: group.id)])
                #expect(bobPush.rejected.map(\.reason) == [.notAMember])
                #expect(try await bob.get("/v1/groups/\(group.id)").status == 403)
                let remaining: GroupInfo = try await guide.get("/v1/groups/\(group.id)").decode()
                #expect(remaining.members?.map(\.userID).contains(bob.userID) == false)
                #expect(try await guide.delete("/v1/groups/\(group.id)/members/\(bob.userID)").status == 404)
                // Rejoining: only what is sent from then on.
                let code = try await guide.invite("+905551000001", to: group.id)
                #expect(try await bob.accept(code).status == 200)
                _ = try await alice.push([textMessage("welcome back", group: group.id)])
                #expect(try await bob.pullAll(group.id).map(\.content) == ["welcome back"])
                #expect(try await alice.pullAll(group.id).map(\.content) == ["before", "after", "welcome back"])
                // The group's signed log (control messages) is shown whole to a member, rejoined or not:
                // clients verify it from its first entry.
                var entry = textMessage("log entry", group: group.id)
                entry.type = .control
                _ = try await guide.push([entry])
                _ = try await guide.delete("/v1/groups/\(group.id)/members/\(bob.userID)")
                let again = try await guide.invite("+905551000001", to: group.id)
                #expect(try await bob.accept(again).status == 200)
                #expect(try await bob.pullAll(group.id).map(\.content) == ["log entry"])
            },
            Scenario("removal: the guide cannot be removed; members may leave; others may not remove anyone") { h in
                let (guide, group, members) = try await h.groupWithMembers(2)
                let cannot = try await guide.delete("/v1/groups/\(group.id)/members/\(guide.userID)")
                #expect(cannot.status == 409 && cannot.errorCode == .cannotRemoveGuide)
                #expect(try await members[0].delete("/v1/groups/\(group.id)/members/\(members[1].userID)").status == 403)
                #expect(try await members[0].delete("/v1/groups/\(group.id)/members/\(members[0].userID)").status == 204)
                #expect(try await members[0].get("/v1/groups/\(group.id)").status == 403)
                #expect(try await guide.delete("/v1/groups/does-not-exist/members/\(members[1].userID)").status == 404)
            },
        ]
    }
}
