import Foundation
import Synchronization

/// One import or restore at a time per store: a second one gets 409 at once rather than waiting
/// behind a long upload (another process — `roqua track import` — still takes turns through
/// SQLite's write lock, as the CLI does). Also keeps the running import's progress for
/// `GET /api/tracks/progress`.
final class ImportGate: Sendable {
    struct Progress: Sendable, Codable, Equatable {
        /// `idle`, `receiving` (the upload is being written to a temporary file), `importing`
        /// (reading, clustering, writing in one transaction), `done` or `failed`.
        var phase: String
        var file: String?
        var receivedBytes: Int
        /// From `Content-Length` (nil when the client did not say).
        var totalBytes: Int?
        /// Fixes read so far while `importing` (updated every few thousand).
        var fixesRead: Int?
        var message: String?
    }

    private let state = Mutex(Progress(phase: "idle", file: nil, receivedBytes: 0, totalBytes: nil, fixesRead: nil, message: nil))

    /// Claims the store for one import; false when another is running.
    func begin(file: String, totalBytes: Int?) -> Bool {
        state.withLock { progress in
            guard progress.phase != "receiving" && progress.phase != "importing" else { return false }
            progress = Progress(phase: "receiving", file: file, receivedBytes: 0, totalBytes: totalBytes, fixesRead: nil, message: nil)
            return true
        }
    }

    func received(_ bytes: Int) {
        state.withLock { $0.receivedBytes = bytes }
    }

    func importing() {
        state.withLock {
            $0.phase = "importing"
            $0.fixesRead = 0
        }
    }

    func fixes(_ count: Int) {
        state.withLock { $0.fixesRead = count }
    }

    /// Releases the store: `done`, or `failed` with the message.
    func end(failure: String?) {
        state.withLock {
            $0.phase = failure == nil ? "done" : "failed"
            $0.message = failure
        }
    }

    var progress: Progress { state.withLock { $0 } }
}
