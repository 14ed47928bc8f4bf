import Foundation
import RoquaTestSupport
import Testing

@testable import RoquaRegions

@Suite struct TrackReaderKMLTests {
    typealias F = TrackFixtures
    let t0 = TrackFixtures.t0

    @Test func gxTrackPairsWhensWithCoordsInOrder() throws {
        let dir = try TempDirectory()
        let path = try F.write(
            [
                #"<?xml version="1.0" encoding="UTF-8"?>"#,
                #"<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2"><Document><Folder><Folder>"#,
                "<Placemark><gx:MultiTrack><gx:Track>",
                "<when>2019-01-01T10:00:00Z</when>",
                "<when>2019-01-01T10:00:05Z</when>",
                "<gx:coord>29.0 41.0 12</gx:coord>",
                "<gx:coord>29.1 41.1 13</gx:coord>",
                "<gx:coord>29.2 41.2 14</gx:coord>",
                "</gx:Track></gx:MultiTrack></Placemark>",
                "</Folder></Folder></Document></kml>",
            ], "track.kml", in: dir)
        let reader = try KMLReader(path: path)
        let fixes = try F.readAll(reader)
        try #require(fixes.count == 2)
        F.check(fixes[0], 41.0, 29.0, t0, position: 6)
        F.check(fixes[1], 41.1, 29.1, t0 + 5, position: 7)
        #expect(reader.untimedPoints == 1)  // the third coord has no <when>
        #expect(try TrackFormat.detect(path: path) == .kml)
    }

    @Test func placemarkTimesApplyToTheirGeometries() throws {
        let dir = try TempDirectory()
        let path = try F.write(
            [
                "<kml><Document>",
                "<Placemark><TimeStamp><when>2019-01-01T10:00:00Z</when></TimeStamp><Point><coordinates>29,41,0</coordinates></Point></Placemark>",
                "<Placemark><TimeSpan><begin>2019-01-01T11:00:00Z</begin><end>2019-01-01T12:00:00Z</end></TimeSpan>",
                "<MultiGeometry><Point><coordinates>29.5,41.5</coordinates></Point>",
                "<LineString><coordinates>",
                "  30,40 30.1,40.1",
                "  30.2,40.2",
                "</coordinates></LineString>",
                "<Polygon><outerBoundaryIs><LinearRing><coordinates>1,1 2,2 1,2 1,1</coordinates></LinearRing></outerBoundaryIs></Polygon>",
                "</MultiGeometry></Placemark>",
                "<Placemark><name>home</name><Point><coordinates>28,40</coordinates></Point></Placemark>",
                "<Placemark><TimeStamp><when>2019-01-02</when></TimeStamp><Point><coordinates>27,39</coordinates></Point></Placemark>",
                "</Document></kml>",
            ], "places.kml", in: dir)
        let reader = try KMLReader(path: path)
        let fixes = try F.readAll(reader)
        try #require(fixes.count == 6)
        F.check(fixes[0], 41, 29, t0, position: 2)
        F.check(fixes[1], 41.5, 29.5, t0 + 3600, position: 4)  // a Point over a span: at begin …
        F.check(fixes[2], 41.5, 29.5, t0 + 7200, position: 4)  // … and at end
        F.check(fixes[3], 40, 30, t0 + 3600, position: 6)  // a line: first at begin
        F.check(fixes[4], 40.2, 30.2, t0 + 7200, position: 7)  // last at end
        F.check(fixes[5], 39, 27, t0 + 86_400 - 36_000, position: 12)
        #expect(reader.untimedPoints == 2)  // the line's middle point and the untimed "home"
    }

    /// A bad value costs its point, never the file; the skip names the line and the value.
    @Test func aBadValueIsSkippedAndNamed() throws {
        let dir = try TempDirectory()
        func skippedOnly(_ path: String) throws -> TrackReadError? {
            let reader = try KMLReader(path: path)
            #expect(try F.readAll(reader).isEmpty, "\(path)")
            #expect(reader.skipped.count == 1, "\(path): \(reader.skipped)")
            return reader.skipped.first
        }
        let when = try F.write(
            [
                "<kml><Placemark>",
                "<TimeStamp><when>yesterday</when></TimeStamp><Point><coordinates>29,41</coordinates></Point></Placemark></kml>",
            ],
            "when.kml", in: dir)
        F.check(try skippedOnly(when), file: when, line: 2, mentions: "yesterday")
        let coords = try F.write(
            ["<kml><Placemark><Point><coordinates>", "29;41", "</coordinates></Point></Placemark></kml>"],
            "coords.kml", in: dir)
        F.check(try skippedOnly(coords), file: coords, line: 2, mentions: "lon,lat")
        let range = try F.write(
            [
                "<kml><Placemark><TimeStamp><when>2019-01-01T10:00:00Z</when></TimeStamp>",
                "<Point><coordinates>29,95</coordinates></Point></Placemark></kml>",
            ], "range.kml", in: dir)
        F.check(try skippedOnly(range), file: range, line: 2, mentions: "latitude")
        let old = try F.write(
            [
                "<kml><Placemark><TimeStamp><when>1901-12-13T20:45:52Z</when></TimeStamp><Point><coordinates>29,41</coordinates></Point></Placemark></kml>"
            ],
            "old.kml", in: dir)
        F.check(try skippedOnly(old), file: old, line: 1, mentions: "outside 1970-01-01")
        let gpx = try F.write(["<gpx></gpx>"], "root.kml", in: dir)
        F.check(F.readError(gpx, { try KMLReader(path: $0) }), file: gpx, line: 1, mentions: "root element is <gpx>")
    }

    /// The real-world glitches that used to refuse whole files: an empty `<gx:coord>` (OpenTracks),
    /// an empty `<when>`, one invalid coordinate among good ones. The pairs after a bad coord stay paired.
    @Test func oneGlitchCostsOnePoint() throws {
        let dir = try TempDirectory()
        let path = try F.write(
            [
                #"<kml xmlns:gx="http://www.google.com/kml/ext/2.2"><Document><Placemark><gx:Track>"#,
                "<when>2019-01-01T10:00:00Z</when>",
                "<when>2019-01-01T10:00:05Z</when>",
                "<when></when>",
                "<when>2019-01-01T10:00:15Z</when>",
                "<gx:coord>29.0 41.0 12</gx:coord>",
                "<gx:coord></gx:coord>",
                "<gx:coord>29.2 41.2 14</gx:coord>",
                "<gx:coord>29.3 41.3 15</gx:coord>",
                "</gx:Track></Placemark>",
                "<Placemark><TimeStamp><when>2019-01-01T11:00:00Z</when></TimeStamp><LineString><coordinates>",
                "30,40 30.1,abc",
                "30.2,40.2",
                "</coordinates></LineString></Placemark>",
                "</Document></kml>",
            ], "glitches.kml", in: dir)
        let reader = try KMLReader(path: path)
        let fixes = try F.readAll(reader)
        try #require(fixes.count == 4, "\(fixes)")
        F.check(fixes[0], 41.0, 29.0, t0, position: 6)
        F.check(fixes[1], 41.3, 29.3, t0 + 15, position: 9)  // the 4th coord keeps the 4th when
        F.check(fixes[2], 40, 30, t0 + 3600, position: 12)
        F.check(fixes[3], 40.2, 30.2, t0 + 3600, position: 13)
        #expect(reader.untimedPoints == 1, "the 3rd coord's <when> is empty: untimed")
        #expect(
            reader.skipped.count == 2 && reader.skipped.byReason == ["invalid coordinate": 2] && reader.skipped.lines == [7, 12],
            "\(reader.skipped)")
        #expect(reader.skipped.summary == "2 record(s) skipped (2 invalid coordinate; lines 7, 12)")
    }
}
