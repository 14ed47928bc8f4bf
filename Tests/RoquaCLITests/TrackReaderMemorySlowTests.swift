import Foundation
import RoquaTestSupport
import Testing

/// Members a reader does not need are skipped, not built: a 60 MB one once made a 1.7 GB tree.
/// Measured in child processes (`roqua track import`), so tests running alongside cannot
/// disturb the figure.
@Suite(.tags(.slow)) struct TrackReaderMemorySlowTests {
    static func writeSkippedMember(_ path: String, before: String, after: String) throws {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        defer { try? handle.close() }
        try handle.write(contentsOf: Data(before.utf8))
        let chunk = Array(repeating: #"{"a": [1, {"b": "xxxxxxxxxxxxxxxxxxxx"}]}"#, count: 20_000).joined(separator: ",")
        for index in 0..<75 {  // ~60 MB
            try handle.write(contentsOf: Data(((index == 0 ? "" : ",") + chunk).utf8))
        }
        try handle.write(contentsOf: Data(after.utf8))
    }

    @Test func sixtyMegabytesOfSkippedJSONCostNoMemory() throws {
        let dir = try TempDirectory("roqua-skip-rss")
        let record = #"{"latitudeE7": 409879000, "longitudeE7": 290281000, "timestamp": "2024-05-01T08:00:00Z"}"#
        let files = [
            ("Records.json", #"{"deviceSettings": ["#, "], \"locations\": [\(record)]}"),
            (
                "Timeline.json", #"{"userLocationProfile": ["#,
                #"], "rawSignals": [{"position": {"LatLng": "40.9879°, 29.0281°", "timestamp": "2024-05-01T08:00:00Z"}}]}"#
            ),
            (
                "track.geojson", #"{"type": "Feature", "properties": {"time": "2024-05-01T08:00:00Z", "junk": ["#,
                #"]}, "geometry": {"type": "Point", "coordinates": [29.0281, 40.9879]}}"#
            ),
        ]
        func importPeak(_ path: String, store: String) throws -> Int {
            let result = try CommandRunner.run(
                ProductsDirectory.product("roqua"),
                [
                    "track", "import", path, "--store", dir.file(store), "--boundaries", Bundled.path(),
                ], measuringMemory: true)
            #expect(result.status == 0 && result.stdout.contains("1 fixes read"), "\(path): \(result.stderr)")
            return result.maxRSSKilobytes
        }
        // The baseline: the same import of a one-record file (boundaries and catalog loaded).
        let small = dir.file("small.json")
        try #"{"locations": [\#(record)]}"#.write(toFile: small, atomically: true, encoding: .utf8)
        let baseline = try importPeak(small, store: "small.sqlite")
        #expect(baseline > 10_000, "peak RSS not measured: \(baseline) kB")
        for (name, before, after) in files {
            let path = dir.file(name)
            try Self.writeSkippedMember(path, before: before, after: after)
            let peak = try importPeak(path, store: "\(name).sqlite")
            print("\(name): peak RSS \(peak) kB, one record \(baseline) kB")
            #expect(peak - baseline < 30_000, "\(name): peak RSS \(peak / 1024) MB against \(baseline / 1024) MB for one record")
        }
    }
}
