import Foundation
import RoquaRegions
import RoquaTestSupport
import Testing

@Suite struct TrackReaderGPXTests {
    typealias F = TrackFixtures
    let t0 = TrackFixtures.t0

    static let full = [
        #"<?xml version="1.0" encoding="UTF-8" standalone="no" ?>"#,  // 1
        #"<!DOCTYPE gpx [ <!ENTITY x "y"> ]>"#,  // 2
        #"<gpx version="1.1" creator="test &amp; co" xmlns="http://www.topografix.com/GPX/1/1">"#,  // 3
        "  <metadata><time>2000-01-01T00:00:00Z</time></metadata>",  // 4
        "  <!-- a comment with <trkpt lat=\"1\" lon=\"1\"> inside --->",  // 5
        "  <wpt lat=\"41.5\" lon=\"29.5\"><name>untimed waypoint</name></wpt>",  // 6
        "  <trk><name>Walk &lt;1&gt;</name><trkseg>",  // 7
        "    <trkpt lat=\"41.0082\" lon=\"28.9784\">",  // 8
        "      <ele>39</ele><time>2019-01-01T10:00:00Z</time><hdop>3.5</hdop>",  // 9
        "    </trkpt>",  // 10
        "    <trkpt lon='28.9790' lat='41.0090'><time>2019-01-01T10:00:05.123Z</time>",  // 11
        "      <speed>1.5</speed>",  // 12
        "      <extensions><time>1999-01-01T00:00:00Z</time></extensions></trkpt>",  // 13
        "    <trkpt lat=\"-33.5\" lon=\"-70.25\"><time><![CDATA[2019-01-01T13:00:10+03:00]]></time></trkpt>",  // 14
        "  </trkseg></trk>",  // 15
        "  <wpt lat=\"40\" lon=\"30\"><time>2019-01-01T10:01:00+0100</time></wpt>",  // 16
        "  <rte><rtept lat=\"40.5\" lon=\"30.5\"><time>2019-01-01T10:02:00</time></rtept>",  // 17
        "  <rtept lat=\"40.6\" lon=\"30.6\"/></rte>",  // 18
        "</gpx>",  // 19
    ]

    @Test func readsTrackWaypointAndRoutePoints() throws {
        let dir = try TempDirectory()
        let fixes = try F.readAll(try GPXReader(path: try F.write(Self.full, "full.gpx", in: dir)))
        try #require(fixes.count == 5)
        F.check(fixes[0], 41.0082, 28.9784, t0, position: 8)
        F.check(fixes[1], 41.0090, 28.9790, t0 + 5.123, speed: 1.5, position: 11)
        F.check(fixes[2], -33.5, -70.25, t0 + 10, position: 14)
        F.check(fixes[3], 40, 30, t0 - 3600 + 60, position: 16)
        F.check(fixes[4], 40.5, 30.5, t0 + 120, position: 17)  // no zone: UTC
    }

    @Test func namespacePrefixesCRLFAndBOM() throws {
        let dir = try TempDirectory()
        let lines = [
            #"<?xml version="1.0"?>"#,
            #"<gpx:gpx xmlns:gpx="http://www.topografix.com/GPX/1/1"><gpx:trk><gpx:trkseg>"#,
            #"<gpx:trkpt lat="10" lon="20"><gpx:time>2019-01-01T10:00:00.5Z</gpx:time></gpx:trkpt>"#,
            #"<gpx:trkpt lat="10.5" lon="20.5">"#,
            "<gpx:time>2019-01-01T10:00:01Z</gpx:time></gpx:trkpt>",
            "</gpx:trkseg></gpx:trk></gpx:gpx>",
        ]
        let path = try F.write(lines, "prefixed.gpx", in: dir, newline: "\r\n", bom: true)
        let fixes = try F.readAll(path: path)
        try #require(fixes.count == 2)
        F.check(fixes[0], 10, 20, t0 + 0.5, position: 3)
        F.check(fixes[1], 10.5, 20.5, t0 + 1, position: 4)
    }

    @Test func pointsWithoutTimeAreSkippedAndCounted() throws {
        let dir = try TempDirectory()
        let lines = [
            "<gpx><trk><trkseg>",
            "<trkpt lat=\"1\" lon=\"2\"><time>2019-01-01T10:00:00Z</time></trkpt>",
            "<trkpt lat=\"1\" lon=\"2\"><ele>5</ele></trkpt>",
            "</trkseg></trk></gpx>",
        ]
        let path = try F.write(lines, "untimed.gpx", in: dir)
        let reader = try GPXReader(path: path)
        #expect(try F.readAll(reader).map(\.position) == [2])
        #expect(reader.untimedPoints == 1)
        let selfClosing = try F.write(
            ["<gpx><trk><trkseg>", "", "<trkpt lat=\"1\" lon=\"2\"/>", "</trkseg></trk></gpx>"], "s.gpx", in: dir)
        let assumed = try GPXReader(path: selfClosing, options: TrackReadOptions(assumedTime: Date(timeIntervalSince1970: t0)))
        let fixes = try F.readAll(assumed)
        try #require(fixes.count == 1)
        F.check(fixes[0], 1, 2, t0, position: 3)
        #expect(assumed.untimedPoints == 1)
    }

    @Test func truncatedFileNamesTheUnclosedElement() throws {
        let dir = try TempDirectory()
        let text = Self.full.prefix(12).joined(separator: "\n") + "\n      <spe"
        let path = try F.write(text, "truncated.gpx", in: dir)
        F.check(F.readError(path, { try GPXReader(path: $0) }), file: path, line: 13, mentions: "truncated")
        let cut = try F.write(Self.full.prefix(11).joined(separator: "\n"), "cut.gpx", in: dir)
        F.check(F.readError(cut, { try GPXReader(path: $0) }), file: cut, line: 11, mentions: "<trkpt> (opened on line 11)")
    }

    @Test func brokenXMLNamesTheLine() throws {
        let dir = try TempDirectory()
        let mismatched = try F.write(
            [
                "<gpx>", "<trk><trkseg>", "<trkpt lat=\"1\" lon=\"2\"><time>2019-01-01T10:00:00Z</time></trkpt>",
                "</trk></trkseg>", "</gpx>",
            ], "mismatched.gpx", in: dir)
        F.check(F.readError(mismatched, { try GPXReader(path: $0) }), file: mismatched, line: 4, mentions: "does not match <trkseg>")
        let unquoted = try F.write(["<gpx>", "<wpt lat=1 lon=2/>", "</gpx>"], "unquoted.gpx", in: dir)
        F.check(F.readError(unquoted, { try GPXReader(path: $0) }), file: unquoted, line: 2, mentions: "not quoted")
        let stray = try F.write(["<gpx>", "<wpt lat=\"1\" lon=\"2\"", "<time>x</time></wpt>", "</gpx>"], "stray.gpx", in: dir)
        F.check(F.readError(stray, { try GPXReader(path: $0) }), file: stray, line: 3, mentions: "unexpected '<'")
        let entity = try F.write(["<gpx>", "<wpt lat=\"1\" lon=\"2\" name=\"a &nbsp; b\"/>", "</gpx>"], "entity.gpx", in: dir)
        F.check(F.readError(entity, { try GPXReader(path: $0) }), file: entity, line: 2, mentions: "entity")
        let extraClose = try F.write(["<gpx>", "</gpx>", "</gpx>"], "close.gpx", in: dir)
        F.check(F.readError(extraClose, { try GPXReader(path: $0) }), file: extraClose, line: 3, mentions: "without a matching")
    }

    @Test func badNumbersRangesAndTimes() throws {
        let dir = try TempDirectory()
        func gpx(_ point: String, _ name: String) throws -> String {
            try F.write(["<?xml version=\"1.0\"?>", "<gpx>", "<trk><trkseg>", point, "</trkseg></trk>", "</gpx>"], name, in: dir)
        }
        let time = "<time>2019-01-01T10:00:00Z</time>"
        let notNumber = try gpx("<trkpt lat=\"4l.0\" lon=\"29\">\(time)</trkpt>", "nan.gpx")
        F.check(F.readError(notNumber, { try GPXReader(path: $0) }), file: notNumber, line: 4, mentions: "not a number")
        let nan = try gpx("<trkpt lat=\"nan\" lon=\"29\">\(time)</trkpt>", "nan2.gpx")
        F.check(F.readError(nan, { try GPXReader(path: $0) }), file: nan, line: 4, mentions: "not a number")
        let range = try gpx("<trkpt lat=\"91\" lon=\"29\">\(time)</trkpt>", "range.gpx")
        F.check(F.readError(range, { try GPXReader(path: $0) }), file: range, line: 4, mentions: "latitude")
        let lonRange = try gpx("<trkpt lat=\"41\" lon=\"-180.5\">\(time)</trkpt>", "lon.gpx")
        F.check(F.readError(lonRange, { try GPXReader(path: $0) }), file: lonRange, line: 4, mentions: "longitude")
        let missing = try gpx("<trkpt lat=\"41\">\(time)</trkpt>", "missing.gpx")
        F.check(F.readError(missing, { try GPXReader(path: $0) }), file: missing, line: 4, mentions: "no lon")
        let badTime = try gpx("<trkpt lat=\"41\" lon=\"29\">\n<time>2019-02-30T10:00:00Z</time></trkpt>", "time.gpx")
        F.check(F.readError(badTime, { try GPXReader(path: $0) }), file: badTime, line: 5, mentions: "ISO 8601")
        let noDate = try gpx("<trkpt lat=\"41\" lon=\"29\"><time>yesterday</time></trkpt>", "time2.gpx")
        F.check(F.readError(noDate, { try GPXReader(path: $0) }), file: noDate, line: 4, mentions: "yesterday")
    }

    @Test func rootMustBeGPX() throws {
        let dir = try TempDirectory()
        let kml = try F.write(["<?xml version=\"1.0\"?>", "<kml><Placemark/></kml>"], "a.gpx", in: dir)
        F.check(F.readError(kml, { try GPXReader(path: $0) }), file: kml, line: 2, mentions: "root element is <kml>")
        let empty = try F.write("", "empty.gpx", in: dir)
        F.check(F.readError(empty, { try GPXReader(path: $0) }), file: empty, line: 1, mentions: "no <gpx>")
    }

    @Test func emptyTrackGivesNoFixes() throws {
        let dir = try TempDirectory()
        let path = try F.write(["<gpx><trk><trkseg></trkseg></trk></gpx>"], "none.gpx", in: dir)
        #expect(try F.readAll(path: path).isEmpty)
    }
}
