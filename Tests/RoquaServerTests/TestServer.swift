import Foundation
import Logging
import RoquaServer
import RoquaTestSupport

/// A Roqua server on 127.0.0.1 and a free port, in this process, with its own store in a
/// temporary directory and a stand-in Leaflet (the page's own tests use Debian's real one).
final class TestServer: @unchecked Sendable {
    let port: Int
    let directory: TempDirectory
    private let task: Task<Void, any Error>
    private let stopping: AsyncStream<Void>.Continuation

    var store: String { directory.file("regions.sqlite") }

    /// `fastPath: false` answers `GET /reverse` through Hummingbird's router only.
    static func start(token: String? = nil, maxUploadMegabytes: Int = 200, fastPath: Bool = true) async throws -> TestServer {
        let directory = try TempDirectory("roqua-serve-test")
        let leaflet = try directory.subdirectory("leaflet")
        try "/* stand-in leaflet */".write(toFile: leaflet + "/leaflet.js", atomically: true, encoding: .utf8)
        try ".leaflet-container {}".write(toFile: leaflet + "/leaflet.css", atomically: true, encoding: .utf8)
        var options = try ServerOptions(listen: ListenAddress(host: "127.0.0.1", port: 0), boundaries: Bundled.path(),
                                        store: directory.file("regions.sqlite"), token: token,
                                        maxUploadMegabytes: maxUploadMegabytes, leaflet: leaflet)
        options.reverseFastPath = fastPath
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let (stop, stopping) = AsyncStream<Void>.makeStream()
        var logger = Logger(label: "roqua.serve.test")
        logger.logLevel = .warning
        let task = Task {
            defer { continuation.finish() }
            try await RoquaServer.run(options, logger: logger, signals: [], stop: stop) { continuation.yield($0) }
        }
        for await port in ports {
            return TestServer(port: port, directory: directory, task: task, stopping: stopping)
        }
        try await task.value
        throw LoopbackHTTP.LoopbackError("the server stopped before listening")
    }

    private init(port: Int, directory: TempDirectory, task: Task<Void, any Error>, stopping: AsyncStream<Void>.Continuation) {
        self.port = port
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

    func post(_ target: String, body: [UInt8], headers: [String: String] = [:]) async throws -> LoopbackHTTP.Reply {
        try await LoopbackHTTP.request(port, "POST", target, headers: headers, body: body)
    }
}

extension TestServer {
    /// A server of the test's own (it changes the store), always stopped afterwards.
    static func with<T>(token: String? = nil, maxUploadMegabytes: Int = 200, fastPath: Bool = true,
                        _ body: (TestServer) async throws -> T) async throws -> T {
        let server = try await start(token: token, maxUploadMegabytes: maxUploadMegabytes, fastPath: fastPath)
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
