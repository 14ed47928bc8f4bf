import Foundation
import RoquaTestSupport
import Testing

/// A batch's bad rows keep their place: the output lines up with the input for a join, the
/// reason in a last `error` column (an `"error"` key in JSON), the row still named on stderr and
/// the exit status 2. `--drop-bad-rows` leaves them out, as before.
@Suite struct ResolveBadRowsCLITests {
    static let input = "id,lat,lon\n1,41.0054,28.9768\n2,abc,29.0\n3,91,0\n4,52.52,13.405\n"

    @Test func csvKeepsEveryRowInOrderWithTheReason() throws {
        let scratch = try BatchScratch()
        let path = try scratch.write("p.csv", Self.input)
        let result = try BatchCLI.resolve(["--input", path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("p.csv: row 3: latitude \"abc\" is not a number"), "\(result.stderr)")
        let lines = outputLines(result.stdout)
        #expect(lines.count == 5, "\(result.stdout)")
        #expect(lines[0].hasSuffix(",approximate,locality,error"))
        #expect(lines.dropFirst().map { $0.prefix(2) } == ["1,", "2,", "3,", "4,"])  // input order, none missing
        #expect(lines[1].hasPrefix("1,41.0054,28.9768,TR,Türkiye,TR-34,İstanbul,") && lines[1].hasSuffix(",Sultanahmet,"))
        #expect(lines[2] == #"2,abc,29.0,,,,,,,,,"latitude ""abc"" is not a number""#)
        #expect(lines[3].hasPrefix("3,91,0,,,,,,,,,") && lines[3].contains("latitude"))
        // Every row has as many columns as the header (no quoted commas in these rows but the reason).
        let header = lines[0].split(separator: ",", omittingEmptySubsequences: false).count
        #expect(lines[1].split(separator: ",", omittingEmptySubsequences: false).count == header)
        #expect(lines[2].split(separator: ",", omittingEmptySubsequences: false).count == header)
    }

    /// A row too long to keep still holds its place with as many fields as the header.
    @Test func aRowTooLongToKeepStillLinesUp() throws {
        let scratch = try BatchScratch()
        let long = "2,41.0," + String(repeating: "9", count: 1 << 21)
        let path = try scratch.write("long.csv", "id,lat,lon\n1,41.0054,28.9768\n\(long)\n3,52.52,13.405\n")
        let result = try BatchCLI.resolve(["--input", path])
        #expect(result.status == 2 && result.stderr.contains("row 3: row longer than"), "\(result.stderr)")
        let lines = outputLines(result.stdout)
        #expect(lines.count == 4 && lines[1].hasPrefix("1,") && lines[3].hasPrefix("3,"), "\(lines.map { $0.prefix(60) })")
        #expect(lines[2] == ",,,,,,,,,,,row longer than 1 MiB", "\(lines[2].prefix(80))")
        #expect(csvFields(lines[2]).count == csvFields(lines[0]).count)
    }

    @Test func jsonRowsCarryAnErrorKeyAndGeoJSONStaysValid() throws {
        let scratch = try BatchScratch()
        let path = try scratch.write("p.csv", Self.input)
        let ndjson = try BatchCLI.resolve(["--input", path, "--format", "ndjson"])
        #expect(ndjson.status == 2)
        let rows = try outputLines(ndjson.stdout).map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(rows.count == 4 && rows.map { $0["error"] != nil } == [false, true, true, false])
        #expect(rows[1]["error"] as? String == "latitude \"abc\" is not a number" && rows[1]["country"] is NSNull)
        let geojson = try BatchCLI.resolve(["--input", path, "--format", "geojson"])
        let collection = try #require(JSONSerialization.jsonObject(with: Data(geojson.stdout.utf8)) as? [String: Any])
        let features = try #require(collection["features"] as? [[String: Any]])
        #expect(features.count == 4 && features[1]["geometry"] is NSNull)
        #expect(
            ((features[1]["properties"] as? [String: Any])?["roqua"] as? [String: Any])?["error"] as? String
                == "latitude \"abc\" is not a number")
    }

    @Test func dropBadRowsLeavesThemOut() throws {
        let scratch = try BatchScratch()
        let path = try scratch.write("p.csv", Self.input)
        let result = try BatchCLI.resolve(["--input", path, "--drop-bad-rows"])
        #expect(result.status == 2)
        let lines = outputLines(result.stdout)
        #expect(lines.count == 3 && !lines[0].hasSuffix(",error") && lines.dropFirst().map { $0.prefix(2) } == ["1,", "4,"])
    }
}
