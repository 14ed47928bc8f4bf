import Foundation
import RoquaBoundaries
import RoquaRegions
import RoquaTestSupport
import Testing

/// A `roqua track import` killed mid-way leaves the store exactly as it was.
@Suite struct TrackImportKillTests {
    /// A long walk through İstanbul: `count` fixes 5 m and 5 s apart, as CSV.
    static func writeLongWalk(to path: String, count: Int) throws {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        defer { try? handle.close() }
        var text = "lat,lon,timestamp,accuracy\n"
        var (lat, lon) = (41.0, 28.9)
        for i in 0..<count {
            let heading = Double(i / 2000) * 2.4  // a new direction every 10 km
            lat = min(max(lat + 0.000045 * cos(heading), 40.95), 41.15)
            lon = min(max(lon + 0.00006 * sin(heading), 28.7), 29.2)
            text += "\(lat),\(lon),\(1_714_550_400 + i * 5),5\n"
            if text.utf8.count > 1 << 20 {
                try handle.write(contentsOf: Data(text.utf8))
                text = ""
            }
        }
        try handle.write(contentsOf: Data(text.utf8))
    }

    @Test func killedImportLeavesTheStoreAsItWas() throws {
        let directory = try TempDirectory()
        let storePath = directory.file("regions.sqlite")
        let roqua = ProductsDirectory.product("roqua")
        try "lat,lon,timestamp\n40.9879,29.0281,2024-05-01T08:00:00Z\n".write(
            toFile: directory.file("first.csv"),
            atomically: true, encoding: .utf8)
        let first = try CommandRunner.run(
            roqua,
            [
                "track", "import", directory.file("first.csv"), "--store", storePath,
                "--boundaries", Bundled.path(),
            ])
        #expect(first.status == 0, "\(first.stderr)")
        let before = try RegionStore(path: storePath).export(.json)

        try Self.writeLongWalk(to: directory.file("long.csv"), count: 2_000_000)
        let run = try CommandRunner.start(
            roqua,
            [
                "track", "import", directory.file("long.csv"), "--store", storePath,
                "--boundaries", Bundled.path(),
            ])
        usleep(1_500_000)
        run.kill()
        let result = run.wait()
        #expect(result.status == 128 + SIGKILL, "the import finished before the kill: make the file longer")
        let store = try RegionStore(path: storePath)
        #expect(try store.export(.json) == before)
        #expect(try store.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") } == "ok")
    }
}
