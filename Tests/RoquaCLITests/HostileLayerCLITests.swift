import Foundation
import RoquaTestSupport
import Testing

/// `roqua import --add` with files made to hurt: each is refused quickly, naming the file and
/// the feature, and leaves the database, the layers and the temporary directory as they were.
@Suite struct HostileLayerCLITests {
    typealias Setup = AddLayerCLITests.Setup

    /// Runs `roqua import --from base --out b.sqlite ARGUMENTS`, killed after `seconds` (without
    /// its rule, each hostile input here runs for minutes), measuring its peak memory.
    static func run(_ s: Setup, _ arguments: [String], environment extra: [String: String] = [:],
                    killAfter seconds: Double = 60) throws -> (result: CommandResult, seconds: Double) {
        let started = Date()
        let command = try CommandRunner.start(ProductsDirectory.product("roqua"), ["import", "--from", s.base, "--out", s.out] + arguments,
                                              environment: s.environment.merging(extra) { $1 })
        let finished = DispatchSemaphore(value: 0), pid = command.pid
        DispatchQueue.global().async {
            if finished.wait(timeout: .now() + seconds) == .timedOut { kill(pid, SIGKILL) }
        }
        let result = command.wait(measuringMemory: true)
        finished.signal()
        return (result, Date().timeIntervalSince(started))
    }

    /// A self-intersecting star of 801 vertices (32 KB of GeoJSON) passed 1.1 GB in a minute.
    @Test func aTangledFeatureIsRefusedNamingIt() throws {
        let s = try Setup()
        #expect(try s.run([]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: s.out))
        let star = HostileGeometry.star(801, centerX: 2.5, centerY: 2.5, radius: 1.4)
        let points = zip(star.xs, star.ys).map { "[\($0),\($1)]" }.joined(separator: ",")
        let path = s.directory.file("user/stars.geojson")
        try """
            {"type":"FeatureCollection","features":[
             {"type":"Feature","properties":{"KOD":"K1","AD":"Kare"},"geometry":{"type":"Polygon","coordinates":[[[6,1],[9,1],[9,4],[6,4],[6,1]]]}},
             {"type":"Feature","properties":{"KOD":"S1","AD":"Star"},"geometry":{"type":"Polygon","coordinates":[[\(points)]]}}]}
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let (result, seconds) = try Self.run(s, ["--add", path, "--level", "district", "--code", "KOD", "--name", "AD"])
        #expect(result.status == 1 && result.stderr.contains("\(path): record 2 (S1 Star): an invalid polygon that is not repaired"),
                "\(result.stderr)")
        #expect(seconds < 20 && result.maxRSSKilobytes < 300_000, "\(seconds) s, \(result.maxRSSKilobytes) kB")
        #expect(try Data(contentsOf: URL(fileURLWithPath: s.out)) == before)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: s.directory.file("xdg/roqua/layers"))) ?? []).isEmpty)
    }
}
