import ArgumentParser
import Foundation

/// How every Roqua program (roqua, roqua-serve, roqua-chat, roqua-chat-server) runs and ends. Errors go to standard error as `error: MESSAGE`
/// (warnings as `warning: MESSAGE`), where ArgumentParser
/// would write `Error: `; everything else is ArgumentParser's own: help and `--version` on
/// standard output with status 0, a usage error with its usage and status 64, an `ExitCode`
/// silently with its status, any other error with status 1.
public enum RoquaProgram {
    /// Parses `arguments` as `command`'s, runs the chosen command and exits; an error ends the
    /// process through `exit(_:withError:rewriting:)`.
    public static func run<Command: ParsableCommand>(
        _ command: Command.Type, arguments: [String],
        rewriting: @escaping (String) -> String = { $0 }
    ) async -> Never {
        do {
            var parsed = try command.parseAsRoot(arguments)
            if var asyncCommand = parsed as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try parsed.run()
            }
        } catch {
            exit(command, withError: error, rewriting: rewriting)
        }
        exit(command, withError: nil)
    }

    /// As `run`, for a program whose commands are all synchronous.
    public static func runSync<Command: ParsableCommand>(_ command: Command.Type, arguments: [String]) -> Never {
        do {
            var parsed = try command.parseAsRoot(arguments)
            try parsed.run()
        } catch {
            exit(command, withError: error)
        }
        exit(command, withError: nil)
    }

    /// Ends the process as `Command.exit(withError:)` does, with `error: ` before an error's
    /// message; `rewriting` may change the message (the chat client adds its `--home` to the
    /// commands a message suggests).
    public static func exit<Command: ParsableCommand>(
        _ command: Command.Type, withError error: (any Error)?,
        rewriting: (String) -> String = { $0 }
    ) -> Never {
        guard let error else { command.exit() }
        let status = command.exitCode(for: error)
        // Help, --version and a clean ExitCode: nothing to restyle.
        if status == .success { command.exit(withError: error) }
        var text = command.fullMessage(for: error)
        if text.hasPrefix("Error: ") { text = "error: " + text.dropFirst("Error: ".count) }
        if !text.isEmpty {
            text = rewriting(text)
            FileHandle.standardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
        }
        Foundation.exit(status.rawValue)
    }

    /// Writes `warning: MESSAGE` to standard error.
    public static func warn(_ message: String) {
        FileHandle.standardError.write(Data("warning: \(message)\n".utf8))
    }

    /// Writes `error: MESSAGE` to standard error (for a command that goes on to exit with a status of its own).
    public static func error(_ message: String) {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
    }

    /// Writes an informational line to standard error, with no prefix.
    public static func note(_ message: String) {
        FileHandle.standardError.write(Data("\(message)\n".utf8))
    }
}

/// A word as a POSIX shell reads it back: unchanged when it is made of characters no shell
/// treats specially, else in single quotes (a quote inside as `'\''`). For the commands a
/// program suggests, so that pasting them works.
public func shellQuoted(_ word: String) -> String {
    let plain = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-")
    if !word.isEmpty, word.allSatisfy(plain.contains) { return word }
    return "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
}
