import NIOCore
import NIOPosix

/// The threads that run the routes' blocking work (SQLite, parsing uploads, GEOS), so that the
/// event loops and Swift's cooperative threads only ever wait for it. A pool instead of a thread
/// per call: a request no longer pays for creating a thread, and a burst of requests no longer
/// makes a thread each.
enum BlockingPool {
    /// Enough threads that the imports waiting for the store's writer (`TrackImportGate`: at most
    /// `maximumUploads`, each blocking its thread while it waits) leave plenty for every other
    /// request — reads of the store also wait while an import writes, each holding a thread.
    static let threads = TrackImportGate.maximumUploads + max(16, 4 * System.coreCount)

    /// Started on first use, never stopped: it lives as long as the process (NIO's own
    /// `NIOThreadPool.singleton` has one thread per core, which waiting imports could fill).
    static let shared = started(threads: threads)

    static func started(threads: Int) -> NIOThreadPool {
        let pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
        return pool
    }
}

/// Runs blocking work on `BlockingPool` and waits for it without blocking the caller's thread.
/// - Throws: what `work` throws.
func offloaded<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await offloaded(on: BlockingPool.shared, work)
}

/// Runs blocking work on `pool`. The work always runs, even when the waiting task is cancelled:
/// a write the client started must finish or fail on its own terms.
/// - Throws: what `work` throws, or `NIOThreadPoolError.ThreadPoolInactive` once `pool` is stopped.
func offloaded<T: Sendable>(on pool: NIOThreadPool, _ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        pool.submit { state in
            guard case .active = state else {
                continuation.resume(throwing: NIOThreadPoolError.ThreadPoolInactive())
                return
            }
            continuation.resume(with: Result { try work() })
        }
    }
}
