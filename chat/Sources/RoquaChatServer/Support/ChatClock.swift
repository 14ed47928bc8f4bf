import Foundation
import NIOConcurrencyHelpers

/// Where the server reads the time: expiry, rate limits and clamping all go through it, so that
/// tests move time instead of sleeping.
package protocol ChatClock: Sendable {
    /// The current time.
    func now() -> Date
}

/// The system's wall clock.
package struct SystemClock: ChatClock {
    package init() {}
    package func now() -> Date { Date() }
}

/// A clock that moves only when told to.
package final class ManualClock: ChatClock {
    private let current: NIOLockedValueBox<Date>

    package init(_ start: Date = Date(timeIntervalSince1970: 1_746_000_000)) {
        current = NIOLockedValueBox(start)
    }

    package func now() -> Date { current.withLockedValue { $0 } }

    /// Moves the clock forward by `seconds`.
    package func advance(by seconds: TimeInterval) {
        current.withLockedValue { $0 = $0.addingTimeInterval(seconds) }
    }
}
