import Foundation
import Glibc
import RoquaTestSupport
import Testing

/// `roqua serve` as a user runs it: refuses a network address without a token, serves, keeps
/// coordinates out of its log, and stops cleanly on SIGTERM.
@Suite struct ServeCommandTests {
    let roqua = ProductsDirectory.product("roqua")

    @Test func nonLoopbackWithoutTokenIsRefused() throws {
        let result = try CommandRunner.run(roqua, ["serve", "--listen", "0.0.0.0:8080", "--boundaries", "unused.sqlite"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("0.0.0.0:8080 is not a loopback address") && result.stderr.contains("--token"), "\(result.stderr)")
        let short = try CommandRunner.run(roqua, ["serve", "--listen", "0.0.0.0:8080", "--token", "abc"])
        #expect(short.status == 64 && short.stderr.contains("--token must be 16 to 512 characters"))
        let badListen = try CommandRunner.run(roqua, ["serve", "--listen", "localhost:http"])
        #expect(badListen.status == 64 && badListen.stderr.contains("--listen expects HOST:PORT"))
    }

    @Test func servesAndStopsGracefullyOnSIGTERM() async throws {
        let directory = try TempDirectory()
        let leaflet = try directory.subdirectory("leaflet")
        try "/* stand-in */".write(toFile: leaflet + "/leaflet.js", atomically: true, encoding: .utf8)
        let port = try Self.freePort()
        let server = try CommandRunner.start(
            roqua,
            [
                "serve", "--listen", "127.0.0.1:\(port)", "--boundaries", Bundled.path(), "--store", directory.file("r.sqlite"),
                "--leaflet", leaflet,
            ])
        let pid = server.pid
        let watchdog = Task.detached {
            try await Task.sleep(for: .seconds(60))
            kill(pid, SIGKILL)  // never reached when the server behaves: the test cancels this first
        }
        var status: LoopbackHTTP.Reply?
        for _ in 0..<300 where status == nil {
            status = try? await LoopbackHTTP.request(port, "GET", "/status")
            if status == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(status?.text == "OK")
        let reply = try await LoopbackHTTP.request(port, "GET", "/reverse?lat=40.98765&lon=29.02811&format=json")
        #expect(reply.status == 200)
        server.kill(SIGTERM)
        let result = server.wait()
        watchdog.cancel()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Roqua is serving on http://127.0.0.1:\(port)/"))
        #expect(result.stderr.contains("listening") && result.stderr.contains("stopped"), "\(result.stderr)")
        #expect(!result.stderr.contains("40.98765") && !result.stderr.contains("29.02811"))
    }

    /// A port nothing listens on right now (bound to 0, read, released).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw LoopbackHTTP.LoopbackError("cannot find a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
