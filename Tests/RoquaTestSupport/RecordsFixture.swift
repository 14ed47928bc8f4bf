import Foundation

/// Big Google Takeout `Records.json` files, written in chunks, for streaming and memory tests.
package enum RecordsFixture {
    /// Writes a Records.json of about `megabytes` MB in ~1 MB chunks; returns the record count.
    package static func write(_ path: String, megabytes: Int) throws -> Int {
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
}
