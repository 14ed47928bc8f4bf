import ArgumentParser
import RoquaChatClient

/// `group invite GROUP --phone P`: prints the code alone, for scripts.
struct GroupInviteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "invite", abstract: "Invite a phone number; prints the single-use code.")

    @OptionGroup var home: HomeOptions

    @Argument(help: "The group: its id or its name.")
    var group: String

    @Option(help: ArgumentHelp("The invited phone number, e.g. +905551234567.", valueName: "PHONE"))
    var phone: String

    func run() async throws {
        let client = try home.client()
        let invite = try await client.invite(groupID: try client.groupID(group), phone: phone)
        print(invite.code)
    }
}
