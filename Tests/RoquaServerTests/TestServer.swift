import Foundation
import Logging
import RoquaHTTPGuard
import RoquaServer
import RoquaTestSupport

/// A Roqua server on 127.0.0.1 and a free port, in this process, with its own store in a
/// temporary directory and a stand-in Leaflet (the page's own tests use Debian's real one).
final class TestServer: @unchecked Sendable {
    let port: Int
    /// The per-launch page token, read from the page as a browser gets it.
    let csrf: String
    let directory: TempDirectory
    private let task: Task<Void, any Error>
    private let stopping: AsyncStream<Void>.Continuation

    var store: String { directory.file("regions.sqlite") }

    /// `fastPath: false` answers `GET /reverse` through Hummingbird's router only.
    static func start(
        token: String? = nil, maxUploadMegabytes: Int = 200, fastPath: Bool = true, allowHosts: [String] = [],
        limits: ConnectionLimits = ConnectionLimits()
    ) async throws -> TestServer {
        let directory = try TempDirectory("roqua-serve-test")
        let leaflet = try directory.subdirectory("leaflet")
        try "/* stand-in leaflet */".write(toFile: leaflet + "/leaflet.js", atomically: true, encoding: .utf8)
        try ".leaflet-container {}".write(toFile: leaflet + "/leaflet.css", atomically: true, encoding: .utf8)
        var options = try ServerOptions(
            listen: ListenAddress(host: "127.0.0.1", port: 0), boundaries: Bundled.path(),
            store: directory.file("regions.sqlite"), token: token,
            maxUploadMegabytes: maxUploadMegabytes, leaflet: leaflet, allowHosts: allowHosts)
        options.reverseFastPath = fastPath
        options.connectionLimits = limits
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let (stop, stopping) = AsyncStream<Void>.makeStream()
        var logger = Logger(label: "roqua.serve.test")
        logger.logLevel = .warning
        let task = Task {
            defer { continuation.finish() }
            try await RoquaServer.run(options, logger: logger, signals: [], stop: stop) { continuation.yield($0) }
        }
        for await port in ports {
            let page = try await LoopbackHTTP.request(port, "GET", "/", headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:])
            let csrf = try pageToken(page.text)
            return TestServer(port: port, csrf: csrf, directory: directory, task: task, stopping: stopping)
        }
        try await task.value
        throw LoopbackHTTP.LoopbackError("the server stopped before listening")
    }

    /// The token in the page's `<meta name="roqua-csrf" content="…">`.
    static func pageToken(_ page: String) throws -> String {
        guard let start = page.range(of: #"<meta name="roqua-csrf" content=""#),
            let end = page[start.upperBound...].firstIndex(of: "\"")
        else {
            throw LoopbackHTTP.LoopbackError("the page carries no roqua-csrf token")
        }
        return String(page[start.upperBound..<end])
    }

    private init(
        port: Int, csrf: String, directory: TempDirectory, task: Task<Void, any Error>,
        stopping: AsyncStream<Void>.Continuation
    ) {
        self.port = port
        self.csrf = csrf
        self.directory = directory
        self.task = task
        self.stopping = stopping
    }

    /// Graceful shutdown, as on SIGTERM.
    func stop() async {
        stopping.finish()
        _ = await task.result
    }

    func get(_ target: String, headers: [String: String] = [:]) async throws -> LoopbackHTTP.Reply {
        try await LoopbackHTTP.request(port, "GET", target, headers: headers)
    }

    /// The server's own origin, as its page's requests name it.
    var origin: String { "http://127.0.0.1:\(port)" }

    /// What the server's own page sends with a write.
    var pageHeaders: [String: String] { ["Origin": origin, "X-Roqua-CSRF": csrf] }

    /// A POST as the server's own page sends it (`asPage: false`: only `headers`).
    func post(_ target: String, body: [UInt8], headers: [String: String] = [:], asPage: Bool = true) async throws -> LoopbackHTTP.Reply {
        let all = asPage ? pageHeaders.merging(headers) { _, given in given } : headers
        return try await LoopbackHTTP.request(port, "POST", target, headers: all, body: body)
    }

    /// The head of a request sent by hand, as the page sends it (its `Host`, `Origin` and token).
    func head(_ method: String, _ target: String, _ extra: String) -> String {
        "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: \(origin)\r\nX-Roqua-CSRF: \(csrf)\r\n\(extra)\r\n"
    }
}

extension TestServer {
    /// A server of the test's own (it changes the store), always stopped afterwards.
    static func with<T>(
        token: String? = nil, maxUploadMegabytes: Int = 200, fastPath: Bool = true, allowHosts: [String] = [],
        limits: ConnectionLimits = ConnectionLimits(),
        _ body: (TestServer) async throws -> T
    ) async throws -> T {
        let server = try await start(
            token: token, maxUploadMegabytes: maxUploadMegabytes, fastPath: fastPath,
            allowHosts: allowHosts, limits: limits)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }
}
