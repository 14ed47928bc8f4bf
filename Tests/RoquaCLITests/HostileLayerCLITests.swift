import Foundation
import RoquaTestSupport
import Testing

/// `roqua import --add` with files made to hurt: each is refused quickly, naming the file and
/// the feature, and leaves the database, the layers and the temporary directory as they were.
@Suite struct HostileLayerCLITests {
    typealias Setup = AddLayerCLITests.Setup

    /// Runs `roqua import --from base --out b.sqlite ARGUMENTS`, killed after `seconds` (without
    /// its rule, each hostile input here runs for minutes), measuring its peak memory.
    static func run(
        _ s: Setup, _ arguments: [String], environment extra: [String: String] = [:],
        killAfter seconds: Double = 60
    ) throws -> (result: CommandResult, seconds: Double) {
        let started = Date()
        let command = try CommandRunner.start(
            ProductsDirectory.product("roqua"), ["import", "--from", s.base, "--out", s.out] + arguments,
            environment: s.environment.merging(extra) { $1 })
        return (wait(command, killAfter: seconds), Date().timeIntervalSince(started))
    }

    /// Waits for `command`, killing it after `seconds`.
    static func wait(_ command: RunningCommand, killAfter seconds: Double) -> CommandResult {
        let finished = DispatchSemaphore(value: 0), pid = command.pid
        DispatchQueue.global().async {
            if finished.wait(timeout: .now() + seconds) == .timedOut { kill(pid, SIGKILL) }
        }
        defer { finished.signal() }
        return command.wait(measuringMemory: true)
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
        #expect(
            result.status == 1 && result.stderr.contains("\(path): record 2 (S1 Star): an invalid polygon that is not repaired"),
            "\(result.stderr)")
        #expect(seconds < 20 && result.maxRSSKilobytes < 300_000, "\(seconds) s, \(result.maxRSSKilobytes) kB")
        #expect(try Data(contentsOf: URL(fileURLWithPath: s.out)) == before)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: s.directory.file("xdg/roqua/layers"))) ?? []).isEmpty)
    }

    /// Zips the wards shapefile with a `.prj` of `prjBytes` zero bytes; with `declaring`, the
    /// archive says the `.prj` is that many bytes instead (a lie libzip does not catch).
    static func zippedWards(_ s: Setup, prjBytes: Int, declaring: Int? = nil) throws -> String {
        let zip = s.directory.file("user/wards-\(prjBytes).zip")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            """
            import struct, sys, zipfile
            path, base, size, declared = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
            with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED) as z:
                for ext in ('shp', 'shx', 'dbf'): z.write(base + '.' + ext, 'wards.' + ext)
                with z.open('wards.prj', 'w', force_zip64=size > 1 << 30) as f:
                    for start in range(0, size, 1 << 20): f.write(bytes(min(1 << 20, size - start)))
            if declared >= 0:
                data = bytearray(open(path, 'rb').read())
                for signature, name_at, size_at in ((b'PK\\x03\\x04', 26, 22), (b'PK\\x01\\x02', 28, 24)):
                    at = data.find(signature)
                    while at >= 0:
                        offset = 30 if name_at == 26 else 46
                        length = struct.unpack_from('<H', data, at + name_at)[0]
                        if data[at + offset:at + offset + length] == b'wards.prj': struct.pack_into('<I', data, at + size_at, declared)
                        at = data.find(signature, at + 4)
                open(path, 'wb').write(data)
            """, zip, String(s.wards.dropLast(4)), String(prjBytes), String(declaring ?? -1),
        ]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return zip
    }

    /// A 0.5 MB archive with a 512 MiB `.prj` wrote 449 MB to /tmp in 1.5 s: an entry may expand
    /// only to what its kind needs, by the size the archive declares and by what it really holds.
    @Test func anArchiveEntryExpandsOnlyToWhatItsKindNeeds() throws {
        let s = try Setup()
        let temporary = try TempDirectory()
        let arguments = ["--level", "district", "--code", "JCODE", "--name", "WARD_JA", "--crs", "EPSG:3857"]
        let large = try Self.zippedWards(s, prjBytes: 1 << 20)
        let declared = try Self.run(s, ["--add", large] + arguments, environment: ["TMPDIR": temporary.path])
        #expect(
            declared.result.status == 1
                && declared.result.stderr.contains("\(large):wards.prj: expands to 1 MiB; a .prj may be at most 64 KiB"),
            "\(declared.result.stderr)")
        let lying = try Self.zippedWards(s, prjBytes: 1 << 20, declaring: 100)
        let actual = try Self.run(s, ["--add", lying] + arguments, environment: ["TMPDIR": temporary.path])
        #expect(
            actual.result.status == 1
                && actual.result.stderr.contains(
                    "\(lying):wards.prj: expands to more than the 100 bytes its archive declares; a .prj may be at most 64 KiB"),
            "\(actual.result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path) == [])
    }

    /// Scratch directories are 0700 and go on every way out: success, an error, SIGTERM (the
    /// layer here is a FIFO no one writes to, so the import waits inside its scratch directory),
    /// and after a SIGKILL the next import removes what the killed one left.
    @Test func scratchDirectoriesArePrivateAndGoOnEveryExit() throws {
        let s = try Setup()
        let temporary = try TempDirectory()
        let environment = s.environment.merging(["TMPDIR": temporary.path]) { $1 }
        func scratch() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []).filter { $0.hasPrefix("roqua-") }
        }
        let fifo = s.directory.file("user/waiting.geojson")
        #expect(mkfifo(fifo, 0o600) == 0)
        let waiting = try CommandRunner.start(
            ProductsDirectory.product("roqua"),
            [
                "import", "--from", s.base, "--out", s.out,
                "--add", fifo, "--level", "district",
            ], environment: environment)
        var ended = false
        defer {
            if !ended {
                waiting.kill()
                _ = waiting.wait()
            }
        }
        var made: [String] = []
        for _ in 0..<500 where made.isEmpty {
            made = scratch()
            usleep(20_000)
        }
        let info = try #require(try? FileManager.default.attributesOfItem(atPath: temporary.file(made.first ?? "none")))
        #expect((info[.posixPermissions] as? Int) == 0o700 && made.first?.hasPrefix("roqua-add-\(waiting.pid)-") == true, "\(made) \(info)")
        waiting.kill(SIGTERM)
        let stopped = Self.wait(waiting, killAfter: 20)
        ended = true
        #expect(stopped.status == 128 + SIGTERM)
        #expect(scratch() == [], "left by SIGTERM")
        // A killed import's directory (its process gone), then an import that succeeds, one that fails.
        let gone = try CommandRunner.start("/bin/true", [])
        _ = gone.wait()
        try FileManager.default.createDirectory(atPath: temporary.file("roqua-add-\(gone.pid)-Abc123"), withIntermediateDirectories: false)
        let zipped = try Self.zippedWards(s, prjBytes: 0)
        let arguments = ["--level", "district", "--code", "JCODE", "--name", "WARD_JA", "--crs", "EPSG:3857"]
        #expect(try Self.run(s, ["--add", zipped] + arguments, environment: ["TMPDIR": temporary.path]).result.status == 0)
        #expect(scratch() == [], "left by a killed import or by a successful one")
        #expect(try Self.run(s, ["--add", zipped, "--dry-run"] + arguments, environment: ["TMPDIR": temporary.path]).result.status == 1)
        #expect(scratch() == [], "left by a failed dry run")
    }
}
