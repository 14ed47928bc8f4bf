import ArgumentParser
import Foundation
import RoquaChatClient

/// `sync`: one push and pull. Exit 0 when nothing is left pending; 3 when the server cannot be
/// reached (messages stay pending, try again later); 4 when some are still pending otherwise.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Push pending messages and pull new ones.",
        discussion: "Exit status: 0 everything pushed; 3 server unreachable (messages stay pending); 4 messages still pending; 1 other errors.")

    /// The exit status when the server is unreachable.
    static let unreachable: Int32 = 3
    /// The exit status when the sync ran but something is still pending.
    static let stillPending: Int32 = 4

    @OptionGroup var home: HomeOptions

    @Flag(help: "Print the report as JSON.")
    var json = false

    func run() async throws {
        let client = try home.client()
        let report: SyncReport
        do {
            report = try await client.engine.syncOnce()
        } catch let error as ChatClientError {
            guard case .noInternet = error else { throw error }
            let pending = try client.pendingCount()
            FileHandle.standardError.write(Data("roqua-chat: \(error); \(pending) message(s) stay pending, run sync again later\n".utf8))
            throw ExitCode(Self.unreachable)
        }
        if json {
            print(#"{"pulled":\#(report.pulled),"pushed":\#(report.pushed),"rejected":\#(report.rejected),"dropped":\#(report.dropped),"log_entries":\#(report.logEntries),"pending":\#(report.pending),"#
                + #""files_up":\#(report.blobsUp),"files_down":\#(report.blobsDown),"files_skipped":\#(report.blobsSkipped)}"#)
        } else {
            let files = [(report.blobsUp, "up"), (report.blobsDown, "down"), (report.blobsSkipped, "skipped")].filter { $0.0 > 0 }.map { ", files \($0.1) \($0.0)" }.joined()
            print("pushed \(report.pushed), pulled \(report.pulled), rejected \(report.rejected), pending \(report.pending)\(files)"
                  + (report.logEntries > 0 ? ", group log \(report.logEntries)" : "")
                  + (report.dropped > 0 ? ", dropped \(report.dropped) not signed by a member" : ""))
        }
        for group in report.closedGroups {
            FileHandle.standardError.write(Data("roqua-chat: group \(group): the server no longer shows it to you (removed); what is here stays\n".utf8))
        }
        // Why each dropped message was refused goes to stderr: it names message ids, not contents.
        for reason in report.droppedReasons.prefix(20) {
            FileHandle.standardError.write(Data("roqua-chat: dropped \(reason)\n".utf8))
        }
        if report.pending > 0 { throw ExitCode(Self.stillPending) }
    }
}
