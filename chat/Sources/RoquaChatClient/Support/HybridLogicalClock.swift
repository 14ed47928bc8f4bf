import Foundation
import Synchronization

/// A hybrid logical clock timestamp: wall milliseconds and a counter that breaks ties. Ordered
/// by (wall, counter); written `0001746000000123.0004` so that text order is time order.
public struct HLCTimestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Milliseconds since 1970, never behind any timestamp this clock has seen.
    public var wall: Int64
    /// Events within the same `wall` millisecond.
    public var counter: Int

    /// Creates the value from its parts.
    public init(wall: Int64, counter: Int) {
        self.wall = wall
        self.counter = counter
    }

    /// Parses the text form; nil when it is not one.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 16, parts[1].count == 4,
            let wall = Int64(parts[0]), let counter = Int(parts[1]), wall >= 0, counter >= 0
        else { return nil }
        self.init(wall: wall, counter: counter)
    }

    public var description: String {
        let wallText = String(wall)
        let counterText = String(counter)
        return String(repeating: "0", count: max(0, 16 - wallText.count)) + wallText + "."
            + String(repeating: "0", count: max(0, 4 - counterText.count)) + counterText
    }

    public static func < (lhs: HLCTimestamp, rhs: HLCTimestamp) -> Bool {
        (lhs.wall, lhs.counter) < (rhs.wall, rhs.counter)
    }
}

/// A hybrid logical clock (Kulkarni et al.): timestamps follow the device clock when it is
/// sane, never go backwards, and always land after everything received. A device whose clock
/// runs hours ahead cannot drag everyone into its future: remote timestamps further than
/// `maxDrift` ahead of the local clock are merged as if they were `maxDrift` ahead, so order
/// stays causal for sane clocks and bounded for broken ones.
public final class HybridLogicalClock: Sendable {
    private let state: Mutex<HLCTimestamp>
    private let physical: @Sendable () -> Int64
    private let maxDrift: Int64

    /// A clock reading `physical` (milliseconds since 1970; the system clock by default).
    public init(
        maxDriftMilliseconds: Int64 = 7 * 24 * 3_600_000,
        physical: @escaping @Sendable () -> Int64 = { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
    ) {
        self.physical = physical
        self.maxDrift = maxDriftMilliseconds
        state = Mutex(HLCTimestamp(wall: 0, counter: 0))
    }

    /// The timestamp of a local event (a message sent here).
    public func now() -> HLCTimestamp {
        let clock = physical()
        return state.withLock { last in
            last = clock > last.wall ? HLCTimestamp(wall: clock, counter: 0) : HLCTimestamp(wall: last.wall, counter: last.counter + 1)
            return last
        }
    }

    /// Merges a timestamp received from elsewhere; later local events order after it.
    public func receive(_ remote: HLCTimestamp) {
        let clock = physical()
        let bounded = remote.wall > clock + maxDrift ? HLCTimestamp(wall: clock + maxDrift, counter: 0) : remote
        state.withLock { last in
            let wall = max(last.wall, bounded.wall, clock)
            let counter: Int
            if wall == last.wall && wall == bounded.wall {
                counter = max(last.counter, bounded.counter) + 1
            } else if wall == last.wall {
                counter = last.counter + 1
            } else if wall == bounded.wall {
                counter = bounded.counter + 1
            } else {
                counter = 0
            }
            last = HLCTimestamp(wall: wall, counter: counter)
        }
    }

    /// The last timestamp issued or merged.
    public var last: HLCTimestamp { state.withLock { $0 } }
}
