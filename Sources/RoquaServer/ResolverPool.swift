import Foundation
import RoquaBoundaries
import Synchronization

/// Resolvers for request handlers. A `Resolver` owns a GEOS context and a piece cache, so one
/// must never be used by two threads at once: a handler borrows one for the duration of a
/// synchronous call and gives it back. Handlers never suspend while holding one, so the pool
/// stays about as large as the number of threads running handlers.
final class ResolverPool: Sendable {
    /// A resolver in transit between the pool and one borrower; never shared.
    private struct Lent: @unchecked Sendable {
        let resolver: Resolver
    }

    let index: ResolverIndex
    /// Each resolver caches at most this many prepared vertices: the server keeps several, and
    /// the whole process should stay well under 200 MB.
    static let cacheVertices = 250_000
    private let idle = Mutex<[Lent]>([])

    init(index: ResolverIndex) {
        self.index = index
    }

    /// Runs `body` with a resolver no one else is using.
    /// - Throws: what `body` throws, or a GEOS error when a new resolver cannot be made.
    func with<T>(_ body: (Resolver) throws -> T) throws -> T {
        let lent = try idle.withLock { $0.popLast() } ?? Lent(resolver: Resolver(index: index, cacheVertices: Self.cacheVertices))
        defer { idle.withLock { $0.append(lent) } }
        return try body(lent.resolver)
    }

    /// Resolves one coordinate; an invalid one is a `ResolveError`.
    func resolve(_ coordinate: Coordinate) throws -> Resolution {
        try with { try $0.resolve(coordinate) }
    }
}
