import Foundation

/// Resolves many coordinates on every core: one `Resolver` (GEOS context, prepared pieces,
/// caches) per worker thread, all sharing one `ResolverIndex`. Only Sendable values cross threads.
public final class BatchResolver {
    public let index: ResolverIndex
    private let workers: [WorkerSlot]

    public init(index: ResolverIndex, workers: Int = ProcessInfo.processInfo.activeProcessorCount,
                fallbackMeters: Double = 1000, cacheVertices: Int = Resolver.defaultCacheVertices) throws {
        // `cacheVertices` is the budget of the whole batch: memory stays the same however many workers.
        let perWorker = cacheVertices / max(workers, 1)
        self.index = index
        // GEOS contexts are created one after another, never concurrently.
        self.workers = try (0..<max(workers, 1)).map { _ in
            WorkerSlot(try Resolver(index: index, fallbackMeters: fallbackMeters, cacheVertices: perWorker))
        }
    }

    /// Answers in input order. Each worker takes one contiguous slice, so nearby points of a
    /// track stay with one worker and its locality cache.
    public func resolve(_ coordinates: [Coordinate]) -> [Result<Resolution, ResolveError>] {
        let results = ResultSlots(count: coordinates.count)
        let slices = min(workers.count, max(coordinates.count, 1))
        let size = (coordinates.count + slices - 1) / slices
        let workers = self.workers
        DispatchQueue.concurrentPerform(iterations: slices) { w in
            let resolver = workers[w].resolver
            for i in (w * size)..<min((w + 1) * size, coordinates.count) {
                results.set(i, Result { () throws(ResolveError) in try resolver.resolve(coordinates[i]) })
            }
        }
        return results.values
    }
}

/// A resolver owned by exactly one worker index; `concurrentPerform` never gives one index to two threads.
private final class WorkerSlot: @unchecked Sendable {
    let resolver: Resolver
    init(_ resolver: Resolver) { self.resolver = resolver }
}

/// Preallocated answers; each index is written by exactly one worker, read after all have joined.
private final class ResultSlots: @unchecked Sendable {
    private let storage: UnsafeMutablePointer<Result<Resolution, ResolveError>?>
    private let count: Int

    init(count: Int) {
        self.count = count
        storage = .allocate(capacity: count)
        storage.initialize(repeating: nil, count: count)
    }

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    func set(_ i: Int, _ value: Result<Resolution, ResolveError>) { storage[i] = value }
    var values: [Result<Resolution, ResolveError>] { (0..<count).map { storage[$0]! } }
}
