import Foundation
import Synchronization

/// Exponential back-off with full jitter: attempt n waits a uniform time in
/// [0, min(cap, base·2ⁿ)], but never less than the server's `Retry-After`. Jitter keeps a
/// whole tour group that regains signal at once from retrying in lockstep.
public final class RetryPolicy: Sendable {
    /// The first attempt's upper bound, in seconds.
    public let base: TimeInterval
    /// No wait is longer (unless the server asks for longer).
    public let cap: TimeInterval
    /// Attempts in one `sync(maxAttempts:)` call before giving up with the last error.
    public let maxAttempts: Int
    private let random: Mutex<SplitMix64>

    /// A policy drawing its jitter from a generator seeded with `seed`.
    public init(base: TimeInterval = 1, cap: TimeInterval = 300, maxAttempts: Int = 5, seed: UInt64 = UInt64.random(in: 0...UInt64.max)) {
        self.base = base
        self.cap = cap
        self.maxAttempts = maxAttempts
        random = Mutex(SplitMix64(seed: seed))
    }

    /// Seconds to wait before attempt `attempt + 1` (attempt counts from 0).
    public func delay(afterAttempt attempt: Int, retryAfter: TimeInterval?) -> TimeInterval {
        let bound = min(cap, base * pow(2, Double(min(attempt, 30))))
        let unit = random.withLock { Double($0.next() >> 11) / Double(1 << 53) }
        return max(retryAfter ?? 0, bound * unit)
    }
}

/// A small seeded generator (SplitMix64): reproducible jitter and reproducible test runs.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    /// Starts from `seed`.
    public init(seed: UInt64) { state = seed }
    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
