import Foundation
import RoquaRegions
import RoquaTestSupport
import Testing

@Suite struct TrackReaderCSVTests {
    typealias F = TrackFixtures
    let t0 = TrackFixtures.t0

    @Test func headerWithISOTimesCRLFAndBOM() throws {
        let dir = try TempDirectory()
        let path = try F.write(
            [
                "Latitude,Longitude,Timestamp,Accuracy",
                "41.0082,28.9784,2019-01-01T10:00:00Z,12.5",
                "",
                "41.0090,28.9790,2019-01-01T10:00:05.123Z,",
                "-33.5,-70.25,2019-01-01 13:00:10+03:00,3",
            ], "track.csv", in: dir, newline: "\r\n", bom: true)
        let fixes = try F.readAll(path: path)
        try #require(fixes.count == 3)
        F.check(fixes[0], 41.0082, 28.9784, t0, accuracy: 12.5, position: 2)
        F.check(fixes[1], 41.0090, 28.9790, t0 + 5.123, position: 4)
        F.check(fixes[2], -33.5, -70.25, t0 + 10, accuracy: 3, position: 5)
    }

    @Test func columnOrderComesFromTheHeader() throws {
        let dir = try TempDirectory()
        let path = try F.write(
            [
                "time,name,lng,lat,acc,speed",
                "1546336800,\"Home, sweet \"\"home\"\"\",29,41,5,0.5",
                "1546336805123,plain,29.5,41.5,,",
                "\"2019-01-01T10:00:10+00:00\",x,-0.1,51.5,7,2",
            ], "ordered.csv", in: dir)
        let fixes = try F.readAll(try CSVTrackReader(path: path))
        try #require(fixes.count == 3)
        F.check(fixes[0], 41, 29, t0, accuracy: 5, speed: 0.5, position: 2)
        F.check(fixes[1], 41.5, 29.5, t0 + 5.123, position: 3)  // epoch milliseconds
        F.check(fixes[2], 51.5, -0.1, t0 + 10, accuracy: 7, speed: 2, position: 4)
    }

    @Test func noHeaderMeansLatLonTimestampAccuracy() throws {
        let dir = try TempDirectory()
        let path = try F.write(["41.0,29.0,1546336800,4", "41.1,29.1,1546336801.25"], "bare.csv", in: dir)
        let fixes = try F.readAll(path: path)
        try #require(fixes.count == 2)
        F.check(fixes[0], 41.0, 29.0, t0, accuracy: 4, position: 1)
        F.check(fixes[1], 41.1, 29.1, t0 + 1.25, position: 2)
    }

    @Test func semicolonAndTabDelimiters() throws {
        let dir = try TempDirectory()
        let semi = try F.write(["lat;lon;date", "41;29;2019-01-01T10:00:00Z"], "semi.csv", in: dir)
        F.check(try #require(try F.readAll(path: semi).first), 41, 29, t0, position: 2)
        let tab = try F.write(["latitude\tlongitude\ttime", "41\t29\t1546336800"], "tab.tsv", in: dir)
        F.check(try #require(try F.readAll(path: tab).first), 41, 29, t0, position: 2)
    }

    @Test func badRowNamesItsLine() throws {
        let dir = try TempDirectory()
        let head = ["lat,lon,timestamp", "41,29,1546336800", "", "41,29,1546336801"]
        let letters = try F.write(head + ["4l.5,29,1546336802", "41,29,1546336803"], "bad.csv", in: dir)
        F.check(F.readError(letters, { try CSVTrackReader(path: $0) }), file: letters, line: 5, mentions: "latitude \"4l.5\"")
        let time = try F.write(head + ["41,29,2019-13-01T00:00:00Z"], "time.csv", in: dir)
        F.check(F.readError(time, { try CSVTrackReader(path: $0) }), file: time, line: 5, mentions: "timestamp")
        let words = try F.write(head + ["41,29,last tuesday"], "words.csv", in: dir)
        F.check(F.readError(words, { try CSVTrackReader(path: $0) }), file: words, line: 5, mentions: "last tuesday")
        let range = try F.write(head + ["41,190,1546336802"], "range.csv", in: dir)
        F.check(F.readError(range, { try CSVTrackReader(path: $0) }), file: range, line: 5, mentions: "longitude")
        let short = try F.write(head + ["41"], "short.csv", in: dir)
        F.check(F.readError(short, { try CSVTrackReader(path: $0) }), file: short, line: 5, mentions: "at least 2 fields")
        let quote = try F.write(head + ["41,29,\"1546336802"], "quote.csv", in: dir)
        F.check(F.readError(quote, { try CSVTrackReader(path: $0) }), file: quote, line: 5, mentions: "unterminated")
        let negative = try F.write(["lat,lon,time,accuracy", "41,29,1546336800,-3"], "neg.csv", in: dir)
        F.check(F.readError(negative, { try CSVTrackReader(path: $0) }), file: negative, line: 2, mentions: "negative")
    }

    @Test func aBadRowCostsOnlyItself() throws {
        let dir = try TempDirectory()
        let path = try F.write(
            ["41,29,1546336800", "41,29,1546336801", "x,29,1546336802", "41,29,yesterday", "41,29,1546336804"],
            "partial.csv", in: dir)
        let reader = try CSVTrackReader(path: path)
        #expect(try reader.next()?.position == 1)
        #expect(try reader.next()?.position == 2)
        #expect(try reader.next()?.position == 5)
        #expect(try reader.next() == nil)
        #expect(reader.skipped.first == TrackReadError(file: path, line: 3, message: "latitude \"x\" is not a number"))
        #expect(reader.skipped.byReason == ["invalid coordinate": 1, "invalid time": 1] && reader.skipped.lines == [3, 4])
    }

    @Test func headerWithoutNeededColumns() throws {
        let dir = try TempDirectory()
        let noLat = try F.write(["name,lon,time", "a,29,1546336800"], "nolat.csv", in: dir)
        F.check(F.readError(noLat, { try CSVTrackReader(path: $0) }), file: noLat, line: 1, mentions: "latitude and longitude")
        // No time column: every row is an untimed point, skipped and counted (or given the assumed time).
        let noTime = try F.write(["", "lat,lon,elevation", "41,29,100", "41.1,29.1,"], "notime.csv", in: dir)
        let reader = try CSVTrackReader(path: noTime)
        #expect(try F.readAll(reader).isEmpty && reader.untimedPoints == 2)
        let assumed = try CSVTrackReader(path: noTime, options: TrackReadOptions(assumedTime: Date(timeIntervalSince1970: t0)))
        #expect(try F.readAll(assumed).map(\.position) == [3, 4])
    }

    @Test func emptyAndHeaderOnlyFilesGiveNoFixes() throws {
        let dir = try TempDirectory()
        #expect(try F.readAll(try CSVTrackReader(path: try F.write("", "empty.csv", in: dir))).isEmpty)
        #expect(try F.readAll(try CSVTrackReader(path: try F.write(["lat,lon,time"], "head.csv", in: dir))).isEmpty)
    }
}
