import Foundation
import RoquaIO
import RoquaTestSupport
import Testing

@testable import RoquaRegions

/// Regressions from hostile input: times outside 1970 … 2100, oversized attributes, content
/// after the document.
@Suite struct TrackReaderHardeningTests {
    typealias F = TrackFixtures

    @Test func timesOutsideTheWindowAreErrorsWithFileAndLine() throws {
        let dir = try TempDirectory()
        let cases: [(String, [String], Int, String)] = [
            ("huge.csv", ["39.92,32.83,1e19"], 1, "timestamp"),
            ("early.csv", ["lat,lon,time", "39.92,32.83,1969-12-31T23:59:59Z"], 2, "1969-12-31"),
            (
                "huge.geojson",
                [
                    #"{"type": "Feature", "properties": {"time": 1e19},"#,
                    #" "geometry": {"type": "Point", "coordinates": [32.83, 39.92]}}"#,
                ], 1, "outside"
            ),
            ("huge4th.geojson", [#"{"type": "LineString", "coordinates": ["#, "[32.83, 39.92, 0, 1e19]]}"], 2, "outside"),
            (
                "Records.json",
                [
                    #"{"locations": [{"latitudeE7": 399200000, "longitudeE7": 328300000,"#,
                    #" "timestampMs": "1e19"}]}"#,
                ], 2, "timestampMs"
            ),
            (
                "Timeline.json",
                [
                    #"{"semanticSegments": [{"startTime": "2024-01-01T10:00:00Z", "timelinePath": ["#,
                    #"{"point": "39.92°, 32.83°", "durationMinutesOffsetFromStartTime": "1e17"}]}]}"#,
                ], 2,
                "durationMinutesOffsetFromStartTime"
            ),
            ("late.gpx", ["<gpx><wpt lat=\"1\" lon=\"2\">", "<time>2100-01-01T00:00:00Z</time></wpt></gpx>"], 2, "2100-01-01"),
            (
                "semantic.json",
                [
                    #"{"timelineObjects": [{"placeVisit": {"location": {"latitudeE7": 1, "longitudeE7": 1},"#,
                    #""duration": {"startTimestampMs": "99999999999999999"}}}]}"#,
                ], 2, "startTimestampMs"
            ),
        ]
        for (name, lines, line, fragment) in cases {
            let path = try F.write(lines, name, in: dir)
            let error = F.readError(path)
            #expect(error?.file == path, "\(name)")
            #expect(error?.line == line, "\(name): \(String(describing: error))")
            #expect(
                error?.message.contains(fragment) == true && error?.message.contains("outside 1970-01-01") == true,
                "\(name): \(String(describing: error))")
        }
    }

    @Test func gpxAttributesAreBounded() throws {
        let dir = try TempDirectory()
        let path = dir.file("big.gpx")
        let big = String(repeating: "9", count: XMLTokenizer.maxAttributeBytes + 10)
        try "<gpx>\n<wpt lat=\"\(big)\" lon=\"1\"/></gpx>".write(toFile: path, atomically: true, encoding: .utf8)
        F.check(F.readError(path), file: path, line: 2, mentions: "attributes of <wpt> are longer than")
        let many = dir.file("many.gpx")
        let attributes = (0..<2000).map { "a\($0)=\"\(String(repeating: "x", count: 40))\"" }.joined(separator: " ")
        try "<gpx>\n<wpt \(attributes)/></gpx>".write(toFile: many, atomically: true, encoding: .utf8)
        F.check(F.readError(many), file: many, line: 2, mentions: "longer than")
    }

    @Test func contentAfterTheRootIsAnError() throws {
        let dir = try TempDirectory()
        let fine = try F.write(
            ["<gpx><wpt lat=\"1\" lon=\"2\"><time>2019-01-01T10:00:00Z</time></wpt></gpx>", "<!-- end -->", "  "],
            "fine.gpx", in: dir)
        #expect(try F.readAll(path: fine).count == 1)
        let text = try F.write(["<gpx></gpx>", "trailing words"], "text.gpx", in: dir)
        F.check(F.readError(text), file: text, line: 2, mentions: "text after the end of the document (</gpx>)")
        let element = try F.write(["<gpx></gpx>", "<gpx></gpx>"], "two.gpx", in: dir)
        F.check(F.readError(element), file: element, line: 2, mentions: "an element after the end of the document")
    }

    @Test func ignoredJSONMembersAreSkippedUnbuilt() throws {
        // A 5 MB array the reader does not need, before and inside the records: skipped by
        // `skipValue`, never turned into a tree (memory is measured in TrackImportMemorySlowTests).
        let dir = try TempDirectory()
        let filler = "[" + Array(repeating: "{\"a\": [1, 2, {\"b\": \"c\"}]}", count: 200_000).joined(separator: ",") + "]"
        let path = try F.write(
            #"{"deviceSettings": \#(filler), "locations": [{"latitudeE7": 410000000, "longitudeE7": 290000000, "#
                + #""timestamp": "2019-01-01T10:00:00Z", "activity": \#(filler)}]}"#, "Records.json", in: dir)
        #expect(try F.readAll(path: path).count == 1)
    }
}
