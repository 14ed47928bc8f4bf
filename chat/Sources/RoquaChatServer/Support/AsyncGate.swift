/// At most `limit` holders at once; the others wait their turn, in order. A request waiting here
/// has not read its body yet, so waiting costs no memory (the connection's back-pressure holds
/// the bytes with the client).
actor AsyncGate {
    private let limit: Int
    private var holders = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) { self.limit = max(1, limit) }

    /// Runs `body` holding one place.
    func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        if holders < limit {
            holders += 1
        } else {
            await withCheckedContinuation { waiting.append($0) }
        }
        defer {
            if waiting.isEmpty { holders -= 1 } else { waiting.removeFirst().resume() }
        }
        return try await body()
    }
}
