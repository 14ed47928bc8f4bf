import Foundation
import RoquaRegions
import RoquaTestSupport
import Testing

/// Reading a big file must cost memory for one record, not for the file.
@Suite struct TrackReaderStreamingTests {
    /// Peak resident set size so far, in bytes (Linux reports kilobytes, macOS bytes).
    static func peakRSS() -> Int {
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024
        #else
        getrusage(RUSAGE_SELF, &usage)
        return usage.ru_maxrss
        #endif
    }

    /// Resident set size now, in bytes, where the system says (Linux `/proc/self/statm`);
    /// nil elsewhere. Peak RSS alone can hide growth when something earlier in the process
    /// (test discovery, other suites) already peaked higher.
    static func currentRSS() -> Int? {
        #if os(Linux)
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        #else
        return nil
        #endif
    }

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

    @Test func fiftyMegabyteRecordsJSONStreamsInBoundedMemory() throws {
        let dir = try TempDirectory("roqua-stream")
        let path = dir.file("Records.json")
        let expected = try Self.writeRecords(path, megabytes: 50)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(size > 50 << 20)

        let peakBefore = Self.peakRSS()
        let currentBefore = Self.currentRSS()
        var currentMax = currentBefore ?? 0
        var reader = try TrackReaders.open(path: path)
        var count = 0
        var last: Fix?
        while let fix = try reader.next() {
            count += 1
            last = fix
            if count % 4096 == 0, let now = Self.currentRSS() { currentMax = max(currentMax, now) }
        }
        let peakGrowth = Self.peakRSS() - peakBefore

        #expect(count == expected)
        let fix = try #require(last)
        #expect(fix.timestamp.timeIntervalSince1970 == 1_546_336_800 + Double(expected - 1))
        #expect(abs(fix.coordinate.latitude - Double(410_000_000 + (expected - 1) % 100_000) / 1e7) < 1e-12)
        #expect(fix.accuracy == Double((expected - 1) % 50))
        #expect(peakGrowth < 30 << 20, "peak RSS grew by \(peakGrowth >> 20) MB reading a \(size >> 20) MB file")
        if let currentBefore {
            let growth = currentMax - currentBefore
            #expect(growth < 30 << 20, "RSS grew by \(growth >> 20) MB reading a \(size >> 20) MB file")
        }
    }
}
