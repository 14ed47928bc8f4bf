import Foundation

/// Whether a sign-in (a refresh family, the `sid` of every access token issued for it) is still
/// live, checked on every authenticated request. Signing out, "log out all devices" and a
/// detected refresh-token theft revoke the family in the store; from then on its access tokens
/// are refused at once, not 15 minutes later.
///
/// Answers are cached: a revocation made by this process applies immediately; one made by
/// another process sharing the PostgreSQL database is seen within `ttl`. Revoked ids are
/// remembered (bounded) so a stolen token does not make a store read per request.
actor SessionCheck {
    private let store: any ChatStore
    private let ttl: TimeInterval
    private let capacity: Int
    private var live: [String: Date] = [:]
    private var revoked: Set<String> = []

    init(store: any ChatStore, ttl: TimeInterval = 5, capacity: Int = 100_000) {
        self.store = store
        self.ttl = ttl
        self.capacity = capacity
    }

    /// Whether sign-in `id` is known and not revoked, as of `now`.
    /// - Throws: the store's error.
    func isLive(_ id: String, now: Date) async throws -> Bool {
        if revoked.contains(id) { return false }
        if let checked = live[id], now.timeIntervalSince(checked) < ttl, now >= checked { return true }
        let family = try await store.refreshFamily(id: id)
        guard let family, family.revokedAt == nil else {
            if family != nil { remember(revoked: id) }
            live.removeValue(forKey: id)
            return false
        }
        if live.count >= capacity { live = live.filter { now.timeIntervalSince($0.value) < ttl } }
        if live.count < capacity { live[id] = now }
        return true
    }

    /// Records sign-ins this process has just revoked.
    func revoke(_ ids: some Sequence<String>) {
        for id in ids {
            live.removeValue(forKey: id)
            remember(revoked: id)
        }
    }

    private func remember(revoked id: String) {
        if revoked.count >= capacity { revoked.removeAll(keepingCapacity: true) }
        revoked.insert(id)
    }
}
