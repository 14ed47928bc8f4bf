import ArgumentParser
import Foundation
import RoquaIO

@main
struct RoquaChatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roqua-chat",
        abstract: "Tour groups: the client of one device (--home DIR); the server is roqua-chat-server.",
        version: Roqua.version,
        subcommands: [AuthCommand.self, GroupCommand.self, SendCommand.self,
                      MessagesCommand.self, SyncCommand.self, PeerCommand.self, SaveCommand.self, VerifyCommand.self]
    )

    /// Parses and runs, with two adjustments. `--home DIR` may come before the verb
    /// (`roqua-chat --home DIR sync`), where the parser does not look for a verb's options: it
    /// is taken out and passed on as `ROQUA_CHAT_HOME`, which `HomeOptions` reads. And the two values after `--location` may be negative
    /// (`-33.92 18.42`), which the parser would take for options, so a leading '-' there is
    /// marked (`NegativeNumberMark`, which `Degrees` reads back). Nothing else is touched: a text may start with '-'.
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "--home", arguments.count > 1 {
            setenv("ROQUA_CHAT_HOME", arguments[1], 1)
            arguments.removeFirst(2)
        } else if let first = arguments.first, first.hasPrefix("--home=") {
            setenv("ROQUA_CHAT_HOME", String(first.dropFirst("--home=".count)), 1)
            arguments.removeFirst()
        }
        if let flag = arguments.firstIndex(of: "--location") {
            for index in (flag + 1)..<min(flag + 3, arguments.count) {
                arguments[index] = NegativeNumberMark.protect(arguments[index])
            }
        }
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
