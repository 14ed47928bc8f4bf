import ArgumentParser
import Foundation
import RoquaCommandLine
import RoquaIO

@main
struct RoquaChatServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roqua-chat-server",
        abstract: "Tour groups: the sync server (run, the default) and the administration of its store.",
        version: Roqua.version,
        subcommands: [ServerCommand.self, AdminCommand.self],
        defaultSubcommand: ServerCommand.self
    )

    /// Parses and runs; an error ends the program as `error: MESSAGE` (`RoquaProgram`).
    static func main() async {
        await RoquaProgram.run(Self.self, arguments: Array(CommandLine.arguments.dropFirst()))
    }
}
