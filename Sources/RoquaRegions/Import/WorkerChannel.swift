import Foundation

/// What a thread of its own and its owner share: one condition, guarding the subclass's state
/// too (hence `@unchecked Sendable`), and whether the thread still runs. `cancel` stops the
/// thread at its next look at `cancelled` and waits until it has ended, so nothing the thread
/// holds outlives its owner.
class WorkerChannel: @unchecked Sendable {
    let condition = NSCondition()
    private(set) var cancelled = false
    private var running = false

    /// Runs `work` on a new thread named `name`.
    func start(_ name: String, _ work: @escaping @Sendable () -> Void) {
        running = true
        let thread = Thread { [self] in
            work()
            condition.lock()
            running = false
            condition.broadcast()
            condition.unlock()
        }
        thread.name = name
        thread.start()
    }

    /// Drops what is queued; called under the lock as the thread is cancelled.
    func dropQueued() {}

    /// Stops the thread at its next look at `cancelled` and waits until it has ended.
    func cancel() {
        condition.lock()
        cancelled = true
        dropQueued()
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }
}
