import Foundation
import RoquaRegions
import RoquaTestSupport
import Testing

/// Reading a big file must cost memory for one record, not for the file.
@Suite struct TrackReaderStreamingTests {
    /// Writes a Records.json of about `megabytes` MB in ~1 MB chunks; returns the record count.
    static func writeRecords(_ path: String, megabytes: Int) throws -> Int {
        guard FileManager.default.createFile(atPath: path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.write(contentsOf: Data("{\"deviceSettings\": {\"x\": 1},\n\"locations\": [\n".utf8))
        var written = 0, count = 0
        while written < megabytes << 20 {
            var chunk = ""
            chunk.reserveCapacity(1 << 20 + 512)
            while chunk.utf8.count < 1 << 20 {
                let ms = 1_546_336_800_000 + count * 1000
                chunk += count == 0 ? "" : ",\n"
                chunk += "{\"timestampMs\": \"\(ms)\", \"latitudeE7\": \(410_000_000 + count % 100_000), "
                chunk += "\"longitudeE7\": \(290_000_000 - count % 50_000), \"accuracy\": \(count % 50), "
                chunk += "\"activity\": [{\"activity\": [{\"type\": \"STILL\", \"confidence\": 100}]}]}"
                count += 1
            }
            try handle.write(contentsOf: Data(chunk.utf8))
            written += chunk.utf8.count
        }
        try handle.write(contentsOf: Data("\n]}\n".utf8))
        return count
    }

    @Test func fiftyMegabyteRecordsJSONReadsEveryRecord() throws {
        let dir = try TempDirectory("roqua-stream")
        let path = dir.file("Records.json")
        let expected = try Self.writeRecords(path, megabytes: 50)
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

    /// Memory is measured in child processes (`roqua track import`), so tests running alongside
    /// cannot disturb it: importing a 50 MB file may not take more than a 5 MB one.
    @Test func importMemoryDoesNotGrowWithTheFile() throws {
        let dir = try TempDirectory("roqua-stream-rss")
        var peaks: [Int] = []
        for megabytes in [5, 50] {
            let path = dir.file("Records-\(megabytes).json")
            _ = try Self.writeRecords(path, megabytes: megabytes)
            let result = try CommandRunner.run(ProductsDirectory.product("roqua"), [
                "track", "import", path, "--store", dir.file("store-\(megabytes).sqlite"), "--boundaries", Bundled.path(),
            ])
            #expect(result.status == 0, "\(result.stderr)")
            peaks.append(result.maxRSSKilobytes)
        }
        #expect(peaks[1] - peaks[0] < 25_000, "peak RSS \(peaks[0] / 1024) MB for 5 MB, \(peaks[1] / 1024) MB for 50 MB")
    }
}
