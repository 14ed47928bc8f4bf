import ArgumentParser
import RoquaChatClient
import RoquaChatCore

/// `roqua-chat profile`: what the members of this user's groups see of them.
struct ProfileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract: "The name the members of your groups see.",
        subcommands: [ProfileSetNameCommand.self, ProfileClearNameCommand.self])
}

/// `profile set-name NAME`.
struct ProfileSetNameCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-name",
        abstract: "Set the name the members of your groups see beside your messages.",
        discussion: """
            1–\(DisplayName.maxCharacters) characters; no control or invisible characters, and none of : ( ) [ ] …, which \
            frame a sender where messages are shown. Anyone can choose any name: where another member's name could be \
            mistaken for yours, both are shown with the end of the user id, and the safety number (verify) is what proves who is who.
            """)

    @OptionGroup var home: HomeOptions

    @Argument(help: "The name.")
    var name: String

    func run() async throws {
        let checked = try ChatClient.displayName(name)
        let user = try await home.client().setDisplayName(checked.text)
        print("your groups see you as \(user.displayName ?? checked.text) (their devices fetch it at their next sync)")
    }
}

/// `profile clear-name`.
struct ProfileClearNameCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear-name", abstract: "Remove your name: your groups see the end of your user id.")

    @OptionGroup var home: HomeOptions

    func run() async throws {
        let user = try await home.client().setDisplayName(nil)
        print("your groups see you as \(SenderLabels.shortID(user.id)) (their devices fetch it at their next sync)")
    }
}
