import Foundation
import RoquaTestSupport
import Testing

@testable import RoquaRegions

/// TCX, OwnTracks `.rec` and Overland batches.
@Suite struct TrackReaderTextFormatsTests {
    typealias F = TrackFixtures
    let t0 = TrackFixtures.t0

    @Test func tcxTrackpointsWithPositionAndTime() throws {
        let dir = try TempDirectory()
        let path = try F.write(
            [
                #"<?xml version="1.0"?><TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2""#,
                #" xmlns:ns3="http://www.garmin.com/xmlschemas/ActivityExtension/v2"><Activities><Activity Sport="Running">"#,
                "<Id>2019-01-01T10:00:00Z</Id><Lap StartTime=\"2019-01-01T10:00:00Z\"><Track>",
                "<Trackpoint><Time>2019-01-01T10:00:00Z</Time><Position><LatitudeDegrees>41</LatitudeDegrees>",
                "<LongitudeDegrees>29</LongitudeDegrees></Position><Extensions><ns3:TPX><ns3:Speed>2.5</ns3:Speed></ns3:TPX></Extensions></Trackpoint>",
                "<Trackpoint><Time>2019-01-01T10:00:01Z</Time><HeartRateBpm><Value>120</Value></HeartRateBpm></Trackpoint>",
                "<Trackpoint><Position><LatitudeDegrees>41.1</LatitudeDegrees><LongitudeDegrees>29.1</LongitudeDegrees></Position></Trackpoint>",
                "</Track></Lap></Activity></Activities></TrainingCenterDatabase>",
            ], "run.tcx", in: dir)
        #expect(try TrackFormat.detect(path: path) == .tcx)
        let reader = try TCXReader(path: path)
        let fixes = try F.readAll(reader)
        try #require(fixes.count == 1)
        F.check(fixes[0], 41, 29, t0, speed: 2.5, position: 4)
        #expect(reader.untimedPoints == 1)  // the positioned point without a Time; heart rate alone is no place

        let real = try F.readAll(path: Repository.path("Tests/Fixtures/tracks/sample.tcx"))
        #expect(real.count == 6)  // ElementTree counts 6 timed Trackpoints with a Position
        let bad = try F.write(
            [
                "<TrainingCenterDatabase><Trackpoint><Time>2019-01-01T10:00:00Z</Time>",
                "<Position><LatitudeDegrees>41</LatitudeDegrees></Position></Trackpoint></TrainingCenterDatabase>",
            ],
            "half.tcx", in: dir)
        F.check(F.readError(bad, { try TCXReader(path: $0) }), file: bad, line: 1, mentions: "both LatitudeDegrees and LongitudeDegrees")
        // One bad Trackpoint costs itself: the ones after it are read.
        let mixed = try F.write(
            [
                "<TrainingCenterDatabase>",
                "<Trackpoint><Time>2019-01-01T10:00:00Z</Time><Position><LatitudeDegrees>91.5</LatitudeDegrees><LongitudeDegrees>29</LongitudeDegrees></Position></Trackpoint>",
                "<Trackpoint><Time>soon</Time><Position><LatitudeDegrees>41</LatitudeDegrees><LongitudeDegrees>29</LongitudeDegrees></Position></Trackpoint>",
                "<Trackpoint><Time>2019-01-01T10:00:02Z</Time><Position><LatitudeDegrees>41.2</LatitudeDegrees><LongitudeDegrees>29.2</LongitudeDegrees></Position></Trackpoint>",
                "</TrainingCenterDatabase>",
            ], "mixed.tcx", in: dir)
        let tolerant = try TCXReader(path: mixed)
        let kept = try F.readAll(tolerant)
        try #require(kept.count == 1)
        F.check(kept[0], 41.2, 29.2, t0 + 2, position: 4)
        #expect(tolerant.skipped.byReason == ["invalid coordinate": 1, "invalid time": 1] && tolerant.skipped.lines == [2, 3])
    }

    @Test func ownTracksRecordsReadLocationsOnly() throws {
        let dir = try TempDirectory()
        let path = try F.write(
            [
                "2019-01-01T10:00:00Z\t*                 \t{\"_type\":\"location\",\"lat\":41,\"lon\":29,\"tst\":1546336800,\"acc\":12,\"vel\":36}",
                "2019-01-01T10:00:05Z\tlwt               \t{\"_type\":\"lwt\",\"tst\":1546336805}",
                "",
                "2019-01-01T10:00:09Z\t*                 \t{\"_type\":\"location\",\"lat\":41.1,\"lon\":29.1}",
            ], "2019-01.rec", in: dir)
        #expect(try TrackFormat.detect(path: path) == .ownTracks)
        let fixes = try F.readAll(path: path)
        try #require(fixes.count == 2)
        F.check(fixes[0], 41, 29, t0, accuracy: 12, speed: 10, position: 1)
        F.check(fixes[1], 41.1, 29.1, t0 + 9, position: 4)
        let bad = try F.write(["2019-01-01T10:00:00Z\t*\t{\"_type\":\"location\",\"lat\":41,\"lon\":29,\"tst\":1e19}"], "bad.rec", in: dir)
        F.check(F.readError(bad), file: bad, line: 1, mentions: "outside 1970-01-01")
        let json = try F.write(["2019-01-01T10:00:00Z\t*\t{\"_type\":\"location\",\"lat\":41"], "cut.rec", in: dir)
        F.check(F.readError(json), file: json, line: 1, mentions: "truncated")
        // One bad line costs itself: the good lines around it are read.
        let mixed = try F.write(
            [
                "2019-01-01T10:00:00Z\t*\t{\"_type\":\"location\",\"lat\":41,\"lon\":29,\"tst\":1546336800}",
                "2019-01-01T10:00:01Z\t*\t{\"_type\":\"location\",\"lat\":141,\"lon\":29,\"tst\":1546336801}",
                "2019-01-01T10:00:02Z\t*\t{\"_type\":\"location\",\"lat\":41.2",
                "2019-01-01T10:00:03Z\t*\t{\"_type\":\"location\",\"lat\":41.3,\"lon\":29.3,\"tst\":1546336803}",
            ], "mixed.rec", in: dir)
        let reader = try TrackReaders.open(path: mixed)
        #expect(try F.readAll(reader).map(\.position) == [1, 4])
        #expect(reader.skipped.count == 2 && reader.skipped.lines == [2, 3], "\(reader.skipped)")
    }

    @Test func overlandBatchesAreGeoJSONFeaturesUnderLocations() throws {
        let dir = try TempDirectory()
        let path = try F.write(
            [
                #"{"locations": ["#,
                #"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [29, 41]},"#,
                #" "properties": {"timestamp": "2019-01-01T10:00:00Z", "horizontal_accuracy": 65, "speed": 1.5}},"#,
                #"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [29.1, 41.1]},"#,
                #" "properties": {"timestamp": "2019-01-01T10:00:10Z", "horizontal_accuracy": 5}}"#,
                #"], "current": {"type": "Feature"}}"#,
            ], "batch.json", in: dir)
        #expect(try TrackFormat.detect(path: path) == .overland)
        let fixes = try F.readAll(path: path)
        try #require(fixes.count == 2)
        F.check(fixes[0], 41, 29, t0, accuracy: 65, speed: 1.5, position: 2)
        F.check(fixes[1], 41.1, 29.1, t0 + 10, accuracy: 5, position: 4)
    }
}
