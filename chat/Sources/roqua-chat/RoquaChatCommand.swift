import ArgumentParser
import Foundation
import RoquaCommandLine
import RoquaIO

@main
struct RoquaChatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roqua-chat",
        abstract: "Tour groups: the client of one device (--home DIR); the server is roqua-chat-server.",
        version: Roqua.version,
        subcommands: [
            AuthCommand.self, GroupCommand.self, SendCommand.self,
            MessagesCommand.self, SyncCommand.self, PeerCommand.self, SaveCommand.self, VerifyCommand.self, ProfileCommand.self,
        ]
    )

    /// Parses and runs, with two adjustments. `--home DIR` may come before the verb
    /// (`roqua-chat --home DIR sync`), where the parser does not look for a verb's options: it
    /// is taken out, wherever it stands, and passed on as `ROQUA_CHAT_HOME`, which `HomeOptions` reads (and `ChatHint`,
    /// so that the commands the program suggests name the same home). And the two values after `--location` may be negative
    /// (`-33.92 18.42`), which the parser would take for options, so a leading '-' there is
    /// marked (`NegativeNumberMark`, which `Degrees` reads back). Nothing else is touched: a text may start with '-'.
    /// An error ends the program as `error: MESSAGE` (`RoquaProgram`), its suggested commands given the home.
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let options = arguments.firstIndex(of: "--") ?? arguments.endIndex
        if let flag = arguments[..<options].firstIndex(where: { $0 == "--home" || $0.hasPrefix("--home=") }) {
            if arguments[flag] == "--home", flag + 1 < options {
                setenv("ROQUA_CHAT_HOME", arguments[flag + 1], 1)
                arguments.removeSubrange(flag...(flag + 1))
            } else if arguments[flag].hasPrefix("--home=") {
                setenv("ROQUA_CHAT_HOME", String(arguments[flag].dropFirst("--home=".count)), 1)
                arguments.remove(at: flag)
            }
        }
        if let flag = arguments.firstIndex(of: "--location") {
            for index in (flag + 1)..<min(flag + 3, arguments.count) {
                arguments[index] = NegativeNumberMark.protect(arguments[index])
            }
        }
        await RoquaProgram.run(Self.self, arguments: arguments, rewriting: ChatHint.rewrite)
    }
}
