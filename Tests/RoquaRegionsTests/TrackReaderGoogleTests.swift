import Foundation
import RoquaIO
import RoquaTestSupport
import Testing

@testable import RoquaRegions

@Suite struct TrackReaderGoogleTests {
    typealias F = TrackFixtures
    let t0 = TrackFixtures.t0

    static let records = [
        #"{"deviceSettings": [{"a": "locations"}],"#,  // 1
        #"  "locations": [{"#,  // 2
        #"    "latitudeE7": 410082000, "longitudeE7": 289784000, "accuracy": 20, "velocity": 3,"#,  // 3
        #"    "activity": [{"activity": [{"type": "STILL", "confidence": 100}], "timestamp": "x"}],"#,  // 4
        #"    "timestamp": "2019-01-01T10:00:00.250Z""#,  // 5
        #"  }, {"timestampMs": "1546336805123", "latitudeE7": -335000000, "longitudeE7": -702500000},"#,  // 6
        #"  {"timestampMs": 1546336806000, "latitudeE7": 4294867296, "longitudeE7": 4292467296, "accuracy": null},"#,  // 7
        #"  {"timestamp": "2019-01-01T10:00:07Z", "activity": []},"#,  // 8
        #"  {"timestamp": "2019-01-01T13:00:08+03:00", "latitudeE7": 0, "longitudeE7": 0}"#,  // 9
        #"]}"#,  // 10
    ]

    @Test func readsRecordsJSON() throws {
        let dir = try TempDirectory()
        let fixes = try F.readAll(path: try F.write(Self.records, "Records.json", in: dir))
        try #require(fixes.count == 4)
        F.check(fixes[0], 41.0082, 28.9784, t0 + 0.25, accuracy: 20, speed: 3, position: 2)
        F.check(fixes[1], -33.5, -70.25, t0 + 5.123, position: 6)
        F.check(fixes[2], -0.01, -0.25, t0 + 6, position: 7)  // unsigned-overflow E7 values wrapped
        F.check(fixes[3], 0, 0, t0 + 8, position: 9)  // the activity-only record is skipped
    }

    @Test func recordsErrorsNameTheLine() throws {
        let dir = try TempDirectory()
        func records(_ body: [String], _ name: String) throws -> String {
            try F.write([#"{"locations": ["#] + body + ["]}"], name, in: dir)
        }
        let time = try records(
            [
                #"{"latitudeE7": 1, "longitudeE7": 1, "timestamp": "2019-01-01T10:00:00Z"},"#,
                #"{"latitudeE7": 1, "longitudeE7": 1,"#, #" "timestamp": "01/01/2019"}"#,
            ], "time.json")
        F.check(F.readError(time, { try GoogleRecordsReader(path: $0) }), file: time, line: 4, mentions: "locations[1]: timestamp")
        // The record before the bad one was read: one bad record costs itself.
        let tolerant = try GoogleRecordsReader(path: time)
        #expect(try F.readAll(tolerant).count == 1 && tolerant.skipped.byReason == ["invalid time": 1], "\(tolerant.skipped)")
        let none = try records(["", #"{"latitudeE7": 1, "longitudeE7": 1}"#], "none.json")
        F.check(F.readError(none, { try GoogleRecordsReader(path: $0) }), file: none, line: 3, mentions: "no timestamp")
        let ms = try records([#"{"latitudeE7": 1, "longitudeE7": 1, "timestampMs": "soon"}"#], "ms.json")
        F.check(F.readError(ms, { try GoogleRecordsReader(path: $0) }), file: ms, line: 2, mentions: "timestampMs")
        let half = try records([#"{"latitudeE7": 1, "timestamp": "2019-01-01T10:00:00Z"}"#], "half.json")
        F.check(F.readError(half, { try GoogleRecordsReader(path: $0) }), file: half, line: 2, mentions: "only one")
        let range = try records([#"{"latitudeE7": 1, "longitudeE7": 1900000000, "timestamp": "2019-01-01T10:00:00Z"}"#], "range.json")
        F.check(F.readError(range, { try GoogleRecordsReader(path: $0) }), file: range, line: 2, mentions: "longitude")
        let cut = try F.write(Array(Self.records.prefix(4)), "cut.json", in: dir)
        F.check(F.readError(cut, { try GoogleRecordsReader(path: $0) }), file: cut, line: 5, mentions: "truncated")
        let unterminated = try F.write(
            [#"{"locations": [{"timestamp": "2019-01-01T10:00:00Z}]}"#, "}]}"],
            "string.json", in: dir)
        F.check(F.readError(unterminated, { try GoogleRecordsReader(path: $0) }), file: unterminated, line: 1, mentions: "unterminated")
    }

    @Test func recordsOfTheWrongShape() throws {
        let dir = try TempDirectory()
        for (name, text) in [("a.json", #"{"foo": 1}"#), ("b.json", "[]"), ("c.json", "")] {
            let path = try F.write(text, name, in: dir)
            F.check(
                F.readError(path, { try GoogleRecordsReader(path: $0) }), file: path, line: nil,
                mentions: "not a Google Takeout Records.json")
        }
        let element = try F.write(#"{"locations": [42]}"#, "element.json", in: dir)
        F.check(F.readError(element, { try GoogleRecordsReader(path: $0) }), file: element, line: 1, mentions: "expected an object")
    }

    /// Records read as flat records give what reading each record whole gives — the same fixes
    /// and the same skipped records with the same messages — on records made of right and wrong
    /// members (wrong kinds, escapes, repeats, nesting, values out of range, lines inside).
    @Test func recordsFastPathAgreesWithTheGeneralOne() throws {
        let keys = [
            "latitudeE7", "longitudeE7", "timestamp", "timestampMs", "accuracy", "velocity", "activity", #"latitude\u0045\u0037"#,
            #"timestamp\u004Ds"#, "x",
        ]
        let values = [
            "410082000", "-335000000", "4294867296", "1900000000", "1.5e3", "-1", "0", "null", "true", #""410082000""#, "[1]",
            #"{"a": [1, "b"]}"#, #""2019-01-01T10:00:00Z""#, #""1546336805123""#, #"" 1546336805123 ""#, "1546336806000",
            #""2019-01-01T10:00:00.250+03:00""#, #""2019\u002D01-01T10:00:00Z""#, #""soon""#, #""2150-01-01T00:00:00Z""#,
            "-5e20", "\n 7", #""\"""#,
        ]
        var state: UInt64 = 54
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        let dir = try TempDirectory()
        for file in 0..<40 {
            var records: [String] = []
            for _ in 0..<500 {
                // Mostly the members a record has, so that many records are fixes.
                var members = [
                    #""latitudeE7": \#(400_000_000 + next(10_000_000))"#, #""longitudeE7": \#(290_000_000 + next(10_000_000))"#,
                    next(2) == 0
                        ? #""timestampMs": "\#(1_546_336_805_123 + next(1_000_000))""# : #""timestamp": "2019-01-01T10:00:0\#(next(10))Z""#,
                ]
                for _ in 0..<next(4) {
                    let member = #""\#(keys[next(keys.count)])": \#(values[next(values.count)])"#
                    members.insert(member, at: next(members.count + 1))
                }
                if next(5) == 0 { members.remove(at: next(members.count)) }
                records.append("{" + members.joined(separator: next(8) == 0 ? ",\n  " : ", ") + "}")
            }
            let path = try F.write(#"{"locations": ["# + records.joined(separator: ",\n") + "]}", "records-\(file).json", in: dir)
            let fast = try GoogleRecordsReader(path: path), whole = try GoogleRecordsReader(path: path)
            whole.readsFlatRecords = false
            let fastFixes = try F.readAll(fast), wholeFixes = try F.readAll(whole)
            let differs = (0..<min(fastFixes.count, wholeFixes.count)).first { fastFixes[$0] != wholeFixes[$0] }
            #expect(
                fastFixes.count == wholeFixes.count && differs == nil,
                "file \(file): \(fastFixes.count) against \(wholeFixes.count) fixes, first differing \(differs.map { "\(fastFixes[$0]) against \(wholeFixes[$0])" } ?? "-")"
            )
            #expect(fast.skipped == whole.skipped, "file \(file)")
            #expect(fastFixes.count > 100 && whole.skipped.count > 10, "\(fastFixes.count) fixes, \(whole.skipped.count) skipped")
        }
    }

    /// An import reads a Records.json from where its detection stopped (inside `locations`, the
    /// members before it not read again) and gets what reading the file afresh gets: the fixes,
    /// the skipped records and the errors with their lines. A first element that is not plain, an
    /// Overland batch and a `.gz` are read afresh.
    @Test func recordsGoOnWhereDetectionStopped() throws {
        let dir = try TempDirectory()
        let bad = Self.records.enumerated().map { $0.offset == 4 ? #"    "timestamp": "soon""# : $0.element }
        // A surrogate pair: not a plain value, so detection reads the first element whole.
        let surrogate = Self.records.enumerated().map {
            $0.offset == 2 ? #"    "note": "\uD83D\uDE00", "latitudeE7": 410082000, "longitudeE7": 289784000,"# : $0.element
        }
        let broken = Self.records.prefix(6) + [#"  {"timestampMs": 1546336806000, "latitudeE7": 1 "longitudeE7": 2}"#, "]}"]
        let overland = [
            #"{"junk": [1, {"a": "b"}], "locations": [{"type": "Feature", "geometry": {"type": "Point", "coordinates": [29, 41]},"#,
            #""properties": {"timestamp": "2019-01-01T10:00:00Z"}}]}"#,
        ]
        let cases: [(String, [String], continues: Bool)] = [
            ("records.json", Array(Self.records), true), ("bad.json", bad, true), ("surrogate.json", surrogate, false),
            ("broken.json", Array(broken), true), ("overland.json", overland, false),
        ]
        for (name, lines, continues) in cases {
            let path = try F.write(lines, name, in: dir)
            let source = try TrackSource(file: path)
            var detected: JSONScanner?
            guard case let .format(format) = try TrackDetection.detect(try source.open(), name: name, stoppedIn: &detected) else {
                Issue.record("\(name): not detected")
                continue
            }
            #expect((detected != nil) == continues, "\(name)")
            func outcome(_ reader: any FixReader) -> String {
                do { return "\(try F.readAll(reader)) \(reader.skipped)" } catch { return "\(error)" }
            }
            let afresh = outcome(try format.open(source))
            #expect(outcome(try format.open(source, options: TrackReadOptions(), continuing: detected)) == afresh, "\(name)")
            #expect(afresh.contains("Fix(") || afresh.contains("line 7"), "\(name): \(afresh)")
        }
    }

    static let timeline = [
        #"{"semanticSegments": [{"#,  // 1
        #"    "startTime": "2019-01-01T13:00:00.000+03:00", "endTime": "2019-01-01T14:00:00.000+03:00","#,  // 2
        #"    "timelinePath": [{"point": "41.0082°, 28.9784°", "time": "2019-01-01T13:00:01.000+03:00"},"#,  // 3
        #"      {"point": "41.0090°,28.9790°","#,  // 4
        #"       "time": "2019-01-01T10:00:02.500Z"}]"#,  // 5
        #"  }, {"startTime": "2019-01-01T10:10:00Z", "endTime": "2019-01-01T11:10:00Z", "startTimeTimezoneUtcOffsetMinutes": 180,"#,  // 6
        #"    "visit": {"hierarchyLevel": 0, "probability": 0.9, "topCandidate": {"placeId": "x", "semanticType": "HOME","#,  // 7
        #"      "placeLocation": {"latLng": "-33.5°, -70.25°"}}}},"#,  // 8
        #"  {"startTime": "2019-01-01T11:10:00Z", "endTime": "2019-01-01T11:20:00Z","#,  // 9
        #"    "activity": {"start": {"latLng": "40.0°, 30.0°"}, "end": {"latLng": "40.5°, 30.5°"}, "distanceMeters": 900}},"#,  // 10
        #"  {"startTime": "2019-01-01T11:20:00Z", "endTime": "2019-01-01T11:30:00Z", "visit": {"topCandidate": {}}}"#,  // 11
        #"], "rawSignals": [{"activityRecord": {"probableActivities": []}},"#,  // 12
        #"  {"wifiScan": {"deliveryTime": "2019-01-01T10:00:00Z", "devicesRecords": []}},"#,  // 13
        #"  {"position": {"LatLng": "51.5°, -0.1°", "accuracyMeters": 12, "altitudeMeters": 30, "source": "WIFI","#,  // 14
        #"    "timestamp": "2019-01-01T10:00:03.000Z", "speedMetersPerSecond": 0.75}}"#,  // 15
        #"], "userLocationProfile": {"frequentPlaces": [{"placeLocation": "1°, 2°"}]}}"#,  // 16
    ]

    @Test func readsTimelineJSON() throws {
        let dir = try TempDirectory()
        let fixes = try F.readAll(path: try F.write(Self.timeline, "Timeline.json", in: dir))
        try #require(fixes.count == 7)
        F.check(fixes[0], 41.0082, 28.9784, t0 + 1, position: 3)
        F.check(fixes[1], 41.0090, 28.9790, t0 + 2.5, position: 4)
        F.check(fixes[2], -33.5, -70.25, t0 + 600, position: 8)  // visit start
        F.check(fixes[3], -33.5, -70.25, t0 + 4200, position: 8)  // visit end
        F.check(fixes[4], 40, 30, t0 + 4200, position: 10)  // activity start
        F.check(fixes[5], 40.5, 30.5, t0 + 4800, position: 10)  // activity end
        F.check(fixes[6], 51.5, -0.1, t0 + 3, accuracy: 12, speed: 0.75, position: 14)
    }

    @Test func timelineErrorsNameTheLine() throws {
        let dir = try TempDirectory()
        func segments(_ body: [String], _ name: String) throws -> String {
            try F.write([#"{"semanticSegments": ["#] + body + ["]}"], name, in: dir)
        }
        let point = try segments(
            [
                #"{"startTime": "2019-01-01T10:00:00Z", "timelinePath": ["#,
                #"{"point": "41.0 N, 29.0 E", "time": "2019-01-01T10:00:00Z"}]}"#,
            ], "point.json")
        F.check(F.readError(point, { try GoogleTimelineReader(path: $0) }), file: point, line: 3, mentions: "41.0 N, 29.0 E")
        let time = try segments(
            [
                #"{"startTime": "2019-01-01T10:00:00Z", "timelinePath": ["#,
                #"{"point": "41.0°, 29.0°","#, #" "time": "2019-01-01T10:00:00 UTC"}]}"#,
            ], "time.json")
        F.check(F.readError(time, { try GoogleTimelineReader(path: $0) }), file: time, line: 4, mentions: "not an ISO 8601")
        let start = try segments([#"{"startTime": "", "endTime": "2019-01-01T10:00:00Z"}"#], "start.json")
        F.check(F.readError(start, { try GoogleTimelineReader(path: $0) }), file: start, line: 2, mentions: "startTime")
        let signal = try F.write(
            [#"{"rawSignals": [{"position": {"LatLng": "91°, 0°","#, #""timestamp": "2019-01-01T10:00:00Z"}}]}"#],
            "signal.json", in: dir)
        F.check(F.readError(signal, { try GoogleTimelineReader(path: $0) }), file: signal, line: 1, mentions: "latitude")
        let noTime = try segments([#"{"timelinePath": [{"point": "41.0°, 29.0°"}]}"#], "notime.json")
        F.check(F.readError(noTime, { try GoogleTimelineReader(path: $0) }), file: noTime, line: 2, mentions: "no time")
        // A bad segment costs itself: the segments after it are read.
        let mixed = try segments(
            [
                #"{"startTime": "", "endTime": "2019-01-01T10:00:00Z"},"#,
                #"{"startTime": "2019-01-01T10:00:00Z", "timelinePath": [{"point": "41.0°, 29.0°", "time": "2019-01-01T10:00:00Z"}]}"#,
            ],
            "mixed.json")
        let reader = try GoogleTimelineReader(path: mixed)
        #expect(try F.readAll(reader).count == 1 && reader.skipped.count == 1, "\(reader.skipped)")
    }

    @Test func timelineOfTheWrongShape() throws {
        let dir = try TempDirectory()
        for (name, text) in [("a.json", #"{"foo": 1}"#), ("b.json", #""segments""#)] {
            let path = try F.write(text, name, in: dir)
            F.check(
                F.readError(path, { try GoogleTimelineReader(path: $0) }), file: path, line: nil, mentions: "not a Google Timeline export")
        }
        let segment = try F.write(#"{"semanticSegments": ["x"]}"#, "segment.json", in: dir)
        F.check(F.readError(segment, { try GoogleTimelineReader(path: $0) }), file: segment, line: 1, mentions: "not an object")
    }

    @Test func timelinePointStrings() {
        #expect(GoogleTimelineReader.parsePoint("41.0082°, 28.9784°")! == (41.0082, 28.9784))
        #expect(GoogleTimelineReader.parsePoint("geo:41.5,-29.25")! == (41.5, -29.25))
        #expect(GoogleTimelineReader.parsePoint("41.0082° 28.9784°") == nil)
        #expect(GoogleTimelineReader.parsePoint("") == nil)
    }

    /// The byte path for point strings answers as the general one on every string made of the
    /// pieces such strings have (and of a few they should not).
    @Test func timelinePointFastPathAgreesWithTheGeneralOne() {
        let pieces = ["4", "1.", "0082", "-", "°", ", ", ",", " ", "\t", "geo:", "e5", "\u{00A0}", "x", "\n", "°°", "2"]
        var state: UInt64 = 34
        for _ in 0..<50_000 {
            var text = ""
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            var bits = state
            for _ in 0..<(Int(bits % 9) + 1) {
                bits /= 9
                text += pieces[Int(bits % UInt64(pieces.count))]
                bits /= UInt64(pieces.count)
            }
            let fast = GoogleTimelineReader.parsePoint(text), slow = GoogleTimelineReader.parsePointSlowly(text)
            #expect(fast?.0 == slow?.0 && fast?.1 == slow?.1, "\(Array(text.unicodeScalars))")
        }
        #expect(GoogleTimelineReader.parsePoint(" geo:41.5° ,\t-29.25° ")! == (41.5, -29.25))
    }
}
