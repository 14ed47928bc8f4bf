import Foundation
import Testing
@testable import RoquaAchievements

/// The search that dates an unlock: the first count whose prefix is done, for any monotone
/// progress, in few probes.
@Suite struct CompletionTimeTests {
    @Test func findsTheFirstDoneCountForAnyMonotoneProgress() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let count = Int.random(in: 1...5000, using: &generator)
            // A monotone progress: steps of random size, some flat stretches.
            var progress = [0.0]
            for _ in 0..<count { progress.append(progress.last! + (Bool.random(using: &generator) ? Double.random(in: 0...3, using: &generator) : 0)) }
            let target = Double.random(in: 0.01...max(0.02, progress[count]), using: &generator)
            guard progress[count] >= target else { continue }
            let expected = (1...count).first { progress[$0] >= target }!
            var probes = 0
            let found = CompletionTimes.first(count, top: progress[count], target: target) { k in
                probes += 1
                return (progress[k] >= target, progress[k])
            }
            #expect(found == expected)
            #expect(Double(probes) <= 2 * log2(Double(count)) + 2, "\(probes) probes for \(count)")
        }
    }

    /// A count target grows one per region: the guess lands on it at once.
    @Test func aLinearProgressTakesAFewProbes() {
        var probes = 0
        let found = CompletionTimes.first(30_000, top: 30_000, target: 1000) { k in
            probes += 1
            return (k >= 1000, Double(k))
        }
        #expect(found == 1000 && probes <= 2)
    }
}
