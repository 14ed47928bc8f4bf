import Foundation
import RoquaTestSupport
import Testing

@testable import RoquaRegions

/// The iOS Timeline array and the Semantic Location History monthly files.
@Suite struct TrackReaderGoogleExportsTests {
    typealias F = TrackFixtures
    let t0 = TrackFixtures.t0

    @Test func iosLocationHistoryArray() throws {
        let dir = try TempDirectory()
        let path = try F.write(
            [
                "[",
                #"{"endTime": "2019-01-01T14:00:00.000+03:00", "startTime": "2019-01-01T12:00:00.000+02:00","#,
                #" "visit": {"hierarchyLevel": "0", "topCandidate": {"probability": "0.9", "placeLocation": "geo:41.000000,29.000000"}}},"#,
                #"{"endTime": "2019-01-01T12:30:00Z", "startTime": "2019-01-01T12:00:00Z","#,
                #" "activity": {"start": "geo:41.1,29.1", "end": "geo:41.2,29.2", "topCandidate": {"type": "walking"}}},"#,
                #"{"startTime": "2019-01-01T10:00:00Z", "endTime": "2019-01-01T12:00:00Z","#,
                #" "timelinePath": [{"point": "geo:41.3,29.3", "durationMinutesOffsetFromStartTime": "5"}]},"#,
                #"{"startTime": "2019-01-01T10:00:00Z", "endTime": "2019-01-01T12:00:00Z", "timelineMemory": {"destinations": []}}"#,
                "]",
            ], "location-history.json", in: dir)
        #expect(try TrackFormat.detect(path: path) == .googleTimeline)
        let fixes = try F.readAll(path: path)
        try #require(fixes.count == 5)
        F.check(fixes[0], 41, 29, t0, position: 3)
        F.check(fixes[1], 41, 29, t0 + 3600, position: 3)
        F.check(fixes[2], 41.1, 29.1, t0 + 7200, position: 5)
        F.check(fixes[3], 41.2, 29.2, t0 + 9000, position: 5)
        F.check(fixes[4], 41.3, 29.3, t0 + 300, position: 7)
    }

    @Test func semanticLocationHistory() throws {
        let dir = try TempDirectory()
        let path = try F.write(
            [
                #"{"timelineObjects": ["#,
                #"{"placeVisit": {"location": {"latitudeE7": 410000000, "longitudeE7": 290000000, "placeId": "x"},"#,
                #" "duration": {"startTimestamp": "2019-01-01T10:00:00Z", "endTimestamp": "2019-01-01T11:00:00Z"},"#,
                #" "childVisits": [{"location": {"latitudeE7": 410010000, "longitudeE7": 290010000},"#,
                #"   "duration": {"startTimestampMs": "1546338600000", "endTimestampMs": "1546338600000"}}]}},"#,
                #"{"activitySegment": {"startLocation": {"latitudeE7": 410000000, "longitudeE7": 290000000},"#,
                #" "endLocation": {"latitudeE7": 411000000, "longitudeE7": 291000000},"#,
                #" "duration": {"startTimestampMs": "1546340400000", "endTimestampMs": "1546344000000"},"#,
                #" "waypointPath": {"waypoints": [{"latE7": 410500000, "lngE7": 290500000}]},"#,
                #" "simplifiedRawPath": {"points": [{"latE7": 410700000, "lngE7": 290700000, "timestampMs": "1546342200000", "accuracyMeters": 8}]}}}"#,
                #"]}"#,
            ], "2019_JANUARY.json", in: dir)
        #expect(try TrackFormat.detect(path: path) == .googleSemantic)
        let reader = try GoogleSemanticReader(path: path)
        let fixes = try F.readAll(reader)
        try #require(fixes.count == 6)
        F.check(fixes[0], 41, 29, t0, position: 2)
        F.check(fixes[1], 41, 29, t0 + 3600, position: 2)
        F.check(fixes[2], 41.001, 29.001, t0 + 1800, position: 4)
        F.check(fixes[3], 41, 29, t0 + 3600, position: 6)
        F.check(fixes[4], 41.07, 29.07, t0 + 5400, accuracy: 8, position: 10)
        F.check(fixes[5], 41.1, 29.1, t0 + 7200, position: 7)
        #expect(reader.untimedPoints == 1)  // the waypoint: no time of its own
        let noDuration = try F.write(
            [#"{"timelineObjects": [{"placeVisit": {"location": {"latitudeE7": 1, "longitudeE7": 1}}}]}"#],
            "bad.json", in: dir)
        F.check(F.readError(noDuration), file: noDuration, line: 1, mentions: "duration")
    }
}
