import Foundation
import RoquaIO

/// A seeded, generated phone history over several years: nights at home in Kadıköy, weekdays at
/// work in Levent with the commute between, and now and then a trip (Ankara, İzmir, Athens,
/// Sofia) of a few nights — a fix every 30–90 s while moving, every 5 minutes while still, with
/// accuracy. Times in UTC; the same seed gives the same file.
package enum PhoneHistory {
    static let home = (40.9879, 29.0281), work = (41.0790, 29.0110)
    static let trips = [(39.9208, 32.8541), (38.4237, 27.1428), (37.9838, 23.7275), (42.6977, 23.3219)]

    /// `lat,lon,timestamp,accuracy` lines for `days` days from `start` (a UTC midnight).
    package static func csv(seed: UInt64, days: Int, start: Date = Date(timeIntervalSince1970: 1_640_995_200)) -> String {
        var generator = SeededGenerator(state: seed)
        var lines = ["lat,lon,timestamp,accuracy"]
        var trip: (place: (Double, Double), nightsLeft: Int)?
        let format = Date.ISO8601FormatStyle()
        func fix(_ place: (Double, Double), _ time: Double, jitter: Double = 0.0004) {
            let lat = place.0 + (Double(generator.below(2001)) - 1000) / 1000 * jitter
            let lon = place.1 + (Double(generator.below(2001)) - 1000) / 1000 * jitter
            lines.append(
                String(format: "%.6f,%.6f,", lat, lon) + format.format(Date(timeIntervalSince1970: time))
                    + ",\(5 + generator.below(30))")
        }
        func stay(_ place: (Double, Double), from: Double, to: Double) {
            var time = from
            while time < to {
                fix(place, time)
                time += 300
            }
        }
        func move(_ a: (Double, Double), _ b: (Double, Double), from: Double, seconds: Double) {
            var time = from
            while time < from + seconds {
                let f = (time - from) / seconds
                fix((a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f), time, jitter: 0.0002)
                time += Double(30 + generator.below(61))
            }
        }
        for day in 0..<days {
            let midnight = start.timeIntervalSince1970 + Double(day) * 86_400
            if trip == nil, generator.below(40) == 0 {
                trip = (trips[generator.below(trips.count)], 2 + generator.below(4))
            }
            if let current = trip {
                stay(current.place, from: midnight, to: midnight + 86_400)
                trip = current.nightsLeft > 1 ? (current.place, current.nightsLeft - 1) : nil
                continue
            }
            let weekday = (day + 6) % 7 < 5  // 2022-01-01 was a Saturday
            guard weekday else {
                stay(home, from: midnight, to: midnight + 86_400)
                continue
            }
            stay(home, from: midnight, to: midnight + 6 * 3600)
            move(home, work, from: midnight + 6 * 3600, seconds: 2700)
            stay(work, from: midnight + 6 * 3600 + 2700, to: midnight + 15 * 3600)
            move(work, home, from: midnight + 15 * 3600, seconds: 3000)
            stay(home, from: midnight + 15 * 3600 + 3000, to: midnight + 86_400)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// SHA-256 and gzip of test bytes, through Roqua's own wrappers (files crafted by the tests).
package enum SHA256Digest {
    package static func of(_ bytes: [UInt8]) -> [UInt8] {
        var hasher = RoquaIO.SHA256()
        bytes.withUnsafeBytes { hasher.update($0) }
        return hasher.finalizeBytes()
    }
}

package enum Gzip {
    package static func compress(_ bytes: [UInt8]) throws -> [UInt8] {
        var out: [UInt8] = []
        let writer = GzipWriter(level: 1)
        bytes.withUnsafeBytes { writer.write($0) { out += $0 } }
        writer.finish { out += $0 }
        return out
    }
}
