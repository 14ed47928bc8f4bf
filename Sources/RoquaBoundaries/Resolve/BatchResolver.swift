import Foundation
import Synchronization

/// Resolves many coordinates on every core: one `Resolver` per worker, all sharing one
/// `ResolverIndex` (whose cells are shared read-only memory, so workers do not contend).
public final class BatchResolver {
    /// The most workers a batch resolver starts; more are clamped to this.
    public static let maxWorkers = 256
    /// The shared index every worker's resolver reads.
    public let index: ResolverIndex
    private let workers: [WorkerSlot]

    /// A batch resolver with `workers` resolvers (clamped to 1…`maxWorkers`).
    /// - Throws: what `Resolver.init` throws.
    public init(
        index: ResolverIndex, workers: Int = ProcessInfo.processInfo.activeProcessorCount,
        fallbackMeters: Double = 1000, cacheVertices: Int = Resolver.defaultCacheVertices
    ) throws {
        self.index = index
        let count = min(max(workers, 1), Self.maxWorkers)
        self.workers = try (0..<count).map { _ in
            WorkerSlot(try Resolver(index: index, fallbackMeters: fallbackMeters, cacheVertices: cacheVertices))
        }
    }

    /// Answers in input order. Workers take contiguous runs of points in turn, so nearby points
    /// of a track stay with one worker and its last-cell shortcut, and a worker whose runs were
    /// cheap (land, open sea) takes more of them than one whose runs hug a coast.
    public func resolve(_ coordinates: [Coordinate]) -> [Result<Resolution, ResolveError>] {
        let index = self.index
        return run(coordinates) { resolver, c in
            Result { () throws(ResolveError) in index.resolution(for: try resolver.placement(c), at: c) }
        }
    }

    /// As `resolve(_:)`, giving unit ids instead of names.
    public func placements(_ coordinates: [Coordinate]) -> [Result<Placement, ResolveError>] {
        run(coordinates) { resolver, c in Result { () throws(ResolveError) in try resolver.placement(c) } }
    }

    /// Runs per worker: enough that the last run is a small part of a worker's share.
    static let runsPerWorker = 16
    /// The fewest points in a run, so that taking one costs nothing next to resolving it.
    static let minimumRun = 1_024

    private func run<T>(_ coordinates: [Coordinate], _ body: (Resolver, Coordinate) -> T) -> [T] {
        let count = coordinates.count
        guard count > 0 else { return [] }
        let active = min(workers.count, (count + Self.minimumRun - 1) / Self.minimumRun)
        let size = max(Self.minimumRun, (count + active * Self.runsPerWorker - 1) / (active * Self.runsPerWorker))
        let runs = (count + size - 1) / size
        let nextRun = Atomic<Int>(0)
        let workers = self.workers
        // Each worker initialises its own slice of the answer array in place: no optional slots,
        // no copy after the join, so nothing but the resolving runs serially per point.
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            let output = UnsafeSendable(buffer.baseAddress!)  // count > 0, so the buffer has an address
            coordinates.withUnsafeBufferPointer { points in
                let points = UnsafeSendable(points)
                withoutActuallyEscaping(body) { body in
                    let body = UnsafeSendable(body)
                    DispatchQueue.concurrentPerform(iterations: active) { w in
                        let resolver = workers[w].resolver
                        while case let run = nextRun.wrappingAdd(1, ordering: .relaxed).oldValue, run < runs {
                            for i in (run * size)..<min((run + 1) * size, count) {
                                (output.value + i).initialize(to: body.value(resolver, points.value[i]))
                            }
                        }
                    }
                }
            }
            initialized = count
        }
    }
}

/// A resolver owned by exactly one worker index; `concurrentPerform` never gives one index to two threads.
private final class WorkerSlot: @unchecked Sendable {
    let resolver: Resolver
    init(_ resolver: Resolver) { self.resolver = resolver }
}

/// A value used only inside `concurrentPerform`, where every index touches its own part.
private struct UnsafeSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
