import Foundation

/// Fixed-window request counters (a minute, or an hour for the server's SMS cap) for the sign-in
/// routes, in memory: per client address and for the whole server. A stranger can no longer have
/// codes sent to a hundred numbers in a second (SMS pumping is somebody's bill) or try codes
/// without pause. The number of addresses remembered is bounded; when full, the oldest windows go
/// first.
actor RequestRateLimiter {
    struct Window {
        var start: Date
        var length: TimeInterval
        var count: Int
    }

    private var windows: [String: Window] = [:]
    private let capacity: Int
    init(capacity: Int = 100_000) { self.capacity = capacity }

    /// Counts one request under `key` at `now`; nil when it is within `limit` per `length`
    /// seconds, else the seconds until the window ends (the request is then not counted).
    func admit(_ key: String, limit: Int, per length: TimeInterval = 60, now: Date) -> Int? {
        var window = windows[key] ?? Window(start: now, length: length, count: 0)
        if now.timeIntervalSince(window.start) >= length { window = Window(start: now, length: length, count: 0) }
        guard window.count < limit else {
            return max(1, Int((length - now.timeIntervalSince(window.start)).rounded(.up)))
        }
        window.count += 1
        if windows[key] == nil, windows.count >= capacity { evict(now) }
        windows[key] = window
        return nil
    }

    private func evict(_ now: Date) {
        windows = windows.filter { now.timeIntervalSince($0.value.start) < $0.value.length }
        if windows.count >= capacity, let oldest = windows.min(by: { $0.value.start < $1.value.start }) {
            windows.removeValue(forKey: oldest.key)
        }
    }
}
