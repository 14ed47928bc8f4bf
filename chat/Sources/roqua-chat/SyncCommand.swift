import ArgumentParser
import Foundation
import RoquaChatClient
import RoquaCommandLine
import Synchronization

/// `sync`: one push and pull, retried within `--retry-for` while the server cannot be reached
/// (or answers 429/5xx). Exit 0 when nothing is left pending; 3 when the server could not be reached
/// in that time (messages stay pending, try again later); 4 when some are still pending otherwise.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Push pending messages and pull new ones.",
        discussion: """
            While the server cannot be reached (or answers that it is busy), sync says so on standard error at once \
            (warning: …) and retries with back-off for --retry-for seconds, the last attempt when they are up (connecting \
            gives up after 5 s), then ends with error: … . Exit status: 0 everything pushed; 3 server unreachable \
            (messages stay pending); 4 messages still pending; 1 other errors (64 a usage error).
            """)

    /// The exit status when the server is unreachable.
    static let unreachable: Int32 = 3
    /// The exit status when the sync ran but something is still pending.
    static let stillPending: Int32 = 4

    @OptionGroup var home: HomeOptions

    @Flag(help: "Print the report as JSON.")
    var json = false

    @Option(
        name: .customLong("retry-for"),
        help: ArgumentHelp("Keep retrying an unreachable or busy server for up to this many seconds (0: try once).", valueName: "SECONDS"))
    var retryFor: Double = 10

    func validate() throws {
        guard retryFor >= 0, retryFor <= 3600 else { throw ValidationError("--retry-for must lie in [0, 3600] seconds, not \(retryFor)") }
    }

    func run() async throws {
        // Waits of 0.5–4 s (with jitter) between attempts; the time limit ends them.
        let client = try home.client(policy: RetryPolicy(base: 0.5, cap: 4, maxAttempts: retryFor > 0 ? 1000 : 1))
        let report: SyncReport
        let started = ContinuousClock.now
        do {
            let limit = retryFor
            let warned = WarnedOnce()
            report = try await client.engine.sync(giveUpAfter: limit) { error, _ in
                // One line at the first failure (not one per attempt): what is wrong, and for how long it retries.
                guard warned.first() else { return }
                RoquaProgram.warn("\(error); retrying for up to \(Self.seconds(limit)) (Ctrl-C stops)")
            }
        } catch let error as ChatClientError {
            guard case .noInternet = error else { throw error }
            let pending = try client.pendingCount()
            let spent = ContinuousClock.now - started
            RoquaProgram.error(
                "\(error); gave up after \(Self.seconds(Double(spent.components.seconds))); "
                    + "\(pending) message(s) stay pending, run `\(ChatHint.command("sync"))` again later")
            throw ExitCode(Self.unreachable)
        }
        if json {
            print(try ChatOutput.json(Answer(report)))
        } else {
            let files = [(report.blobsUp, "up"), (report.blobsDown, "down"), (report.blobsSkipped, "skipped")].filter { $0.0 > 0 }.map {
                ", files \($0.1) \($0.0)"
            }.joined()
            print(
                "pushed \(report.pushed), pulled \(report.pulled), rejected \(report.rejected), pending \(report.pending)\(files)"
                    + (report.logEntries > 0 ? ", group log \(report.logEntries)" : "")
                    + (report.dropped > 0 ? ", dropped \(report.dropped) not signed by a member" : ""))
        }
        for group in report.groupsBeforeLog {
            RoquaProgram.warn("\(ChatClientError.groupBeforeLog(group: group.id, name: group.name))")
        }
        for group in report.closedGroups {
            RoquaProgram.warn("group \(group): the server no longer shows it to you (removed); what is here stays")
        }
        // Why each dropped message was refused goes to stderr: it names message ids, not contents.
        for reason in report.droppedReasons.prefix(20) {
            RoquaProgram.warn("dropped \(reason)")
        }
        if report.pending > 0 { throw ExitCode(Self.stillPending) }
    }

    /// `sync --json`: the report's counts.
    struct Answer: Encodable {
        var pulled, pushed, rejected, dropped, logEntries, pending, filesUp, filesDown, filesSkipped: Int

        init(_ report: SyncReport) {
            (pulled, pushed, rejected, dropped) = (report.pulled, report.pushed, report.rejected, report.dropped)
            (logEntries, pending) = (report.logEntries, report.pending)
            (filesUp, filesDown, filesSkipped) = (report.blobsUp, report.blobsDown, report.blobsSkipped)
        }

        enum CodingKeys: String, CodingKey {
            case pulled, pushed, rejected, dropped, logEntries = "log_entries", pending
            case filesUp = "files_up", filesDown = "files_down", filesSkipped = "files_skipped"
        }
    }

    /// "10 s", "0.5 s".
    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}

/// True the first time only (the retry callback runs on the engine, possibly more than once).
private final class WarnedOnce: Sendable {
    private let done = Mutex(false)
    func first() -> Bool {
        done.withLock { done in
            defer { done = true }
            return !done
        }
    }
}
