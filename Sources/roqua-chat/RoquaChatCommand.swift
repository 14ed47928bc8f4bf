import ArgumentParser

@main
struct RoquaChatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roqua-chat",
        abstract: "Tour groups: the sync server (SMS sign-in, groups and invites, idempotent message sync) and its administration.",
        subcommands: [ServerCommand.self, AdminCommand.self]
    )
}
