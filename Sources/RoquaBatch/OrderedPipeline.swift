import Foundation
import RoquaBoundaries

/// Runs jobs on a fixed set of worker threads and hands the results back in submission order,
/// so one thread can read input and write output while the workers do the rest. Each worker
/// builds its own state once (`makeWorker`, on its own thread: a resolver, a formatter) and keeps
/// it for every job. Memory is bounded by the caller: it submits only while `inFlight` is below
/// its limit and takes results in order with `next()`.
package final class OrderedPipeline<Job: Sendable, Output: Sendable>: @unchecked Sendable {
    // @unchecked: every stored property below is read and written only while `condition` is locked.
    private let condition = NSCondition()
    /// Queued jobs from `jobStart` on; a taken job's slot is cleared at once, so its memory goes
    /// with it, and the taken prefix is dropped from time to time.
    private var jobs: [(sequence: Int, job: Job)?] = []
    private var jobStart = 0
    private var results: [Int: Result<Output, any Error>] = [:]
    private var closed = false
    private var running = 0
    private var submitted = 0
    private var taken = 0

    /// Starts `workers` threads; each calls `makeWorker` once and then its result per job.
    package init(workers: Int, makeWorker: @escaping @Sendable () throws -> (Job) throws -> Output) {
        running = workers
        for _ in 0..<workers {
            let thread = Thread { [self] in work(makeWorker) }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Jobs submitted whose results have not been taken yet.
    package var inFlight: Int {
        condition.lock()
        defer { condition.unlock() }
        return submitted - taken
    }

    /// Whether the next result in order is ready (so `next()` would not wait).
    package var nextIsReady: Bool {
        condition.lock()
        defer { condition.unlock() }
        return results[taken] != nil
    }

    package func submit(_ job: Job) {
        condition.lock()
        jobs.append((submitted, job))
        submitted += 1
        condition.signal()
        condition.unlock()
    }

    /// The result of the oldest job not yet taken, waiting for it; nil when every job is taken.
    /// - Throws: what the job (or its worker's setup) threw.
    package func next() throws -> Output? {
        condition.lock()
        defer { condition.unlock() }
        guard taken < submitted else { return nil }
        while results[taken] == nil { condition.wait() }
        let result = results.removeValue(forKey: taken)!  // the loop above waited for it
        taken += 1
        return try result.get()
    }

    /// Stops the workers once the jobs already taken are done (queued jobs are dropped) and
    /// waits for them to exit. Call it once, always (also when giving up after an error).
    package func close() {
        condition.lock()
        closed = true
        jobs.removeAll()
        jobStart = 0
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    private func work(_ makeWorker: () throws -> (Job) throws -> Output) {
        let worker = Result { try makeWorker() }
        condition.lock()
        while true {
            while jobStart == jobs.count, !closed { condition.wait() }
            if closed {
                running -= 1
                condition.broadcast()
                condition.unlock()
                return
            }
            guard let (sequence, job) = jobs[jobStart] else { continue }  // slots from jobStart on are always filled
            jobs[jobStart] = nil
            jobStart += 1
            if jobStart == jobs.count || jobStart >= 64 {
                jobs.removeFirst(jobStart)
                jobStart = 0
            }
            condition.unlock()
            let result = worker.flatMap { run in Result { try run(job) } }
            condition.lock()
            results[sequence] = result
            condition.broadcast()
        }
    }
}
