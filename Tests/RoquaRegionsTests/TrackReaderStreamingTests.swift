import Foundation
import RoquaRegions
import RoquaTestSupport
import Testing

/// Reading a big file must cost memory for one record, not for the file.
@Suite(.tags(.slow)) struct TrackReaderStreamingSlowTests {
    @Test func fiftyMegabyteRecordsJSONReadsEveryRecord() throws {
        let dir = try TempDirectory("roqua-stream")
        let path = dir.file("Records.json")
        let expected = try RecordsFixture.write(path, megabytes: 50)
        var reader = try TrackReaders.open(path: path)
        var count = 0
        var last: Fix?
        while let fix = try reader.next() {
            count += 1
            last = fix
        }
        #expect(count == expected)
        let fix = try #require(last)
        #expect(fix.timestamp.timeIntervalSince1970 == 1_546_336_800 + Double(expected - 1))
        #expect(abs(fix.coordinate.latitude - Double(410_000_000 + (expected - 1) % 100_000) / 1e7) < 1e-12)
        #expect(fix.accuracy == Double((expected - 1) % 50))
    }
}
