import Foundation
import RoquaRegions
import RoquaTestSupport
import Testing

@Suite struct TrackReaderGeoJSONTests {
    typealias F = TrackFixtures
    let t0 = TrackFixtures.t0

    static let collection = [
        #"{"type": "FeatureCollection", "name": "test", "features": ["#,  // 1
        #"  {"type": "Feature", "properties": {"time": "2019-01-01T10:00:00Z", "accuracy": 8, "speed": 1.25,"#,  // 2
        #"     "note": {"nested": [1, 2, {"x": "]}"}]}},"#,  // 3
        #"   "geometry": {"type": "Point", "coordinates": [28.9784, 41.0082, 39]}},"#,  // 4
        #"  {"type": "Feature", "geometry": {"type": "LineString", "coordinates": ["#,  // 5
        #"     [29.0, 41.0, 10],"#,  // 6
        #"     [29.1, 41.1, 11]]},"#,  // 7
        #"   "properties": {"coordTimes": ["2019-01-01T10:00:01Z", "2019-01-01T10:00:02.5Z"]}},"#,  // 8
        #"  {"type": "Feature", "properties": {"times": [1546336803, 1546336804000]},"#,  // 9
        #"   "geometry": {"type": "MultiPoint", "coordinates": [[30, 40], [30.5, 40.5]]}},"#,  // 10
        #"  {"type": "Feature", "properties": null, "geometry": {"type": "LineString", "coordinates": [[-70.25, -33.5, 0, 1546336805]]}},"#,
        #"  {"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [[[0,0],[1,0],[1,1],[0,0]]]}},"#,  // 12
        #"  {"type": "Feature", "properties": {"time": "2019-01-01T10:00:00Z"}, "geometry": null},"#,  // 13
        #"  {"type": "Feature", "properties": {"coordinateProperties": {"times": [["2019-01-01T10:00:06Z"], ["2019-01-01T10:00:07Z"]]}},"#,
        #"   "geometry": {"type": "MultiLineString", "coordinates": [[[1, 2]], [[3, 4]]]}}"#,  // 15
        #"]}"#,  // 16
    ]

    @Test func readsEveryGeometryKindInOrder() throws {
        let dir = try TempDirectory()
        let fixes = try F.readAll(path: try F.write(Self.collection, "track.geojson", in: dir))
        try #require(fixes.count == 8)
        F.check(fixes[0], 41.0082, 28.9784, t0, accuracy: 8, speed: 1.25, position: 4)
        F.check(fixes[1], 41.0, 29.0, t0 + 1, position: 6)
        F.check(fixes[2], 41.1, 29.1, t0 + 2.5, position: 7)
        F.check(fixes[3], 40, 30, t0 + 3, position: 10)
        F.check(fixes[4], 40.5, 30.5, t0 + 4, position: 10)  // epoch milliseconds
        F.check(fixes[5], -33.5, -70.25, t0 + 5, position: 11)  // 4th coordinate
        F.check(fixes[6], 2, 1, t0 + 6, position: 15)
        F.check(fixes[7], 4, 3, t0 + 7, position: 15)
    }

    @Test func singleFeatureAndBareGeometry() throws {
        let dir = try TempDirectory()
        let feature = try F.write(
            #"{"geometry": {"type": "Point", "coordinates": [29, 41]}, "type": "Feature", "properties": {"timestamp": 1546336800}}"#,
            "one.json", in: dir)
        F.check(try #require(try F.readAll(path: feature).first), 41, 29, t0, position: 1)
        let bare = try F.write(
            #"{"type": "LineString", "coordinates": [[29, 41, 0, 1546336800], [29.5, 41.5, 0, 1546336801]]}"#,
            "bare.geojson", in: dir)
        #expect(try F.readAll(path: bare).map(\.timestamp.timeIntervalSince1970) == [t0, t0 + 1])
    }

    @Test func positionsWithoutTimesAreSkippedAndCounted() throws {
        let dir = try TempDirectory()
        let lines = [
            #"{"type": "FeatureCollection", "features": ["#,
            #"{"type": "Feature", "properties": {"time": "2019-01-01T10:00:00Z"},"#,
            #" "geometry": {"type": "LineString", "coordinates": [[29, 41],"#,
            #" [29.1, 41.1]]}}]}"#,
        ]
        let path = try F.write(lines, "untimed.geojson", in: dir)
        let reader = try GeoJSONTrackReader(path: path)
        #expect(try F.readAll(reader).isEmpty)
        #expect(reader.untimedPoints == 2)
        let assumed = try GeoJSONTrackReader(path: path, options: TrackReadOptions(assumedTime: Date(timeIntervalSince1970: t0)))
        let fixes = try F.readAll(assumed)
        #expect(fixes.map(\.timestamp.timeIntervalSince1970) == [t0, t0] && fixes.map(\.position) == [3, 4])
        #expect(assumed.untimedPoints == 2)
    }

    @Test func malformedFeaturesNameTheLine() throws {
        let dir = try TempDirectory()
        func collection(_ feature: [String], _ name: String) throws -> String {
            try F.write([#"{"type": "FeatureCollection", "features": ["#] + feature + ["]}"], name, in: dir)
        }
        let count = try collection(
            [
                #"{"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[29, 41], [29, 41]]},"#,
                #" "properties": {"coordTimes": ["2019-01-01T10:00:00Z"]}}"#,
            ], "count.geojson")
        F.check(F.readError(count, { try GeoJSONTrackReader(path: $0) }), file: count, line: 3, mentions: "1 times for 2 positions")
        let badTime = try collection(
            [
                #"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [29, 41]},"#,
                #" "properties": {"time": "2019-01-01T25:00:00Z"}}"#,
            ], "time.geojson")
        F.check(F.readError(badTime, { try GeoJSONTrackReader(path: $0) }), file: badTime, line: 3, mentions: "2019-01-01T25:00:00Z")
        let range = try collection(
            [
                #"{"type": "Feature", "properties": {"time": 1546336800},"#,
                #" "geometry": {"type": "Point", "coordinates": [41, 129]}}"#,
            ], "range.geojson")
        F.check(F.readError(range, { try GeoJSONTrackReader(path: $0) }), file: range, line: 3, mentions: "latitude")
        let kind = try collection(
            [
                #"{"type": "Feature", "properties": {"time": 1546336800},"#,
                #" "geometry": {"type": "Circle", "coordinates": [41, 29]}}"#,
            ], "kind.geojson")
        F.check(F.readError(kind, { try GeoJSONTrackReader(path: $0) }), file: kind, line: 3, mentions: "unsupported geometry type")
        let text = try collection(
            [
                #"{"type": "Feature", "properties": {"time": 1546336800},"#,
                #" "geometry": {"type": "Point", "coordinates": [41, "29"]}}"#,
            ], "text.geojson")
        F.check(F.readError(text, { try GeoJSONTrackReader(path: $0) }), file: text, line: 3, mentions: "not a number")
        let notFeature = try collection([#"{"type": "Point", "coordinates": [41, 29]}"#], "nf.geojson")
        F.check(F.readError(notFeature, { try GeoJSONTrackReader(path: $0) }), file: notFeature, line: 2, mentions: "not \"Feature\"")
    }

    /// A bad time or coordinate costs its position; the feature's other positions and the other
    /// features are read.
    @Test func aBadPositionCostsItself() throws {
        let dir = try TempDirectory()
        let path = try F.write(
            [
                #"{"type": "FeatureCollection", "features": ["#,
                #"{"type": "Feature", "properties": {"time": "2019-01-01T10:00:00Z"}, "geometry": {"type": "Point", "coordinates": [29, 41]}},"#,
                #"{"type": "Feature", "properties": {"time": "not a time"}, "geometry": {"type": "Point", "coordinates": [29.1, 41.1]}},"#,
                #"{"type": "Feature", "properties": {}, "geometry": {"type": "LineString", "coordinates": [[29.2, 41.2, 0, 1546336802], [29.3, 141.3, 0, 1546336803], [29.4, 41.4, 0, 1546336804]]}}"#,
                "]}",
            ], "mixed.geojson", in: dir)
        let reader = try GeoJSONTrackReader(path: path)
        let fixes = try F.readAll(reader)
        #expect(fixes.map(\.coordinate.latitude) == [41, 41.2, 41.4], "\(fixes)")
        #expect(reader.skipped.byReason == ["invalid time": 1, "invalid coordinate": 1], "\(reader.skipped)")
    }

    @Test func brokenAndTruncatedJSON() throws {
        let dir = try TempDirectory()
        let truncated = try F.write(Array(Self.collection.prefix(7)), "cut.geojson", in: dir)
        F.check(F.readError(truncated, { try GeoJSONTrackReader(path: $0) }), file: truncated, line: 8, mentions: "truncated")
        let comma = try F.write(
            [
                #"{"type": "FeatureCollection", "features": ["#,
                #"{"type": "Feature" "geometry": null}]}"#,
            ], "comma.geojson", in: dir)
        F.check(F.readError(comma, { try GeoJSONTrackReader(path: $0) }), file: comma, line: 2, mentions: "expected ','")
        let trailing = try F.write([#"{"type": "FeatureCollection", "features": []}"#, "}"], "trailing.geojson", in: dir)
        F.check(F.readError(trailing, { try GeoJSONTrackReader(path: $0) }), file: trailing, line: 2, mentions: "after the end")
    }

    @Test func wrongShapeNamesTheFile() throws {
        let dir = try TempDirectory()
        for (name, text) in [
            ("foo.geojson", #"{"foo": 1}"#), ("array.geojson", "[1, 2]"), ("type.geojson", #"{"type": "Topology"}"#),
            ("nofeatures.geojson", #"{"type": "FeatureCollection"}"#),
        ] {
            let path = try F.write(text, name, in: dir)
            let error = F.readError(path, { try GeoJSONTrackReader(path: $0) })
            #expect(error?.file == path)
            #expect(error?.message.contains("not a usable GeoJSON track") == true, "\(String(describing: error))")
        }
    }
}
