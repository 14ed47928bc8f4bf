import Foundation
import RoquaChatClient
import RoquaChatCore
import Synchronization
import Testing

/// A physical clock tests move by hand.
final class FakeWallClock: Sendable {
    private let value: Mutex<Int64>
    init(_ milliseconds: Int64) { value = Mutex(milliseconds) }
    func set(_ milliseconds: Int64) { value.withLock { $0 = milliseconds } }
    var read: @Sendable () -> Int64 { { self.value.withLock { $0 } } }
}

@Suite("Hybrid logical clock and retry policy")
struct ClockAndRetryTests {
    @Test("a reply orders after what it answers even when the replier's clock is an hour slow")
    func slowClock() {
        let correct = FakeWallClock(1_746_000_000_000)
        let slow = FakeWallClock(1_746_000_000_000 - 3_600_000)
        let alice = HybridLogicalClock(physical: correct.read)
        let bob = HybridLogicalClock(physical: slow.read)
        let question = alice.now()
        bob.receive(question)
        let answer = bob.now()
        #expect(answer > question)
        #expect(answer.wall == question.wall && answer.counter == question.counter + 2)
        // Bob's clock catching up does not reorder anything.
        slow.set(1_746_000_000_500)
        #expect(bob.now() > answer)
    }

    @Test("a clock going backwards never yields an earlier timestamp")
    func backwards() {
        let wall = FakeWallClock(2_000_000)
        let clock = HybridLogicalClock(physical: wall.read)
        let first = clock.now()
        wall.set(1_000_000)
        let second = clock.now()
        let third = clock.now()
        #expect(first < second && second < third && third.wall == 2_000_000)
    }

    @Test("a device a day ahead cannot drag others more than the drift bound")
    func futureClock() {
        let wall = FakeWallClock(1_746_000_000_000)
        let clock = HybridLogicalClock(maxDriftMilliseconds: 120_000, physical: wall.read)
        clock.receive(HLCTimestamp(wall: 1_746_000_000_000 + 86_400_000, counter: 5))
        #expect(clock.last.wall == 1_746_000_000_000 + 120_000)
        clock.receive(HLCTimestamp(wall: 1_746_000_060_000, counter: 2))
        #expect(clock.last == HLCTimestamp(wall: 1_746_000_120_000, counter: 2))
    }

    @Test("timestamps round-trip through their text, whose order is their order")
    func text() {
        let stamps = [
            HLCTimestamp(wall: 9, counter: 10), HLCTimestamp(wall: 10, counter: 2), HLCTimestamp(wall: 1_746_000_000_000, counter: 0),
        ]
        #expect(stamps.map { HLCTimestamp($0.description) } == stamps)
        #expect(stamps.map(\.description).sorted() == stamps.sorted().map(\.description))
        #expect(HLCTimestamp("12.3") == nil && HLCTimestamp("x") == nil && HLCTimestamp("000000000000000a.0001") == nil)
    }

    @Test("back-off grows, is capped, jitters reproducibly, and never undercuts Retry-After")
    func retry() {
        let policy = RetryPolicy(base: 1, cap: 60, seed: 42)
        let delays = (0..<12).map { policy.delay(afterAttempt: $0, retryAfter: nil) }
        for (attempt, delay) in delays.enumerated() {
            #expect(delay >= 0 && delay <= min(60, pow(2, Double(attempt))))
        }
        #expect(Set(delays).count == delays.count)
        let again = RetryPolicy(base: 1, cap: 60, seed: 42)
        #expect((0..<12).map { again.delay(afterAttempt: $0, retryAfter: nil) } == delays)
        #expect(policy.delay(afterAttempt: 0, retryAfter: 30) == 30)
        #expect(policy.delay(afterAttempt: 20, retryAfter: 90) >= 90)
    }
}

@Suite("Wire times")
struct WireTimeTests {
    @Test("every millisecond survives format and parse (signatures cover the integer)")
    func milliseconds() throws {
        var generator = SplitMix64(seed: 11)
        for _ in 0..<20_000 {
            let ms = Int64.random(in: 1_700_000_000_000...1_900_000_000_000, using: &generator)
            let text = ChatTime.format(ChatTime.date(milliseconds: ms))
            #expect(ChatTime.parse(text).map(ChatTime.milliseconds) == ms, "\(ms) → \(text)")
        }
    }
}
