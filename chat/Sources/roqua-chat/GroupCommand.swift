import ArgumentParser
import RoquaChatClient

/// `roqua-chat group`: create, invite, join, show, remove, role.
struct GroupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "group",
        abstract: "Tour groups: create (guides), invite, join, show, remove a member, change a member's role.",
        subcommands: [
            GroupCreateCommand.self, GroupInviteCommand.self, GroupJoinCommand.self,
            GroupShowCommand.self, GroupRemoveCommand.self, GroupRoleCommand.self,
        ])
}

/// `group create NAME`.
struct GroupCreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create", abstract: "Create a group (guides and admins) and its first key.")

    @OptionGroup var home: HomeOptions

    @Argument(help: "The group's name.")
    var name: String

    @Flag(help: "Group policy (signed into its log): a member's changed identity key blocks sending until you confirm it with verify.")
    var confirmKeyChanges = false

    func run() async throws {
        let group = try await home.client().createGroup(name: name, confirmKeyChanges: confirmKeyChanges)
        print(
            "created group \(group.name) (\(group.id)); to invite someone, run: \(ChatHint.command("group", "invite", group.name, "--phone", "PHONE"))"
        )
    }
}

/// `group join CODE`.
struct GroupJoinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Accept an invite.",
        discussion:
            "The group's key arrives once the guide's device has added this one to the group's log (at the guide's next sync, then yours).")

    @OptionGroup var home: HomeOptions

    @Argument(help: "The invite code.")
    var code: String

    func run() async throws {
        let group = try await home.client().join(code: code)
        print(
            "joined group \(group.name) (\(group.id)); you can read and send once the guide's device adds you at its next sync; then run: \(ChatHint.command("sync"))"
        )
    }
}
