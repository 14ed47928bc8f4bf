import Foundation
import RoquaTestSupport
import Testing

/// Reading a big file must cost memory for one record, not for the file.
@Suite(.tags(.slow)) struct TrackImportMemorySlowTests {
    /// Memory is measured in child processes (`roqua track import`), so tests running alongside
    /// cannot disturb it: importing a 50 MB file may not take more than a 5 MB one.
    @Test func importMemoryDoesNotGrowWithTheFile() throws {
        let dir = try TempDirectory("roqua-stream-rss")
        var peaks: [Int] = []
        for megabytes in [5, 50] {
            let path = dir.file("Records-\(megabytes).json")
            _ = try RecordsFixture.write(path, megabytes: megabytes)
            let result = try CommandRunner.run(
                ProductsDirectory.product("roqua"),
                [
                    "track", "import", path, "--store", dir.file("store-\(megabytes).sqlite"), "--boundaries", Bundled.path(),
                ], measuringMemory: true)
            #expect(result.status == 0, "\(result.stderr)")
            peaks.append(result.maxRSSKilobytes)
        }
        #expect(peaks[0] > 10_000, "peak RSS not measured: \(peaks)")
        #expect(peaks[1] - peaks[0] < 25_000, "peak RSS \(peaks[0] / 1024) MB for 5 MB, \(peaks[1] / 1024) MB for 50 MB")
    }
}
