import Foundation
import RoquaChatCore
import Testing

@testable import RoquaChatServer

/// Display names: set by their owner, checked, shown to the members of the owner's groups.
enum ProfileScenarios {
    static func setName(_ session: Session, _ json: String) async throws -> HTTPResult {
        try await session.http.send(.PUT, "/v1/me/display-name", data: Data(json.utf8), token: session.token)
    }

    static var all: [Scenario] {
        [
            Scenario("names: a user sets, changes and removes their own name; members see it with the member list") { h in
                let (guide, group, members) = try await h.groupWithMembers(1)
                let traveller = members[0]
                let set = try await setName(traveller, #"{"display_name":"  Ayşe   Yılmaz "}"#)
                #expect(set.status == 200)
                #expect(try set.decode(UserInfo.self).displayName == "Ayşe Yılmaz", "spaces trimmed and made one")
                #expect(try await traveller.get("/v1/me").decode(UserInfo.self).displayName == "Ayşe Yılmaz")
                let seen: GroupInfo = try await guide.get("/v1/groups/\(group.id)").decode()
                #expect(seen.members?.first { $0.userID == traveller.userID }?.displayName == "Ayşe Yılmaz")
                #expect(seen.members?.first { $0.userID == guide.userID }?.displayName == nil)
                #expect(try await setName(traveller, #"{"display_name":"Ayşe"}"#).status == 200)
                let cleared = try await setName(traveller, #"{"display_name":null}"#)
                #expect(try cleared.status == 200 && cleared.decode(UserInfo.self).displayName == nil)
                let after: GroupInfo = try await traveller.get("/v1/groups/\(group.id)").decode()
                #expect(after.members?.allSatisfy { $0.displayName == nil } == true)
                // A stranger to the group sees neither the group nor the name.
                let stranger = try await h.signIn("+905559998877")
                _ = try await setName(traveller, #"{"display_name":"Ayşe"}"#)
                #expect(try await stranger.get("/v1/groups/\(group.id)").status == 403)
            },
            Scenario(
                "names: refused with the rule named when empty, long, invisible, framing or missing; only with a token; bodies bounded"
            ) { h in
                let user = try await h.signIn("+905551234567")
                for (json, rule) in [
                    (#"{"display_name":"   "}"#, "at least one visible character"),
                    (#"{"display_name":"\#(String(repeating: "ş", count: 41))"}"#, "at most 40 characters"),
                    (#"{"display_name":"Ay\u001b[2Jşe"}"#, "control, format or invisible characters (U+1B)"),
                    (#"{"display_name":"Ay\u202eşe"}"#, "(U+202E)"),
                    (#"{"display_name":"Ahmet (guide)"}"#, "may not hold ("),
                    (#"{"display_name":"Ayşe: hi"}"#, "may not hold :"),
                    (#"{}"#, "display_name is missing"),
                ] {
                    let refused = try await setName(user, json)
                    #expect(
                        refused.status == 400 && refused.errorCode == .invalidRequest && refused.text.contains(rule),
                        "\(json): \(refused.text)")
                }
                #expect(try await h.http.send(.PUT, "/v1/me/display-name", data: Data(#"{"display_name":"Ayşe"}"#.utf8)).status == 401)
                let huge = try await setName(user, #"{"display_name":"Ayşe","pad":"\#(String(repeating: "x", count: 4000))"}"#)
                #expect(huge.status == 413, "\(huge.status) \(huge.text)")
                #expect(try await user.get("/v1/me").decode(UserInfo.self).displayName == nil)
            },
        ]
    }
}
