import Foundation
import RoquaRegions
import RoquaTestSupport
import Testing

/// Plain points read whole from the buffered bytes (`XMLTokenizer.takeElement`) give what the
/// events give — the same fixes with every field and line, the same untimed and skipped points,
/// the same error at the same place — and everything not plain is left to the events: checked
/// on generated GPX, TCX and KML files of points plain and not (entities, comments, CDATA, other
/// scripts, points in points, bad values, text beside elements, deep extensions), read through
/// buffers of many sizes so points straddle every boundary.
struct WholeOrEventsTests {
    /// Pieces a point is made of; `{t}` is replaced by a time.
    static let attributes = [
        #"lat="41.0082" lon="28.9784""#, #"lon='28.97' lat='41.01'"#, #"lat=" 41.5 " lon="29""#,
        #"lat="41.1" lon="29.1" lat="41.2""#, #"lat="4&#49;.0" lon="29""#, #"lat="abc" lon="29""#,
        #"lat="91" lon="29""#, #"lon="29""#, "lat=\"41.3\"\n   lon=\"29.3\"", #"lat = "41.4"  lon= "29.4""#,
        #"lat="41.5" lon="29.5" x:ext="ä""#, #"lat="1e1" lon="-0""#,
    ]
    static let children = [
        "<time>{t}</time>", "<time>{t}</time>", "<ele>12.5</ele>", "<time> {t}\n</time>", "<time></time>",
        "<time>   </time>", "<time>not a time</time>", "<time>2150-01-01T00:00:00Z</time>",
        "<time><![CDATA[{t}]]></time>", "<time>{t}<!-- c --></time>", "<speed>1.5</speed>", "<speed>-1</speed>",
        "<speed>n/a</speed>", "<extensions><hAcc>8</hAcc></extensions>",
        "<extensions><gpxtpx:TrackPointExtension><gpxtpx:speed>2.5</gpxtpx:speed></gpxtpx:TrackPointExtension></extensions>",
        "<extensions><time>1999-01-01T00:00:00Z</time></extensions>", "<extensions/>", "<name>Café</name>",
        "<name>a &amp; b</name>", "<!-- a comment -->", "<?pi x?>", "text beside", "<hdop>3.5</hdop>",
        "<gpx:time>{t}</gpx:time>", "<time>{t}</time><time>{t}</time>", "<hAcc><speed>3</speed></hAcc>",
        "<extensions><a><b><c><d><e><f><g><h>1</h></g></f></e></d></c></b></a></extensions>",
        "<sat>7</sat >", "<hAcc>12</hAcc>",
        "<time>{t}</time>\r\n",
    ]
    static let kinds = ["trkpt", "trkpt", "trkpt", "wpt", "rtept", "gpx:trkpt"]

    @Test func wholeAndByEventsAgree() throws {
        var random = SeededGenerator(state: 34)
        var points: [String] = []
        var second = 0
        for _ in 0..<3_000 {
            let kind = Self.kinds.randomElement(using: &random)!
            let inner = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                second += 5
                let time = Self.time(second)
                return Self.children.randomElement(using: &random)!.replacingOccurrences(of: "{t}", with: time)
            }
            let attributes = Self.attributes.randomElement(using: &random)!
            let plain = Int.random(in: 0..<3, using: &random) == 0
            second += 5
            let time = Self.time(second)
            // One in three points the plainest kind, as nearly every point of a real track is.
            points.append(
                plain
                    ? "<trkpt lat=\"41.\(second)\" lon=\"29.0\"><time>\(time)</time></trkpt>"
                    : "<\(kind) \(attributes)>" + inner.joined(separator: Bool.random(using: &random) ? "\n  " : "") + "</\(kind)>")
        }
        let bodies = [
            points.joined(separator: "\n"),
            // Every point plain but the last, which is broken: both ways must stop there, alike.
            points.filter { $0.contains("lon=\"29.0\"") }.joined(separator: "\n") + "\n<trkpt lat=\"1\" lon=\"2\"><time>",
            points.filter { $0.contains("lon=\"29.0\"") }.joined(separator: " "),
        ]
        for (number, body) in bodies.enumerated() {
            let text = Array(("<?xml version=\"1.0\"?>\n<gpx version=\"1.1\"><trk><trkseg>\n" + body + "\n</trkseg></trk></gpx>\n").utf8)
            for chunk in [16, 61, 333, 4_096, 1 << 20] {
                let (events, taken) = Self.agree(GPXReader.self, text, chunk: chunk, "GPX file \(number)")
                if number == 0 { #expect(events > 1_000, "the generated points are mostly read") }
                if chunk == 1 << 20 { #expect(taken > 900, "the plain points were read whole (\(taken), file \(number))") }
                if chunk == 16 { #expect(taken == 0) }  // no point fits: all by events
            }
        }
    }

    /// Both ways' text, compared line by line (the first difference named); the lines read and
    /// the points taken whole.
    @discardableResult
    static func agree(_ reader: any WholeOrEvents.Type, _ text: [UInt8], chunk: Int, _ what: String) -> (lines: Int, taken: Int) {
        let (whole, events, taken) = reader.bothWays(text, chunkSize: chunk)
        let (w, e) = (whole.split(separator: "\n"), events.split(separator: "\n"))
        #expect(w.count == e.count, "\(what), chunk \(chunk)")
        for (index, (a, b)) in zip(w, e).enumerated() where a != b {
            Issue.record("\(what), chunk \(chunk), line \(index): \(a) ≠ \(b)")
            break
        }
        return (e.count, taken)
    }

    static let tcxChildren = [
        "<Time>{t}</Time>", "<Time>{t}</Time>", "<Time> {t}\n</Time>", "<Time></Time>", "<Time>no</Time>",
        "<Time>2150-01-01T00:00:00Z</Time>",
        "<Position><LatitudeDegrees>41.01</LatitudeDegrees>"
            + "<LongitudeDegrees>28.97</LongitudeDegrees></Position>",
        "<Position><LatitudeDegrees>41.02</LatitudeDegrees><LongitudeDegrees>28.98</LongitudeDegrees></Position>",
        "<Position><LatitudeDegrees>41.03</LatitudeDegrees></Position>",
        "<Position><LatitudeDegrees>91</LatitudeDegrees><LongitudeDegrees>28.98</LongitudeDegrees></Position>",
        "<Position><LatitudeDegrees>x</LatitudeDegrees><LongitudeDegrees>28.98</LongitudeDegrees></Position>",
        "<Position><LatitudeDegrees>4&#49;</LatitudeDegrees><LongitudeDegrees>28</LongitudeDegrees></Position>",
        "<AltitudeMeters>12</AltitudeMeters>", "<HeartRateBpm><Value>120</Value></HeartRateBpm>",
        "<Extensions><ns3:TPX><ns3:Speed>2.5</ns3:Speed></ns3:TPX></Extensions>",
        "<Extensions><ns3:TPX><ns3:Speed>-1</ns3:Speed></ns3:TPX></Extensions>",
        "<Extensions><ns3:TPX><ns3:Speed>n/a</ns3:Speed></ns3:TPX></Extensions>",
        "<!-- c -->", "<Time><![CDATA[{t}]]></Time>", "<Notes>Café</Notes>", "<Time>{t}\u{0B}</Time>",
    ]

    @Test func tcxWholeAndByEventsAgree() {
        var random = SeededGenerator(state: 3)
        var points: [String] = [], second = 0
        for _ in 0..<3_000 {
            let inner = (0..<Int.random(in: 0...4, using: &random)).map { _ in
                second += 5
                return Self.tcxChildren.randomElement(using: &random)!.replacingOccurrences(of: "{t}", with: Self.time(second))
            }
            // Half the points the plainest kind, as nearly every point of a real activity is.
            let plain =
                "<Time>\(Self.time(second))</Time><Position><LatitudeDegrees>41.\(second)</LatitudeDegrees>"
                + "<LongitudeDegrees>29.0</LongitudeDegrees></Position>"
            points.append(
                "<Trackpoint>" + (Bool.random(using: &random) ? plain : "")
                    + inner.joined(separator: Bool.random(using: &random) ? "\n" : "") + "</Trackpoint>")
        }
        let text = Array(
            ("<?xml version=\"1.0\"?>\n<TrainingCenterDatabase><Activities><Activity><Lap><Track>\n"
                + points.joined(separator: "\n") + "\n</Track></Lap></Activity></Activities></TrainingCenterDatabase>\n").utf8)
        for chunk in [16, 61, 333, 4_096, 1 << 20] {
            let (lines, taken) = Self.agree(TCXReader.self, text, chunk: chunk, "TCX")
            #expect(lines > 1_000)
            if chunk == 1 << 20 { #expect(taken > 1_000) }
        }
    }

    static let kmlElements = [
        "<when>{t}</when>", "<gx:coord>28.97 41.01 0</gx:coord>", "<when>{t}</when>", "<gx:coord>28.98 41.02</gx:coord>",
        "<when></when>", "<when>2024-05-01</when>", "<when>no</when>", "<when>2150-01-01T00:00:00Z</when>",
        "<gx:coord>28.9</gx:coord>", "<gx:coord>x 41</gx:coord>", "<gx:coord>28.9 91</gx:coord>",
        "<gx:coord>28.9\r\n41.1</gx:coord>", "<gx:coord> 28.9\t41.1 </gx:coord>", "<when>{t}<!-- c --></when>",
        "<gx:coord>2&#56;.9 41</gx:coord>", "<gx:angles>0 0 0</gx:angles>", "<when>\u{0C}{t}</when>",
        "<coord>29 41</coord>", "<gx:coord/>",
    ]

    @Test func kmlWholeAndByEventsAgree() {
        var random = SeededGenerator(state: 5)
        var elements: [String] = [], second = 0
        for index in 0..<6_000 {
            second += 5
            // Mostly alternating when/coord pairs, as a logger writes them; the rest anything.
            let plain = index % 2 == 0 ? "<when>\(Self.time(second))</when>" : "<gx:coord>28.\(second) 41.0 0</gx:coord>"
            let piece = Int.random(in: 0..<3, using: &random) == 0 ? Self.kmlElements.randomElement(using: &random)! : plain
            elements.append(piece.replacingOccurrences(of: "{t}", with: Self.time(second)))
        }
        let text = Array(
            ("<?xml version=\"1.0\"?>\n<kml xmlns:gx=\"http://www.google.com/kml/ext/2.2\"><Document><Placemark><gx:Track>\n"
                + elements.joined(separator: "\n") + "\n</gx:Track></Placemark>\n<Placemark><TimeStamp><when>2024-05-01T00:00:00Z</when>"
                + "</TimeStamp><Point><coordinates>29,41</coordinates></Point></Placemark></Document></kml>\n").utf8)
        for chunk in [16, 61, 333, 4_096, 1 << 20] {
            let (lines, taken) = Self.agree(KMLReader.self, text, chunk: chunk, "KML")
            #expect(lines > 1_000)
            if chunk == 1 << 20 { #expect(taken > 3_000) }
        }
    }

    static let features = [
        #"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [28.97, 41.01]}, "properties": {"time": "{t}", "accuracy": 8}}"#,
        #"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [28.97, 41.01, 12]}, "properties": {"timestamp": {s}, "speed": 1.5}}"#,
        #"{"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[28.97, 41.01], [28.98, 41.02, 5, {s}]]}, "properties": {}}"#,
        #"{"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[28.97, 41.01], [28.98, 41.02]]}, "properties": {"coordTimes": ["{t}", "{t}"]}}"#,
        #"{"type": "Feature", "geometry": {"type": "MultiLineString", "coordinates": [[[28.97, 41.01]], [[28.98, 41.02]]]}, "properties": {"coordinateProperties": {"times": [["{t}"], ["{t}"]]}}}"#,
        #"{"type": "Feature", "geometry": null, "properties": {"time": "{t}"}}"#,
        #"{"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[[1, 2], [3, 4], [1, 2]]]}}"#,
        #"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [28.97, 91]}, "properties": {"time": "{t}"}}"#,
        #"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [28.97, 41]}, "properties": {"time": "yesterday"}}"#,
        #"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [28.97, 41]}, "properties": {"time": "{t}", "accuracy": -1}}"#,
        #"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [28.97, 41]}, "properties": null}"#,
        #"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [28.97, 41]}, "properties": {"time": "{t}", "time": "1999"}, "extra": [1, {"a": "°"}]}"#,
        #"{"geometry": {"coordinates": [28.97, 41], "type": "Point"}, "properties": {"time": "{t}"}, "type": "Feature"}"#,
        #"{"type": "Feature", "geometry": {"type": "MultiPoint", "coordinates": [[28.97, 41], [29, 41.1, 0, 1.7e12]]}}"#,
        #"{"type": "Feature", "geometry": {"type": "LineString", "coordinates": []}, "properties": {"time": "{t}"}}"#,
        #"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [28.97, 41, 1, 2, 3, 4]}, "properties": {"time": {s}}}"#,
        #"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [28.97, 41]}, "properties": {"time": "{t}", "coordinateProperties": {"x": 1}}}"#,
        #"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [28.97, 41]}, "properties": {"time": "{t}", "accuracy": "8"}}"#,
    ]

    @Test func geoJSONWholeAndByEventsAgree() {
        // Features that cost the whole file (times that do not match the positions, a position
        // where a list was): only at the end.
        let a =
            #"{"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[28.97, 41.01], [28.98, 41.02]]}, "properties": {"times": ["2019-01-01T00:00:00Z"]}}"#
        let b = #"{"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[28.97, 41.01], 5]}}"#
        var random = SeededGenerator(state: 7)
        var features: [String] = [], second = 0
        for _ in 0..<3_000 {
            second += 5
            let plain =
                "{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\", \"coordinates\": [28.\(second), 41.0]}, "
                + "\"properties\": {\"time\": \"\(Self.time(second))\", \"accuracy\": 20}}"
            let piece = Bool.random(using: &random) ? plain : Self.features.randomElement(using: &random)!
            features.append(
                piece.replacingOccurrences(of: "{t}", with: Self.time(second))
                    .replacingOccurrences(of: "{s}", with: "\(1_546_336_800 + second)"))
        }
        let bodies = [
            features.joined(separator: ",\n"),
            features.joined(separator: ",\n") + #", {"type": "Feature", "geometry": {"type": "Circle", "coordinates": [1, 2]}}"#,
            features.joined(separator: ",\n") + #", {"type": "Feature", "geometry": {"type": "Point", "coordinates": [1, "2"]}}"#,
            features.joined(separator: ",\n") + ", " + a.trimmingCharacters(in: .whitespaces),
            features.joined(separator: ",\n") + ", " + b.trimmingCharacters(in: .whitespaces),
        ]
        for (number, body) in bodies.enumerated() {
            let text = Array(("{\"type\": \"FeatureCollection\", \"features\": [\n" + body + "\n]}\n").utf8)
            for chunk in [16, 61, 333, 4_096, 1 << 20] {
                let (lines, taken) = Self.agree(GeoJSONTrackReader.self, text, chunk: chunk, "GeoJSON file \(number)")
                #expect(lines > 1_000)
                if chunk == 1 << 20 { #expect(taken > 1_000) }
            }
        }
    }

    static func time(_ second: Int) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: 1_546_336_800 + Double(second)))
    }

    /// Hostile shapes at the edges of what is read whole: whatever the input, both ways agree.
    @Test func edgesAgree() {
        let cases = [
            "<gpx><trkpt lat=\"1\" lon=\"2\"><time>2019-01-01T00:00:00Z</time></trkpt></gpx>",
            "<gpx><trkpt lat=\"1\" lon=\"2\"><time>2019-01-01T00:00:00Z</time></trkpt></gpx>trailing",
            "<gpx><trkpt lat=\"1\" lon=\"2\"><time>2019-01-01T00:00:00Z</time></trkpt>",
            "<gpx><trkpt lat=\"1\" lon=\"2\"><time>2019-01-01T00:00:00Z</time></trkpt><trkpt lat=\"1\" lon=\"2\"/></gpx>",
            "<gpx><trkpt lat=\"1\" lon=\"2\"><time>2019-01-01T00:00:00Z</time></trkptx></gpx>",
            "<gpx><trkpt lat=\"1\" lon=\"2\"><time>2019-01-01T00:00:00Z</time></trkpt ></gpx>",
            "<gpx><trkpt lat=\"1\" lon=\"2\"><time>2019-01-01T00:00:00Z</time>< /trkpt></gpx>",
            "<gpx><trkpt lat=\"1\" lon=\"2\" <time>2019-01-01T00:00:00Z</time></trkpt></gpx>",
            "<gpx><trkpt lat=\"1\" lon=\"2\"><time>" + String(repeating: " ", count: 1_100) + "2019-01-01T00:00:00Z</time></trkpt></gpx>",
            "<gpx><trkpt lat=\"1\" lon=\"2\"><speed>" + String(repeating: "1", count: 1_025) + "</speed></trkpt></gpx>",
            "<gpx><trkpt lat=\"1\"lon=\"2\"><time>2019-01-01T00:00:00Z</time></trkpt></gpx>",
            "<gpx><trkpt lat=\"1\" lon=\"2\"/ ><time>2019-01-01T00:00:00Z</time></trkpt></gpx>",
            "<gpx><trkpt lat=\"1\" lon=\"2\" lon=\"3\"><time>2019-01-01T00:00:00Z</time></trkpt></gpx>",
            "<gpx>" + String(repeating: "<a>", count: 508)
                + "<trkpt lat=\"1\" lon=\"2\"><x><y><time>2019-01-01T00:00:00Z</time></y></x></trkpt>"
                + String(repeating: "</a>", count: 508) + "</gpx>",
            "<gpx><trkpt lat=\"1\" lon=\"2\"><time>2019-01-01T00:00:00Z</time>\u{0B}</trkpt></gpx>",
            "<gpx><trkpt lat=\"1\" lon=\"2\"><time>\u{0B}</time></trkpt></gpx>",
            "<gpx><trkpt lat=\"1\" lon=\"2\"><trkpt lat=\"1\" lon=\"2\"></trkpt></trkpt></gpx>",
            "<gpx><trkpt lat=\"1\" lon=\"2\"><time>2019-01-01T00:00:00Z</Time></trkpt></gpx>",
            "<gpx><trkpt lat=\"1\" lon=\"2\"><extensions><wpt/></extensions></trkpt></gpx>",
            "<gpx>\n<trkpt lat=\"1\" lon=\"2\">\n<time>\n2019-01-01T00:00:00Z\n</time>\n</trkpt>\n</gpx>",
        ]
        for (index, text) in cases.enumerated() {
            for chunk in [16, 40, 1 << 20] {
                Self.agree(GPXReader.self, Array(text.utf8), chunk: chunk, "case \(index)")
            }
        }
    }
}
