import Foundation
import RoquaRegions
import RoquaTestSupport
import Testing

/// Plain points read whole from the buffered bytes (`XMLTokenizer.takeElement`) give what the
/// events give — the same fixes with every field and line, the same untimed and skipped points,
/// the same error at the same place — and everything not plain is left to the events: checked
/// on generated files of points plain and not (entities, comments, CDATA, other scripts, points
/// in points, bad values, text beside elements, deep extensions), read through buffers of many
/// sizes so points straddle every boundary.
struct GPXPlainPointTests {
    /// Pieces a point is made of; `{t}` is replaced by a time.
    static let attributes = [#"lat="41.0082" lon="28.9784""#, #"lon='28.97' lat='41.01'"#, #"lat=" 41.5 " lon="29""#,
                             #"lat="41.1" lon="29.1" lat="41.2""#, #"lat="4&#49;.0" lon="29""#, #"lat="abc" lon="29""#,
                             #"lat="91" lon="29""#, #"lon="29""#, "lat=\"41.3\"\n   lon=\"29.3\"", #"lat = "41.4"  lon= "29.4""#,
                             #"lat="41.5" lon="29.5" x:ext="ä""#, #"lat="1e1" lon="-0""#]
    static let children = ["<time>{t}</time>", "<time>{t}</time>", "<ele>12.5</ele>", "<time> {t}\n</time>", "<time></time>",
                           "<time>   </time>", "<time>not a time</time>", "<time>2150-01-01T00:00:00Z</time>",
                           "<time><![CDATA[{t}]]></time>", "<time>{t}<!-- c --></time>", "<speed>1.5</speed>", "<speed>-1</speed>",
                           "<speed>n/a</speed>", "<extensions><hAcc>8</hAcc></extensions>",
                           "<extensions><gpxtpx:TrackPointExtension><gpxtpx:speed>2.5</gpxtpx:speed></gpxtpx:TrackPointExtension></extensions>",
                           "<extensions><time>1999-01-01T00:00:00Z</time></extensions>", "<extensions/>", "<name>Café</name>",
                           "<name>a &amp; b</name>", "<!-- a comment -->", "<?pi x?>", "text beside", "<hdop>3.5</hdop>",
                           "<gpx:time>{t}</gpx:time>", "<time>{t}</time><time>{t}</time>", "<hAcc><speed>3</speed></hAcc>",
                           "<extensions><a><b><c><d><e><f><g><h>1</h></g></f></e></d></c></b></a></extensions>",
                           "<sat>7</sat >", "<hAcc>12</hAcc>",
                           "<time>{t}</time>\r\n"]
    static let kinds = ["trkpt", "trkpt", "trkpt", "wpt", "rtept", "gpx:trkpt"]

    @Test func wholeAndByEventsAgree() throws {
        var random = SeededGenerator(state: 34)
        var points: [String] = []
        var second = 0
        for _ in 0..<3_000 {
            let kind = Self.kinds.randomElement(using: &random)!
            let inner = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                second += 5
                let time = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: 1_546_336_800 + Double(second)))
                return Self.children.randomElement(using: &random)!.replacingOccurrences(of: "{t}", with: time)
            }
            let attributes = Self.attributes.randomElement(using: &random)!
            let plain = Int.random(in: 0..<3, using: &random) == 0
            second += 5
            let time = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: 1_546_336_800 + Double(second)))
            // One in three points the plainest kind, as nearly every point of a real track is.
            points.append(plain ? "<trkpt lat=\"41.\(second)\" lon=\"29.0\"><time>\(time)</time></trkpt>"
                : "<\(kind) \(attributes)>" + inner.joined(separator: Bool.random(using: &random) ? "\n  " : "") + "</\(kind)>")
        }
        let bodies = [points.joined(separator: "\n"),
                      // Every point plain but the last, which is broken: both ways must stop there, alike.
                      points.filter { $0.contains("lon=\"29.0\"") }.joined(separator: "\n") + "\n<trkpt lat=\"1\" lon=\"2\"><time>",
                      points.filter { $0.contains("lon=\"29.0\"") }.joined(separator: " ")]
        for (number, body) in bodies.enumerated() {
            let text = Array(("<?xml version=\"1.0\"?>\n<gpx version=\"1.1\"><trk><trkseg>\n" + body + "\n</trkseg></trk></gpx>\n").utf8)
            for chunk in [16, 61, 333, 4_096, 1 << 20] {
                let (whole, events, taken) = GPXReader.bothWays(text, chunkSize: chunk)
                let (w, e) = (whole.split(separator: "\n"), events.split(separator: "\n"))
                #expect(w.count == e.count, "file \(number), chunk \(chunk)")
                for (index, (a, b)) in zip(w, e).enumerated() where a != b {
                    Issue.record("file \(number), chunk \(chunk), line \(index): \(a) ≠ \(b)")
                    break
                }
                if number == 0 { #expect(e.count > 1_000, "the generated points are mostly read") }
                if chunk == 1 << 20 { #expect(taken > 900, "the plain points were read whole (\(taken), file \(number))") }
                if chunk == 16 { #expect(taken == 0) }  // no point fits: all by events
            }
        }
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
            "<gpx>" + String(repeating: "<a>", count: 508) + "<trkpt lat=\"1\" lon=\"2\"><x><y><time>2019-01-01T00:00:00Z</time></y></x></trkpt>"
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
                let (whole, events, _) = GPXReader.bothWays(Array(text.utf8), chunkSize: chunk)
                #expect(whole == events, "case \(index), chunk \(chunk)")
            }
        }
    }
}
