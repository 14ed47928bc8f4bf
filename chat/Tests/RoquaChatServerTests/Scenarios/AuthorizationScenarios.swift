import Foundation
import RoquaChatCore
import Testing

@testable import RoquaChatServer

/// The authorization matrix over HTTP: every role against every group route.
enum AuthorizationScenarios {
    enum Who: String, CaseIterable, Sendable {
        case admin, ownerGuide, otherGuide, member, outsider
    }

    struct World: Sendable {
        let harness: ChatHarness
        let owner: Session
        let group: GroupInfo
        let sessions: [Who: Session]
    }

    /// Whether `who` could do the route's action (2xx, or a synced push) — or was refused (403,
    /// or a push rejected as `not_a_member`). Anything else fails the test.
    typealias Route = @Sendable (Session, World, Int) async throws -> Bool

    static func allowed(_ result: HTTPResult, _ label: String) throws -> Bool {
        if (200..<300).contains(result.status) { return true }
        if result.status == 403 && result.errorCode == .forbidden { return false }
        throw TestFailure("\(label): unexpected HTTP \(result.status) \(result.text)")
    }

    static let routes: [(String, Set<Who>, Route)] = [
        (
            "create group", [.admin, .ownerGuide, .otherGuide],
            { session, _, _ in
                try allowed(try await session.post("/v1/groups", CreateGroupBody(name: "New")), "create")
            }
        ),
        (
            "read group", [.admin, .ownerGuide, .member],
            { session, world, _ in
                try allowed(try await session.get("/v1/groups/\(world.group.id)"), "read")
            }
        ),
        (
            "invite", [.admin, .ownerGuide],
            { session, world, index in
                try allowed(
                    try await session.post(
                        "/v1/groups/\(world.group.id)/invites",
                        CreateInviteBody(phone: try PhoneNumber("+90555300\(String(format: "%04d", index))"))), "invite")
            }
        ),
        (
            "remove member", [.admin, .ownerGuide],
            { session, world, index in
                // A fresh member to remove for every check.
                let phone = "+90555400\(String(format: "%04d", index))"
                let target = try await world.harness.signIn(phone)
                let code = try await world.owner.invite(phone, to: world.group.id)
                _ = try await target.accept(code)
                return try allowed(try await session.delete("/v1/groups/\(world.group.id)/members/\(target.userID)"), "remove")
            }
        ),
        (
            "push", [.admin, .ownerGuide, .member],
            { session, world, _ in
                let result = try await session.push([textMessage("hi", group: world.group.id)])
                if result.synced.count == 1 { return true }
                guard result.rejected.map(\.reason) == [.notAMember] else { throw TestFailure("push: \(result)") }
                return false
            }
        ),
        (
            "pull", [.admin, .ownerGuide, .member],
            { session, world, _ in
                try allowed(try await session.pull(world.group.id), "pull")
            }
        ),
        (
            "receipts", [.admin, .ownerGuide, .member],
            { session, world, _ in
                try allowed(
                    try await session.post("/v1/receipts", ReceiptsBody(receipts: [ReceiptUpdate(groupID: world.group.id, readUpTo: 0)])),
                    "receipts")
            }
        ),
        (
            "set own display name", Set(Who.allCases),
            { session, _, _ in
                try allowed(
                    try await session.http.send(
                        .PUT, "/v1/me/display-name", json: DisplayNameBody(displayName: try DisplayName("Ayşe")),
                        token: session.token), "display name")
            }
        ),
        (
            "set role", [.admin],
            { session, world, _ in
                try allowed(
                    try await session.http.send(
                        .PUT, "/v1/users/\(world.sessions[.outsider]!.userID)/role",
                        json: SetRoleBody(role: .user), token: session.token), "role")
            }
        ),
    ]

    static var all: [Scenario] {
        [
            Scenario("authorization: user / guide / admin against every route") { h in
                let owner = try await h.signIn("+905550000001", role: .guide)
                let group = try await owner.createGroup()
                let member = try await h.signIn("+905550000002")
                _ = try await member.accept(try await owner.invite("+905550000002", to: group.id))
                let sessions: [Who: Session] = [
                    .admin: try await h.signIn("+905550000003", role: .admin),
                    .ownerGuide: owner,
                    .otherGuide: try await h.signIn("+905550000004", role: .guide),
                    .member: member,
                    .outsider: try await h.signIn("+905550000005"),
                ]
                let world = World(harness: h, owner: owner, group: group, sessions: sessions)
                var index = 0
                for (name, expected, route) in routes {
                    for who in Who.allCases {
                        index += 1
                        let allowed = try await route(sessions[who]!, world, index)
                        #expect(allowed == expected.contains(who), "\(who.rawValue) → \(name)")
                    }
                }
            },
            Scenario("authorization: a role change applies at once, without a new token") { h in
                let user = try await h.signIn("+905550000010")
                #expect(try await user.post("/v1/groups", CreateGroupBody(name: "x")).status == 403)
                let admin = try await h.signIn("+905550000011", role: .admin)
                let promoted = try await admin.http.send(
                    .PUT, "/v1/users/\(user.userID)/role", json: SetRoleBody(role: .guide), token: admin.token)
                #expect(try promoted.decode(UserInfo.self).role == .guide)
                #expect(try await user.post("/v1/groups", CreateGroupBody(name: "x")).status == 201)
                #expect(
                    try await admin.http.send(.PUT, "/v1/users/nobody/role", json: SetRoleBody(role: .guide), token: admin.token).status
                        == 404)
            },
        ]
    }
}
