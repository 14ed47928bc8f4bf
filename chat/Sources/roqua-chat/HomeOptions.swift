import ArgumentParser
import Foundation
import RoquaBoundaries
import RoquaChatClient
import RoquaChatCore

/// `--home DIR`: the device the client verbs act as (its keys, sign-in and message store).
struct HomeOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("This device's directory (default: $ROQUA_CHAT_HOME or chat/ in the Roqua data home).",
                                            valueName: "DIR"))
    var home: String?

    var path: String {
        if let home { return home }
        if let home = ProcessInfo.processInfo.environment["ROQUA_CHAT_HOME"], !home.isEmpty { return home }
        return (RoquaPaths.dataHome() as NSString).appendingPathComponent("chat")
    }

    /// The client of this home. The CLI syncs only when asked (`sync`), so a verb never waits
    /// on back-off: retries are the caller's to make.
    /// - Throws: `ChatClientError` when the home cannot be opened.
    func client() throws -> ChatClient {
        try ChatClient(home: path, policy: RetryPolicy(maxAttempts: 1))
    }
}

/// Shared output helpers of the client verbs.
enum ChatOutput {
    /// JSON of `value` with the wire's conventions, keys sorted as the server writes it.
    static func json<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try ChatJSON.encoder().encode(value), as: UTF8.self)
    }
}
