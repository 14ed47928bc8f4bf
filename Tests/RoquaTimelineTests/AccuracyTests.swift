import Foundation
import RoquaTimeline
import Testing

/// How well a timeline matches the synthetic truth.
struct TimelineScore {
    /// Share of true stays of 10 minutes or more that a detected stay matches.
    var recall = 0.0
    /// Share of detected stays of 10 minutes or more that match a true stay.
    var precision = 0.0
    /// Median |detected start − true arrival| of matched stays, in minutes.
    var arrivalMinutes = 0.0
    /// Median |detected end − true departure| of matched stays, in minutes.
    var departureMinutes = 0.0
    /// Share of true move time during which a detected move has the true mode.
    var modeShare = 0.0
    /// True move time per mode in hours, and the share of it detected right.
    var perMode: [TravelMode: (hours: Double, right: Double)] = [:]
}

/// Scores timelines against truth by the acceptance rules.
enum Scoring {
    /// Whether a detected stay and a true stay are the same visit: overlapping by more than half the
    /// shorter one, centres less than 200 m apart.
    static func matches(_ stay: Stay, _ truth: TruthStay) -> Bool {
        let overlap = min(stay.end, truth.end) - max(stay.start, truth.start)
        let shorter = min(stay.end - stay.start, truth.end - truth.start)
        guard overlap > 0, Double(overlap) > 0.5 * Double(shorter) else { return false }
        return GeoPoint(latitude: stay.latitude, longitude: stay.longitude).distance(to: truth.place) < 200
    }

    /// The score of the timelines `runs` (detected entries with their builder's truth).
    static func score(_ runs: [(entries: [TimelineEntry], truth: SyntheticBuilder)]) -> TimelineScore {
        let tenMinutes: Int64 = 600_000
        var trueCount = 0
        var trueMatched = 0
        var detectedCount = 0
        var detectedMatched = 0
        var arrivals: [Double] = []
        var departures: [Double] = []
        var moveTime: Int64 = 0
        var rightTime: Int64 = 0
        var perMode: [TravelMode: (Int64, Int64)] = [:]
        for (entries, truth) in runs {
            let stays = entries.compactMap(\.stay)
            for t in truth.stays where t.end - t.start >= tenMinutes {
                trueCount += 1
                let candidates = stays.filter { matches($0, t) }
                guard
                    let best = candidates.max(by: {
                        min($0.end, t.end) - max($0.start, t.start) < min($1.end, t.end) - max($1.start, t.start)
                    })
                else { continue }
                trueMatched += 1
                arrivals.append(Double(abs(best.start - t.start)) / 60_000)
                departures.append(Double(abs(best.end - t.end)) / 60_000)
            }
            for s in stays where s.end - s.start >= tenMinutes {
                detectedCount += 1
                if truth.stays.contains(where: { matches(s, $0) }) { detectedMatched += 1 }
            }
            let moves = entries.compactMap(\.move)
            for t in truth.moves {
                var right: Int64 = 0
                for m in moves where m.mode == t.mode { right += max(0, min(m.end, t.end) - max(m.start, t.start)) }
                moveTime += t.end - t.start
                rightTime += right
                perMode[t.mode, default: (0, 0)].0 += t.end - t.start
                perMode[t.mode, default: (0, 0)].1 += right
            }
        }
        func median(_ values: [Double]) -> Double { values.isEmpty ? .nan : values.sorted()[values.count / 2] }
        var score = TimelineScore()
        score.recall = Double(trueMatched) / Double(max(trueCount, 1))
        score.precision = Double(detectedMatched) / Double(max(detectedCount, 1))
        score.arrivalMinutes = median(arrivals)
        score.departureMinutes = median(departures)
        score.modeShare = Double(rightTime) / Double(max(moveTime, 1))
        for (mode, (total, right)) in perMode { score.perMode[mode] = (Double(total) / 3.6e6, Double(right) / Double(max(total, 1))) }
        return score
    }
}

/// The acceptance figures on synthetic weeks: stay recall and precision, arrival and departure errors, mode time share.
@Suite struct AccuracyTests {
    @Test func syntheticWeeksMeetTheAcceptanceRules() throws {
        var runs: [(entries: [TimelineEntry], truth: SyntheticBuilder)] = []
        for seed in UInt64(1)...6 {
            let week = SyntheticDays.week(seed: seed)
            runs.append((Timeline.segment(week.fixes, isOnLand: SyntheticDays.isOnLand), week))
        }
        let score = Scoring.score(runs)
        let fixes = runs.reduce(0) { $0 + $1.truth.fixes.count }
        print("accuracy over \(runs.count * 6) synthetic days, \(fixes) fixes:")
        print(
            String(
                format: "  stays ≥ 10 min: recall %.3f, precision %.3f; median arrival error %.2f min, departure %.2f min",
                score.recall, score.precision, score.arrivalMinutes, score.departureMinutes))
        print(String(format: "  modes right for %.1f %% of true move time", score.modeShare * 100))
        for mode in TravelMode.allCases {
            if let m = score.perMode[mode] { print(String(format: "    %@: %.1f h, %.1f %% right", mode.rawValue, m.hours, m.right * 100)) }
        }
        #expect(score.recall >= 0.95)
        #expect(score.precision >= 0.95)
        #expect(score.arrivalMinutes <= 3)
        #expect(score.departureMinutes <= 3)
        #expect(score.modeShare >= 0.85)
    }
}
