import Foundation
import RoquaHTTPGuard
import RoquaRegions
import RoquaServer
import RoquaTestSupport
import Synchronization
import Testing

/// Hostile and slow uploads: a decompression bomb, a trickling client, a server stopped in the
/// middle. Each is bounded in time, holds nothing a normal request needs, and keeps nothing.
@Suite struct UploadAbuseTests {
    /// `bytes` compressed by the system's gzip.
    static func gzipped(_ bytes: [UInt8]) throws -> [UInt8] {
        let directory = try TempDirectory("roqua-gzip")
        let path = directory.file("member")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-9", "-n", path]
        try process.run()
        process.waitUntilExit()
        return Array(try Data(contentsOf: URL(fileURLWithPath: path + ".gz")))
    }

    /// About 2 GiB of valid CSV rows in a ~2 MB gzip: 2,048 members of 1 MiB each.
    static func bomb() throws -> [UInt8] {
        let row = Array("41.0100,28.9800,2024-05-01T07:00:00Z\n".utf8)
        let header = Array("lat,lon,time\n".utf8)
        let mebibyte = Array(Array(repeating: row, count: (1 << 20) / row.count).joined())
        let first = try gzipped(header + mebibyte), member = try gzipped(mebibyte)
        return first + Array(Array(repeating: member, count: 2047).joined())
    }

    /// A stored ZIP (no compression of its own) holding `name` with `content`, written by Python's zipfile.
    static func zipped(name: String, content: [UInt8]) throws -> [UInt8] {
        let directory = try TempDirectory("roqua-zip")
        try Data(content).write(to: URL(fileURLWithPath: directory.file("entry")))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_STORED) as z: z.write(sys.argv[2], sys.argv[3])
            """, directory.file("out.zip"), directory.file("entry"), name,
        ]
        try process.run()
        process.waitUntilExit()
        return Array(try Data(contentsOf: URL(fileURLWithPath: directory.file("out.zip"))))
    }

    /// A 2 MB gzip expanding to 2 GiB of valid rows (alone, and inside a ZIP as a `.csv.gz`
    /// entry) is refused with 413 once it passes the limit (without the limit it would be read
    /// whole: 55 million rows, minutes); `/reverse` keeps answering meanwhile; the store is
    /// untouched. How fast (wall time, `/reverse` latency) is `scripts/bench/bench-serve-abuse.sh`'s to
    /// measure, not a unit test's.
    @Test func aDecompressionBombStopsAtTheLimit() async throws {
        let bomb = try Self.bomb()
        #expect(bomb.count < 8 << 20)
        let archive = try Self.zipped(name: "export/track.csv.gz", content: bomb)
        try await TestServer.with { server in
            let before = CrossSiteTests.storeBytes(server)
            for (name, body) in [("bomb.csv.gz", bomb), ("bomb.zip", archive)] {
                let done = Flag()
                let upload = Task {
                    defer { done.set() }
                    return try await server.post("/api/tracks?name=\(name)", body: body)
                }
                while !done.isSet {
                    #expect(try await server.get("/reverse?lat=40.9879&lon=29.0281").text.contains("Kadıköy"))
                    try await Task.sleep(for: .milliseconds(20))
                }
                let reply = try await upload.value
                #expect(reply.status == 413 && reply.text.contains("expands"), "\(name): \(reply.status) \(reply.text)")
            }
            #expect(CrossSiteTests.storeBytes(server) == before)
            let progress = try await server.get("/api/tracks/progress").object()
            #expect(progress["phase"] as? String == "failed" && (progress["message"] as? String)?.contains("expands") == true)
        }
    }

    static let quick = ConnectionLimits(tick: 0.1, headDeadline: 2, window: 1, minimumBytes: 1024, requestDeadline: 20)

    /// A client sending one byte every 300 ms is cut off after the first window; a normal import
    /// started beside it finishes at once; a header trickled the same way is cut too.
    @Test func aTricklingClientIsCutAndHoldsNothing() async throws {
        try await TestServer.with(limits: Self.quick) { server in
            let gpx = Array(try Data(contentsOf: URL(fileURLWithPath: CrossSiteTests.gpx)))
            // The server counts only the client's time: while a busy test run holds the thread
            // pool that reads the body, the window does not run. A socket that never closes
            // fails after 30 s (the trickle would have lasted 12 s).
            let trickle = try LoopbackHTTP(port: server.port, timeout: 30)
            try trickle.send(server.head("POST", "/api/tracks?name=slow.gpx", "Content-Length: \(gpx.count)\r\nConnection: close\r\n"))
            let header = try LoopbackHTTP(port: server.port, timeout: 30)
            let started = ContinuousClock.now
            let sender = Task {
                for (index, byte) in gpx.prefix(40).enumerated() {
                    try? trickle.send([byte])
                    try? header.send([Array("POST /api/tracks HTTP/1.1\r\n".utf8)[index % 27]])
                    try await Task.sleep(for: .milliseconds(300))
                }
            }
            let normal = try await server.post("/api/tracks?name=day.gpx", body: gpx)
            #expect(normal.status == 200, "\(normal.text)")
            _ = try await trickle.readAll()
            let cutAfter = ContinuousClock.now - started
            _ = try await header.readAll()
            let headerCutAfter = ContinuousClock.now - started
            sender.cancel()
            // Cut (the socket's timeout would throw otherwise), and not before its limit.
            #expect(cutAfter > .milliseconds(900), "body trickle cut after \(cutAfter)")
            #expect(headerCutAfter > .milliseconds(1900), "header trickle cut after \(headerCutAfter)")
            #expect(try RegionStore(path: server.store).regionCount() == 8)
            #expect(try await server.get("/status").text == "OK")
        }
    }

    /// 400,000 fixes of a seeded random walk (a new region almost every fix): seconds to read and
    /// to write, even in a debug build. Made once, on a thread of its own (seconds of CPU that
    /// must not hold the cooperative pool the in-process server runs on).
    static let years = Task { try await LoopbackHTTP.offPool(makeYears) }

    @Sendable static func makeYears() -> [UInt8] {
        var generator = SeededGenerator(state: 26)
        var csv = "lat,lon,time\n"
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        var lat = 39.0, lon = 32.0
        for index in 0..<400_000 {
            lat += Double.random(in: -0.004...0.004, using: &generator)
            lon += Double.random(in: -0.004...0.004, using: &generator)
            csv += "\(lat),\(lon),\(start.addingTimeInterval(Double(index) * 30).ISO8601Format())\n"
        }
        return Array(csv.utf8)
    }

    /// Waits (at most two minutes) until the newest upload's phase is `phase`.
    static func wait(for phase: String, _ server: TestServer) async throws {
        var progress: [String: Any] = [:]
        for _ in 0..<1200 where progress["phase"] as? String != phase {
            try await Task.sleep(for: .milliseconds(100))
            progress = try await server.get("/api/tracks/progress").object()
        }
        #expect(progress["phase"] as? String == phase, "\(progress)")
    }

    /// Stopping (as on SIGTERM) while a large import is being written and another upload is being
    /// trickled: the server ends and the store holds nothing of either. Without the cancellation
    /// the stop would wait for the whole import, which would then be kept.
    @Test func stoppingEndsImportsUnderWayAndKeepsNothing() async throws {
        let server = try await TestServer.start(limits: Self.quick)
        let big = Task { try await server.post("/api/tracks?name=years.csv", body: try await Self.years.value) }
        try await Self.wait(for: "importing", server)
        let trickle = try LoopbackHTTP(port: server.port)
        try trickle.send(server.head("POST", "/api/tracks?name=slow.csv", "Content-Length: 100000\r\nConnection: close\r\n") + "lat,lon")
        // How fast the stop is, is measured by scripts/bench/bench-serve-abuse.sh.
        await server.stop()
        let reply = try? await big.value
        #expect(reply?.status != 200, "\(reply?.text ?? "no answer")")
        #expect(try RegionStore(path: server.store).regionCount() == 0)
    }

    /// An upload being read (parsed into its private spool) holds nothing either: a small import
    /// is written meanwhile, before the large one, which is then stopped with the server while
    /// still reading and leaves nothing.
    @Test func aReadingUploadHoldsNothing() async throws {
        let server = try await TestServer.start()
        let big = Task { try await server.post("/api/tracks?name=years.csv", body: try await Self.years.value) }
        try await Self.wait(for: "reading", server)
        let small = try await server.post(
            "/api/tracks?name=day.gpx", body: Array(try Data(contentsOf: URL(fileURLWithPath: CrossSiteTests.gpx))))
        #expect(small.status == 200, "\(small.text)")
        #expect(try RegionStore(path: server.store).regionCount() == 8)
        await server.stop()
        _ = try? await big.value
        #expect(try RegionStore(path: server.store).regionCount() == 8)
    }

    /// What the progress route and the answers say names the upload, never a temporary path.
    @Test func noInternalPathInAnswers() async throws {
        try await TestServer.with { server in
            let bad = try await server.post("/api/tracks?name=bad.csv", body: Array("lat,lon,time\n41,abc,2024-05-01T07:01:00Z\n".utf8))
            let progress = try await server.get("/api/tracks/progress")
            for text in [bad.text, progress.text] {
                #expect(text.contains("bad.csv") && !text.contains("roqua-upload") && !text.contains(NSTemporaryDirectory()), "\(text)")
            }
        }
    }
}

/// A flag one task sets and another polls.
final class Flag: Sendable {
    private let value = Atomic(false)
    func set() { value.store(true, ordering: .relaxed) }
    var isSet: Bool { value.load(ordering: .relaxed) }
}
