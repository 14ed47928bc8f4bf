import Foundation
import RoquaTestKit
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `roqua-chat-server` child on 127.0.0.1 (SQLite store, dev SMS outbox in a temp directory)
/// and helpers that run the built `roqua-chat` client verbs against it, one home per device.
final class ChatCLIFixture {
    let directory: TempDirectory
    let binary = ProductsDirectory.product("roqua-chat")
    let serverBinary = ProductsDirectory.product("roqua-chat-server")
    private(set) var server: RunningCommand?
    private(set) var port = 0

    init() throws {
        directory = try TempDirectory("roqua-chat-cli")
    }

    deinit { stopServer() }

    /// `https` once started with `tls`.
    private(set) var scheme = "http"
    var url: String { "\(scheme)://127.0.0.1:\(port)" }
    var database: String { directory.file("server.sqlite") }
    var outbox: String { directory.file("sms.jsonl") }
    func home(_ name: String) -> String { directory.file(name) }

    /// Starts the server (on a port of its choosing the first time, on the same port after a
    /// stop) and waits until its log says it listens.
    func startServer(tls: (certificate: String, key: String)? = nil) throws {
        let tlsArguments = tls.map { ["--tls-cert", $0.certificate, "--tls-key", $0.key] } ?? []
        scheme = tls == nil ? "http" : "https"
        let running = try CommandRunner.start(
            serverBinary,
            [
                "--db", database, "--sms-outbox", outbox,
                "--listen", "127.0.0.1:\(port)", "--log-level", "info",
            ] + tlsArguments)
        server = running
        for _ in 0..<600 {
            let log = running.stderrSoFar
            if let range = log.range(of: "listening on 127.0.0.1:") {
                let digits = log[range.upperBound...].prefix { $0.isNumber }
                if let chosen = Int(digits) {
                    port = chosen
                    return
                }
            }
            usleep(100_000)
        }
        running.kill()
        Issue.record("the server did not start: \(running.stderrSoFar)")
        throw CocoaError(.executableLoad)
    }

    /// SIGTERM (graceful shutdown) and wait for the exit.
    func stopServer() {
        guard let server else { return }
        server.kill(SIGTERM)
        _ = server.wait()
        self.server = nil
    }

    /// Runs `roqua-chat --home HOME ARGS...`.
    @discardableResult
    func run(_ home: String, _ arguments: [String]) throws -> CommandResult {
        try CommandRunner.run(binary, ["--home", self.home(home)] + arguments)
    }

    /// Runs and expects exit 0; the trimmed stdout.
    @discardableResult
    func ok(_ home: String, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let result = try run(home, arguments)
        #expect(result.status == 0, "roqua-chat \(arguments.joined(separator: " ")): \(result.stderr)", sourceLocation: sourceLocation)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The HTTP status of `GET path` on the server with `Authorization: Bearer token` (10 s at most).
    func status(get path: String, bearer token: String) throws -> Int {
        final class Answer: @unchecked Sendable { var status = -1 }
        let answer = Answer()
        var request = URLRequest(url: try #require(URL(string: url + path)), timeoutInterval: 10)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { _, response, _ in
            answer.status = (response as? HTTPURLResponse)?.statusCode ?? -1
            done.signal()
        }.resume()
        done.wait()
        return answer.status
    }

    /// The newest code the dev SMS provider wrote for `phone`.
    func lastCode(for phone: String) throws -> String {
        let lines = try String(contentsOfFile: outbox, encoding: .utf8).split(separator: "\n")
        for line in lines.reversed() {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            if object?["phone"] as? String == phone, let code = object?["code"] as? String { return code }
        }
        throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: outbox])
    }

    /// Signs `home` in as `phone` through the SMS outbox.
    func signIn(_ home: String, phone: String) throws {
        let requested = try ok(home, ["auth", "request", "--server", url, "--phone", phone])
        // The hint names the home, so following it works.
        #expect(requested.hasSuffix("run: roqua-chat --home \(self.home(home)) auth verify --code CODE"), "\(requested)")
        let verified = try ok(home, ["auth", "verify", "--code", try lastCode(for: phone)])
        #expect(verified.contains("signed in as \(phone)"))
    }

    /// `messages GROUP --json` of `home`, parsed.
    func messages(_ home: String, group: String) throws -> [[String: Any]] {
        let output = try ok(home, ["messages", group, "--json"])
        return try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
    }
}
