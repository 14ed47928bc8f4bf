import Foundation
import RoquaBoundaries
import RoquaRegions
import RoquaTestSupport
import Testing

@testable import RoquaAchievements

/// The pace calculator walks the context's regions in time order made once per context; it must
/// count what walking a sorted copy of the regions counted (the way it did before), equal times
/// and slices of a longer history included.
@Suite struct PaceOrderTests {
    /// The calculator as it was: a stable sort of the regions by first entry, then the same walk.
    static func reference(_ regions: ArraySlice<VisitedRegion>, window: Double, minSpeed: Double, minDistance: Double) -> Int {
        let regions = regions.sorted { $0.timestampStart < $1.timestampStart }
        guard !regions.isEmpty else { return 0 }
        var path = [0.0], runStart = [0]
        for i in regions.indices.dropFirst() {
            let a = regions[i - 1], b = regions[i]
            let hop = Geodesy.haversineMeters(
                Coordinate(latitude: a.latitude, longitude: a.longitude),
                Coordinate(latitude: b.latitude, longitude: b.longitude))
            let seconds = b.timestampStart.timeIntervalSince(a.timestampStart)
            let tooFast = hop > 1000 && hop > 400 / 3.6 * max(seconds, 0)
            path.append(tooFast ? 0 : path[i - 1] + hop)
            runStart.append(tooFast ? i : runStart[i - 1])
        }
        var best = 0, low = 0
        for high in regions.indices {
            low = max(low, runStart[high])
            while regions[high].timestampStart.timeIntervalSince(regions[low].timestampStart) >= window { low += 1 }
            var start = low
            while high - start + 1 > best {
                let metres = path[high] - path[start]
                let seconds = regions[high].timestampStart.timeIntervalSince(regions[start].timestampStart)
                if metres >= minDistance && (minSpeed == 0 || (seconds > 0 && metres / seconds >= minSpeed)) { best = high - start + 1 }
                start += 1
            }
        }
        return best
    }

    @Test func countsWhatASortedCopyCounted() throws {
        var random = SeededGenerator(state: 61)
        var regions: [VisitedRegion] = []
        var latitude = 41.0, longitude = 29.0
        for _ in 0..<3_000 {
            // Out of order, many at the same second, now and then a jump too fast for the ground.
            let time = 1_700_000_000 + Double(Int.random(in: 0..<40_000, using: &random) / 7 * 7)
            let jump = Int.random(in: 0..<200, using: &random) == 0
            latitude += jump ? 3 : Double.random(in: -0.004...0.004, using: &random)
            longitude += jump ? 3 : Double.random(in: -0.004...0.004, using: &random)
            regions.append(
                VisitedRegion(
                    latitude: latitude, longitude: longitude, radius: 150,
                    timestampStart: Date(timeIntervalSince1970: time), geohash: "sxk9byz"))
        }
        let settings: [(json: String, window: Double, speed: Double, distance: Double)] = [
            (#"{"target":5}"#, 3_600, 0, 0),
            (#"{"target":5,"windowMinutes":10,"minSpeedKmh":3,"minDistanceKm":1}"#, 600, 3 / 3.6, 1_000),
            (#"{"target":5,"windowMinutes":120,"minDistanceKm":2.5}"#, 7_200, 0, 2_500),
        ]
        for setting in settings {
            let parameters = try JSONDecoder().decode(AchievementParameters.self, from: Data(setting.json.utf8))
            let calculator = try RegionsPerHourCalculator(parameters: parameters)
            for slice in [regions[...], regions[1_234...], regions[17..<900], regions[5..<5]] {
                let context = AchievementContext(
                    slice: slice, hierarchy: nil, timeZone: TimeZone(identifier: "UTC")!, now: Date(), travel: nil)
                let expected = Self.reference(slice, window: setting.window, minSpeed: setting.speed, minDistance: setting.distance)
                #expect(Int(calculator.progress(context).current) == expected, "\(setting.json) \(slice.startIndex)..<\(slice.endIndex)")
                #expect(expected > 1 || slice.isEmpty)
            }
        }
    }
}
