import ArgumentParser
import Foundation
import RoquaChatClient

/// `verify GROUP MEMBER [--confirm] [--json]`: the safety number of this user and a member.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Show the safety number of you and a member, to compare in person; --confirm once it matched.",
        discussion: """
            Both phones print the same 60 digits when each holds the other's real identity key. If they \
            differ, someone (the server, the network) put another key in between: do not confirm, and \
            tell the guide. The key comes from this device's verified log of the group (works offline).
            """)

    @OptionGroup var home: HomeOptions

    @Argument(help: "The group: its id or its name.")
    var group: String

    @Argument(help: "The member: user id, or phone number of a member.")
    var member: String

    @Flag(help: "Record that you compared the number with the member and it matched.")
    var confirm = false

    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        let client = try home.client()
        let groupID = try client.groupID(group)
        let found = confirm ? try await client.confirmIdentity(groupID: groupID, member: member)
                            : try await client.identity(groupID: groupID, member: member)
        if json {
            return print(try ChatOutput.json(VerifyAnswer(userID: found.userID, identityKey: found.identityKey, safetyNumber: found.safetyNumber,
                                                          confirmed: found.confirmed, changed: found.changed)))
        }
        print("safety number with user \(found.userID):")
        let groups = found.safetyNumber.split(separator: " ")
        for row in stride(from: 0, to: groups.count, by: 4) { print("  " + groups[row..<min(row + 4, groups.count)].joined(separator: " ")) }
        if found.changed { print("their identity key changed since they were first added to this group") }
        print(found.confirmed ? "confirmed: you compared this number with them"
                              : "not confirmed: compare in person; once it matched, run: \(ChatHint.command("verify", group, member, "--confirm"))")
    }
}

/// `verify --json`: the flags as JSON booleans.
private struct VerifyAnswer: Encodable {
    var userID: String
    var identityKey: String
    var safetyNumber: String
    var confirmed: Bool
    var changed: Bool

    enum CodingKeys: String, CodingKey {
        case userID = "user_id", identityKey = "identity_key", safetyNumber = "safety_number", confirmed, changed
    }
}
