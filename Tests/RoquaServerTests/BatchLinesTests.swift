import RoquaBoundaries
import RoquaServeInput
import Testing

/// The batch route's line reader on its own: chunk boundaries anywhere, rows numbered as the
/// client counts lines, one answer per non-blank line.
@Suite struct BatchLinesTests {
    func rows(_ text: String, format: BatchLines.Format? = nil, chunk: Int) -> [BatchLines.Row] {
        var lines = BatchLines(format: format)
        var rows: [BatchLines.Row] = []
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            lines.feed(bytes[start..<min(start + chunk, bytes.count)]) { rows.append($0) }
            start += chunk
        }
        lines.finish { rows.append($0) }
        return rows
    }

    @Test(arguments: [1, 2, 7, 4096])
    func sameRowsWhateverTheChunks(chunk: Int) {
        let text = "lon,lat\r\n29.03,40.99\n\n\"open,1\nabc,2\n13.4,52.5"
        let got = rows(text, chunk: chunk)
        #expect(
            got == [
                .point(row: 2, Coordinate(latitude: 40.99, longitude: 29.03), id: nil),
                .failure(row: 4, message: "a quoted field is not closed on this line"),
                .failure(row: 5, message: "longitude \"abc\" is not a number"),
                .point(row: 6, Coordinate(latitude: 52.5, longitude: 13.4), id: nil),
            ])
    }

    @Test func ndjsonIdsKeptAndErrorsPerLine() {
        let text = "{\"lat\":1,\"lon\":2,\"id\":\"a\\\"b\"}\n[1]\n{\"latitude\":3,\"lng\":4,\"id\":12}\n{\"lat\":\"x\",\"lon\":1}\n"
        let got = rows(text, chunk: 5)
        #expect(got.count == 4)
        #expect(got[0] == .point(row: 1, Coordinate(latitude: 1, longitude: 2), id: .text("a\"b")))
        #expect(got[1] == .failure(row: 2, message: "expected a JSON object with lat and lon"))
        #expect(got[2] == .point(row: 3, Coordinate(latitude: 3, longitude: 4), id: .integer(12)))
        #expect(got[3] == .failure(row: 4, message: "lat and lon must be numbers"))
    }

    @Test func longLineIsOneErrorAndTheNextLineStillCounts() {
        let text = String(repeating: "9", count: BatchLines.maxLineBytes + 10) + ",1\n1,2\n"
        let got = rows(text, format: .csv, chunk: 1000)
        #expect(
            got == [
                .failure(row: 1, message: "line longer than \(BatchLines.maxLineBytes) bytes"),
                .point(row: 2, Coordinate(latitude: 1, longitude: 2), id: nil),
            ])
    }
}
