import Dispatch
import Foundation
import Synchronization

/// Uploads and the store's writer. Receiving an upload and checking how far it expands hold
/// nothing (a trickling or hostile upload delays no one); only writing takes the store, one
/// import or restore at a time, the next waiting its turn (another process — `roqua track
/// import` — still takes turns through SQLite's write lock, as the CLI does). At most
/// `maximumUploads` uploads are received at once (each may take `--max-upload` of disk).
/// Also keeps the newest upload's progress for `GET /api/tracks/progress`.
final class TrackImportGate: Sendable {
    struct Progress: Sendable, Codable, Equatable {
        /// `idle`, `receiving` (the upload is being written to a temporary file), `reading` (its
        /// fixes read and checked, the store still free), `waiting` (for another import to finish
        /// writing), `importing` (clustering and writing in one transaction), `done` or `failed`.
        var phase: String
        var file: String?
        var receivedBytes: Int
        /// From `Content-Length` (nil when the client did not say).
        var totalBytes: Int?
        /// Fixes read so far while `reading`, then written while `importing` (every few thousand);
        /// once `done`, every file's fixes.
        var fixesRead: Int?
        var message: String?
    }

    /// One upload's handle on the progress: only the newest upload's updates show.
    struct Ticket: Sendable {
        fileprivate let number: Int
    }

    static let maximumUploads = 8

    private let state = Mutex(
        (
            newest: 0, uploads: 0,
            progress: Progress(
                phase: "idle", file: nil, receivedBytes: 0,
                totalBytes: nil, fixesRead: nil, message: nil)
        ))
    private let writer = DispatchSemaphore(value: 1)

    /// Starts an upload's progress; nil when `maximumUploads` are already being handled.
    func begin(file: String, totalBytes: Int?) -> Ticket? {
        state.withLock { state in
            guard state.uploads < Self.maximumUploads else { return nil }
            state.uploads += 1
            state.newest += 1
            state.progress = Progress(
                phase: "receiving", file: file, receivedBytes: 0, totalBytes: totalBytes, fixesRead: nil,
                message: nil)
            return Ticket(number: state.newest)
        }
    }

    private func update(_ ticket: Ticket, _ change: (inout Progress) -> Void) {
        state.withLock { state in
            if state.newest == ticket.number { change(&state.progress) }
        }
    }

    func received(_ ticket: Ticket, bytes: Int) { update(ticket) { $0.receivedBytes = bytes } }

    func fixes(_ ticket: Ticket, count: Int) { update(ticket) { $0.fixesRead = count } }

    func reading(_ ticket: Ticket) {
        update(ticket) {
            $0.phase = "reading"
            $0.fixesRead = 0
        }
    }

    /// Ends an upload: `done`, or `failed` with the message (never a temporary path).
    func end(_ ticket: Ticket, failure: String?) {
        state.withLock { state in
            state.uploads -= 1
            guard state.newest == ticket.number else { return }
            state.progress.phase = failure == nil ? "done" : "failed"
            state.progress.message = failure
        }
    }

    /// Runs `body` as the store's only writer, on the calling thread (a `BlockingPool` thread,
    /// see `offloaded`, which has one for each upload that may wait here): waits for the running
    /// writer, checking `check` every 200 ms so a server that is stopping does not wait.
    /// - Throws: what `check` and `body` throw.
    func writing<T>(_ ticket: Ticket, check: () throws -> Void, _ body: () throws -> T) throws -> T {
        update(ticket) { $0.phase = "waiting" }
        while writer.wait(timeout: .now() + .milliseconds(200)) == .timedOut { try check() }
        defer { writer.signal() }
        try check()
        update(ticket) {
            $0.phase = "importing"
            $0.fixesRead = 0
        }
        return try body()
    }

    var progress: Progress { state.withLock { $0.progress } }
}
