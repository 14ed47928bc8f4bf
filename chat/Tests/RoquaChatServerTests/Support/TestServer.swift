import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import RoquaChatCore
import ServiceLifecycle

@testable import RoquaChatServer

/// Where test files go; removed by `remove()`.
struct TempDirectory: Sendable {
    let path: String

    init(_ label: String = "roqua-chat") throws {
        path = NSTemporaryDirectory() + "\(label)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }
    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// A server on 127.0.0.1, port 0, in this process: a manual clock, a capturing SMS provider and
/// the given store. `stop()` shuts it down gracefully.
final class TestServer: Sendable {
    let store: any ChatStore
    let clock: ManualClock
    let sms: CapturingSMSProvider
    let settings: ChatSettings
    let port: Int
    private let task: Task<Void, any Error>

    static func start(
        store: any ChatStore, settings: ChatSettings = ChatSettings(),
        secret: ServerSecret = .random()
    ) async throws -> TestServer {
        let clock = ManualClock()
        let sms = CapturingSMSProvider()
        var logger = Logger(label: "roqua.chat.test")
        logger.logLevel = ProcessInfo.processInfo.environment["ROQUA_CHAT_TEST_LOG"].flatMap { Logger.Level(rawValue: $0) } ?? .critical
        let server = await ChatServer(store: store, sms: sms, secret: secret, clock: clock, settings: settings, logger: logger)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = try server.application(host: "127.0.0.1", port: 0) { port in continuation.yield(port) }
        let task = Task {
            defer { continuation.finish() }
            let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            try await task.value
            throw TestFailure("the server stopped before listening")
        }
        return TestServer(store: store, clock: clock, sms: sms, settings: settings, port: port, task: task)
    }

    private init(
        store: any ChatStore, clock: ManualClock, sms: CapturingSMSProvider, settings: ChatSettings,
        port: Int, task: Task<Void, any Error>
    ) {
        self.store = store
        self.clock = clock
        self.sms = sms
        self.settings = settings
        self.port = port
        self.task = task
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}

/// A failure of the test machinery itself.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
