import Foundation
import NIOPosix
import Synchronization
import Testing

@testable import RoquaServer

/// `offloaded`: blocking work on `BlockingPool`, which imports waiting for the store's writer
/// must not fill.
@Suite struct OffloadedTests {
    /// A count shared with work on other threads.
    final class Counter: Sendable {
        private let value = Atomic<Int>(0)
        func add() { _ = value.add(1, ordering: .relaxed) }
        var count: Int { value.load(ordering: .relaxed) }
    }

    @Test func resultsAndErrorsComeBack() async throws {
        #expect(try await offloaded { 6 * 7 } == 42)
        struct Failure: Error {}
        await #expect(throws: Failure.self) { try await offloaded { () throws -> Int in throw Failure() } }
    }

    /// On a pool of `BlockingPool`'s size of its own (the shared one serves every other test of
    /// this process), as many calls as uploads may wait for the writer block their threads, and
    /// other work still runs at once.
    @Test(.timeLimit(.minutes(1))) func waitingImportsLeaveThreadsForOtherRequests() async throws {
        let pool = BlockingPool.started(threads: BlockingPool.threads)
        let release = DispatchSemaphore(value: 0)
        let started = Counter()
        let waiting = (0..<TrackImportGate.maximumUploads).map { _ in
            Task {
                try await offloaded(on: pool) {
                    started.add()
                    release.wait()
                }
            }
        }
        while started.count < TrackImportGate.maximumUploads { try await Task.sleep(for: .milliseconds(5)) }
        let others = try await withThrowingTaskGroup(of: Int.self) { group in
            for n in 0..<(BlockingPool.threads - TrackImportGate.maximumUploads) * 4 {
                group.addTask { try await offloaded(on: pool) { n } }
            }
            return try await group.reduce(0, +)
        }
        #expect(others > 0)
        for _ in waiting { release.signal() }
        for task in waiting { try await task.value }
        try await pool.shutdownGracefully()
        await #expect(throws: NIOThreadPoolError.ThreadPoolInactive.self) { try await offloaded(on: pool) { 1 } }
    }

    @Test func manyCallsAtOnceAllFinish() async throws {
        let count = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<500 {
                group.addTask { try await offloaded { count.add() } }
            }
            try await group.waitForAll()
        }
        #expect(count.count == 500)
    }
}
