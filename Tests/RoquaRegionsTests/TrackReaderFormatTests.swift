import Foundation
import RoquaIO
import RoquaTestSupport
import Testing

@testable import RoquaRegions

@Suite struct TrackReaderFormatTests {
    typealias F = TrackFixtures
    let t0 = TrackFixtures.t0

    @Test func detectsByExtensionAndContent() throws {
        let dir = try TempDirectory()
        let cases: [(String, String, TrackFormat)] = [
            ("a.gpx", "<gpx></gpx>", .gpx),
            ("a.xml", "<?xml version=\"1.0\"?>\n<!-- c -->\n<gpx:gpx xmlns:gpx=\"x\"></gpx:gpx>", .gpx),
            ("a.csv", "lat,lon,time\n", .csv),
            ("a.dat", "latitude;longitude;timestamp\n41;29;1546336800\n", .csv),
            ("a.data", "41.0,29.0,1546336800\n", .csv),
            ("a.geojson", "{\"foo\": 1}", .geoJSON),
            ("b.json", "{\"name\": \"x\", \"features\": []}", .geoJSON),
            ("c.json", "{\"crs\": {\"type\": \"name\"}, \"type\": \"FeatureCollection\", \"features\": []}", .geoJSON),
            ("Records.json", "{\"locations\": []}", .googleRecords),
            ("r.txt.json", "\n  {\"deviceSettings\": {\"semanticSegments\": 1}, \"locations\": []}", .googleRecords),
            ("Timeline.json", "{\"semanticSegments\": []}", .googleTimeline),
            ("t.json", "{\"rawSignals\": [], \"semanticSegments\": []}", .googleTimeline),
        ]
        for (name, text, format) in cases {
            let path = try F.write(text, name, in: dir, bom: name.hasPrefix("r"))
            #expect(try TrackFormat.detect(path: path) == format, "\(name)")
        }
    }

    @Test func unknownAndWrongShapedFilesNameTheFile() throws {
        let dir = try TempDirectory()
        let cases: [(String, String, String)] = [
            ("foo.json", #"{"foo": 1, "bar": [1, {"locations": 2}]}"#, #"keys "foo", "bar""#),
            ("empty.json", "{}", "an empty object"),
            ("array.json", #"[{"lat": 1}]"#, "top-level JSON array of objects with keys \"lat\""),
            ("numbers.json", "[1, 2]", "top-level JSON array whose first element is a number"),
            ("overland.json", #"{"locations": [{"lat": 1, "lon": 2}]}"#, "neither a Records.json location"),
            ("blank.json", "  \n", "empty file"),
            ("doc.svg", "<?xml version=\"1.0\"?><svg></svg>", "root element <svg>"),
            ("photo.jpg", "\u{FF}\u{D8}\u{FF}", "unknown track format"),
            ("notes.md", "# my trip\nwent places\n", "unknown track format"),
            ("broken.json", "{\"foo\": [1, 2}", "mismatched '}'"),
        ]
        for (name, text, fragment) in cases {
            let path = try F.write(text, name, in: dir)
            let error = #expect(throws: TrackReadError.self, "\(name)") { try TrackReaders.open(path: path) }
            #expect(error?.file == path)
            #expect(error?.message.contains(fragment) == true, "\(String(describing: error))")
        }
        let missing = dir.file("missing.gpx")
        let error = #expect(throws: TrackReadError.self) { try TrackReaders.open(path: missing) }
        #expect(error?.file == missing)
        #expect(error?.message.contains("cannot open") == true)
        let directory = #expect(throws: TrackReadError.self) { try TrackReaders.open(path: dir.path) }
        #expect(directory?.message.contains("directory") == true)
    }

    /// UTF-16 files (Windows tools save GPX and KML so), either byte order, are read as UTF-8:
    /// names outside the BMP, code units and surrogate pairs split across chunks, and all.
    @Test(arguments: [false, true])
    func utf16IsRead(bigEndian: Bool) throws {
        let dir = try TempDirectory()
        let path = dir.file("utf16.gpx")
        let text = """
            <?xml version="1.0" encoding="UTF-16"?>
            <gpx version="1.1"><trk><name>Kadıköy 🚶 walk</name><trkseg>
            <trkpt lat="40.9879" lon="29.0281"><time>2024-05-01T08:00:00Z</time></trkpt>
            <trkpt lat="40.9880" lon="29.0282"><time>2024-05-01T08:01:00Z</time></trkpt>
            </trkseg></trk></gpx>
            """
        let mark: [UInt8] = bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]
        try (Data(mark) + text.data(using: bigEndian ? .utf16BigEndian : .utf16LittleEndian)!).write(to: URL(fileURLWithPath: path))
        #expect(try TrackFormat.detect(path: path) == .gpx)
        let fixes = try TrackFixtures.readAll(try TrackReaders.open(path: path))
        #expect(fixes.count == 2 && fixes[1].coordinate.longitude == 29.0282 && fixes[1].position == 4, "\(fixes)")
        // Chunks of 7 bytes: every split a UTF-16 file can have.
        let stream = try ByteStream(path: path, chunkSize: 7)
        var bytes: [UInt8] = []
        while let byte = try stream.next() { bytes.append(byte) }
        #expect(String(decoding: bytes, as: UTF8.self) == text)
    }

    @Test func openReadsEachFormatEndToEnd() throws {
        let dir = try TempDirectory()
        let files = [
            try F.write("<gpx><wpt lat=\"41\" lon=\"29\"><time>2019-01-01T10:00:00Z</time></wpt></gpx>", "a.gpx", in: dir),
            try F.write("lat,lon,time\r\n41,29,2019-01-01T10:00:00Z\r\n", "a.csv", in: dir, bom: true),
            try F.write(
                #"{"features": [{"type": "Feature", "properties": {"time": "2019-01-01T10:00:00Z"}, "geometry": {"type": "Point", "coordinates": [29, 41]}}]}"#,
                "a.json", in: dir),
            try F.write(
                #"{"locations": [{"latitudeE7": 410000000, "longitudeE7": 290000000, "timestampMs": "1546336800000"}]}"#, "r.json", in: dir),
            try F.write(#"{"rawSignals": [{"position": {"LatLng": "41°, 29°", "timestamp": "2019-01-01T10:00:00Z"}}]}"#, "t.json", in: dir),
        ]
        for path in files {
            let fixes = try F.readAll(path: path)
            try #require(fixes.count == 1, "\(path)")
            F.check(fixes[0], 41, 29, t0)
        }
    }

    @Test func iso8601Variants() {
        let cases: [(String, TimeInterval)] = [
            ("2019-01-01T10:00:00Z", t0),
            ("2019-01-01T10:00:00.123Z", t0 + 0.123),
            ("2019-01-01T10:00:00.123456789Z", t0 + 0.123456789),
            ("2019-01-01t10:00:00,5z", t0 + 0.5),
            ("2019-01-01 10:00:00", t0),
            ("2019-01-01T10:00Z", t0),
            ("2019-01-01T13:00:00+03:00", t0),
            ("2019-01-01T13:00:00+0300", t0),
            ("2019-01-01T07:30:00-02:30", t0),
            ("2019-01-01T13:00:00+03", t0),
            (" 2019-01-01T10:00:00Z ", t0),
            ("2024-02-29T00:00:00Z", 1_709_164_800),
            ("1969-12-31T23:59:59Z", -1),
        ]
        for (text, expected) in cases {
            let parsed = TimeText.iso8601(text)?.timeIntervalSince1970
            #expect(parsed.map { abs($0 - expected) < 1e-6 } == true, "\(text) → \(String(describing: parsed))")
        }
        for bad in [
            "", "2019-01-01", "2019-13-01T00:00:00Z", "2019-02-29T00:00:00Z", "2019-01-01T24:00:00Z",
            "2019-01-01T10:00:00.Z", "2019-01-01T10:00:00Q", "2019-01-01T10:00:00+3", "19-01-01T10:00:00Z",
            "2019-01-01T10:00:00Zjunk", "1546336800",
        ] {
            #expect(TimeText.iso8601(bad) == nil, "\(bad)")
        }
        // A string's own bytes (read in place), a substring's, an array's and a bridged string's
        // (copied): one answer.
        for text in cases.map(\.0) + ["\n\t2019-01-01T10:00:00Z\r", "2019-01-01T10:00:00Z\u{0B}", "2019-01-01T10:00:00.Z"] {
            let answer = TimeText.iso8601(bytes: Array(text.utf8)[...])
            #expect(TimeText.iso8601(text) == answer, "\(text)")
            #expect(TimeText.iso8601(("x" + text).dropFirst()) == answer, "\(text)")
            #expect(TimeText.iso8601(NSString(string: text) as String) == answer, "\(text)")
        }
    }

    @Test func epochSecondsAndMilliseconds() {
        #expect(TimeText.parse("1546336800")?.timeIntervalSince1970 == t0)
        #expect(TimeText.parse("1546336800.5")?.timeIntervalSince1970 == t0 + 0.5)
        #expect(TimeText.parse("1546336800500")?.timeIntervalSince1970 == t0 + 0.5)
        #expect(TimeText.parse("nan") == nil)
        #expect(TimeText.parse("inf") == nil)
        #expect(TimeText.parse("0x10") == nil)
        #expect(TimeText.parse("") == nil)
    }
}
