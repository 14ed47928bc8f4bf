import ArgumentParser
import RoquaChatClient
import RoquaChatCore

/// `group show GROUP [--json]`: the group and its members, from the server.
struct GroupShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show a group and its members.")

    @OptionGroup var home: HomeOptions

    @Argument(help: "The group: its id or its name.")
    var group: String

    @Flag(help: "Print JSON (the server's group object).")
    var json = false

    func run() async throws {
        let client = try home.client()
        let info = try await client.group(try client.groupID(group))
        if json { return print(try ChatOutput.json(info)) }
        print("\(info.name) (\(info.id))\(info.isActive ? "" : " — not active today")")
        // The server's list says who may use the mailbox; the verified log says who reads and speaks.
        let log = try client.log(groupID: info.id)
        for member in info.members ?? [] {
            let inLog =
                log.members.values.first { $0.userID == member.userID }.map { "in the log as \($0.role.rawValue)" } ?? "not in the log yet"
            // A name is shown only as it would be beside a message (a server's invalid one not at all).
            let name = member.displayName.flatMap { try? DisplayName($0) }.map { "  \($0.text)" } ?? ""
            print(
                "  \(member.phone)  \(member.role.rawValue)\(name)  user \(member.userID)  joined \(ChatTime.format(member.joinedAt))  \(inLog)"
            )
        }
        print(
            "log: \(log.seq) entries, epoch \(log.epoch), \(log.members.count) member device(s)"
                + (log.needsRekey ? ", waiting for a guide's new epoch" : ""))
    }
}

/// `group remove GROUP USER`: the guide removes a member; the key rotates.
struct GroupRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove a member (guide); later messages use a new key the removed member never gets.")

    @OptionGroup var home: HomeOptions

    @Argument(help: "The group: its id or its name.")
    var group: String

    @Argument(help: "The member: user id or phone number.")
    var user: String

    func run() async throws {
        let client = try home.client()
        let groupID = try client.groupID(group)
        let removed = try await client.removeMember(groupID: groupID, member: user)
        print("removed user \(removed) from \(groupID); a new epoch is sealed to the remaining devices only")
    }
}

/// `group role GROUP --phone PHONE guide|member`: a guide promotes or demotes a member in the group's log.
struct GroupRoleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "role",
        abstract: "Make a member a guide, or a guide a member (guide); every member's device checks it against the group's log.")

    @OptionGroup var home: HomeOptions

    @Argument(help: "The group: its id or its name.")
    var group: String

    @Option(help: ArgumentHelp("The member's phone number (or user id).", valueName: "PHONE"))
    var phone: String

    @Argument(help: "guide or member.")
    var role: MemberRole

    func run() async throws {
        let client = try home.client()
        let groupID = try client.groupID(group)
        let userID = try await client.setRole(groupID: groupID, member: phone, role: role)
        print("user \(userID) is now a \(role.rawValue) of \(groupID) in its log")
    }
}

extension MemberRole: ExpressibleByArgument {}
