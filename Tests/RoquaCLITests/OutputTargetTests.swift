import Foundation
import RoquaTestSupport
import Testing

/// Output paths as users give them: devices and FIFOs are written, never replaced; directories and
/// missing directories are clear errors; regular files are replaced whole or not at all.
@Suite struct OutputTargetTests {
    let roqua = ProductsDirectory.product("roqua")

    func isCharacterDevice(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFCHR
    }

    func storeWithATrip(_ directory: TempDirectory) throws -> [String] {
        let common = ["--store", directory.file("regions.sqlite"), "--boundaries", try Bundled.path()]
        try Trip.csv.write(toFile: directory.file("trip.csv"), atomically: true, encoding: .utf8)
        #expect(try CommandRunner.run(roqua, ["track", "import", directory.file("trip.csv")] + common).status == 0)
        return common
    }

    @Test func devNullStaysADevice() throws {
        let directory = try TempDirectory()
        let common = try storeWithATrip(directory)
        #expect(isCharacterDevice("/dev/null"))
        let runs: [[String]] = [
            ["export", "--output", "/dev/null", "--store", directory.file("regions.sqlite")],
            ["resolve", "--input", directory.file("trip.csv"), "--output", "/dev/null", "--boundaries", try Bundled.path()],
            ["map", "--unit", "istanbul", "--out", "/dev/null"] + common,
            ["profile", "--svg", "/dev/null"] + common,
        ]
        for arguments in runs {
            let result = try CommandRunner.run(roqua, arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(isCharacterDevice("/dev/null"), "\(arguments) replaced /dev/null")
        }
        #expect(try directory.contents().allSatisfy { !$0.contains(".building-") })
    }

    @Test func aFIFOReceivesTheWholeOutput() throws {
        let directory = try TempDirectory()
        let common = try storeWithATrip(directory)
        let fifo = directory.file("map.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let received = Received()
        let reader = Thread {
            // Plain read(2): Foundation's file reading takes a FIFO's size (0) for its length.
            let fd = open(fifo, O_RDONLY)
            var data = Data(), buffer = [UInt8](repeating: 0, count: 1 << 16)
            while fd >= 0 {
                let n = read(fd, &buffer, buffer.count)
                if n <= 0 { break }
                data.append(contentsOf: buffer[0..<n])
            }
            if fd >= 0 { close(fd) }
            received.set(data)
        }
        reader.start()
        let result = try CommandRunner.run(roqua, ["map", "--unit", "istanbul", "--out", fifo] + common)
        #expect(result.status == 0, "\(result.stderr)")
        let text = String(decoding: try #require(received.wait()), as: UTF8.self)
        #expect(text.hasPrefix("<?xml") && text.contains("<svg") && text.hasSuffix("</svg>\n"), "\(text.prefix(80))")
        var info = stat()
        #expect(stat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
    }

    @Test func directoriesAndMissingDirectoriesAreClearErrors() throws {
        let directory = try TempDirectory()
        let common = try storeWithATrip(directory)
        let missing = directory.file("no/such/dir/out.svg")
        let cases: [([String], String)] = [
            (["export", "--output", directory.path, "--store", directory.file("regions.sqlite")], "is a directory"),
            (["map", "--unit", "istanbul", "--out", directory.path] + common, "is a directory"),
            (["map", "--unit", "istanbul", "--out", missing] + common, "does not exist"),
            (["resolve", "--input", directory.path, "--boundaries", try Bundled.path()], "is a directory"),
            (["track", "import", directory.file("no/such/dir")] + common, "no/such/dir"),
        ]
        for (arguments, message) in cases {
            let result = try CommandRunner.run(roqua, arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("NSCocoaErrorDomain") && !result.stderr.contains("Code="), "\(result.stderr)")
        }
    }

    /// A regular file is replaced only by a complete new one.
    @Test func anExistingExportIsReplacedWhole() throws {
        let directory = try TempDirectory()
        _ = try storeWithATrip(directory)
        let output = directory.file("export.json")
        try "old".write(toFile: output, atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(roqua, ["export", "--output", output, "--store", directory.file("regions.sqlite")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try String(contentsOfFile: output, encoding: .utf8).contains("\"regions\""))
        #expect(try directory.contents().allSatisfy { !$0.contains(".building-") })
    }
}

/// What a reader thread got from the FIFO.
private final class Received: @unchecked Sendable {
    private let condition = NSCondition()
    private var data: Data?
    private var done = false

    func set(_ value: Data?) {
        condition.lock()
        data = value
        done = true
        condition.signal()
        condition.unlock()
    }

    func wait() -> Data? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(60)
        while !done, condition.wait(until: deadline) {}
        return data
    }
}
