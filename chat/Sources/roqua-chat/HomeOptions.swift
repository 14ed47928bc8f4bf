import ArgumentParser
import Foundation
import RoquaBoundaries
import RoquaChatClient
import RoquaChatCore
import RoquaCommandLine

/// `--home DIR`: the device the client verbs act as (its keys, sign-in and message store).
struct HomeOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "This device's directory (default: $ROQUA_CHAT_HOME or chat/ in the Roqua data home).",
            valueName: "DIR"))
    var home: String?

    var path: String {
        if let home { return home }
        if let home = ProcessInfo.processInfo.environment["ROQUA_CHAT_HOME"], !home.isEmpty { return home }
        return (RoquaPaths.dataHome() as NSString).appendingPathComponent("chat")
    }

    /// The client of this home. The CLI syncs only when asked (`sync`), so a verb never waits
    /// on back-off: retries are the caller's to make (`sync` makes them within `--retry-for`).
    /// An unreachable server is reported at once (`ChatClient.promptHTTP`): someone is waiting at the prompt.
    /// - Throws: `ChatClientError` when the home cannot be opened.
    func client(policy: RetryPolicy = RetryPolicy(maxAttempts: 1)) throws -> ChatClient {
        try ChatClient(home: path, policy: policy, http: ChatClient.promptHTTP)
    }
}

/// Shared output helpers of the client verbs.
enum ChatOutput {
    /// JSON of `value` with the wire's conventions, keys sorted as the server writes it.
    static func json<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try ChatJSON.encoder().encode(value), as: UTF8.self)
    }
}

/// The commands the client suggests, as the user can paste them: with `--home DIR` (shell-quoted)
/// when a home was given, on the command line or in `$ROQUA_CHAT_HOME` (where `RoquaChatCommand.main`
/// puts a `--home` of the command line).
enum ChatHint {
    /// The home given, if any.
    static var givenHome: String? {
        ProcessInfo.processInfo.environment["ROQUA_CHAT_HOME"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `roqua-chat [--home DIR] WORDS…`, every word shell-quoted (placeholders such as `CODE` stay as they are).
    static func command(_ words: String...) -> String {
        (["roqua-chat"] + (givenHome.map { ["--home", $0] } ?? []) + words).map(shellQuoted).joined(separator: " ")
    }

    /// A message of the client library with the home given to every `` `roqua-chat …` `` it suggests.
    static func rewrite(_ text: String) -> String {
        guard let home = givenHome else { return text }
        return text.replacingOccurrences(of: "`roqua-chat ", with: "`roqua-chat --home \(shellQuoted(home)) ")
    }
}
