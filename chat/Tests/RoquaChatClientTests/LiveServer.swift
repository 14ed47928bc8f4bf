import Foundation
import Hummingbird
import Logging
import NIOCore
import RoquaChatClient
import RoquaChatCore
import ServiceLifecycle
import Synchronization

@testable import RoquaChatServer

/// A temporary directory removed by `remove()`.
struct Scratch: Sendable {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "roqua-chat-client-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }
    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The real chat server in this process on 127.0.0.1 over a SQLite file, which can be stopped
/// and started again on the same port (same secret, same data) to play "the server is down".
final class LiveServer: Sendable {
    let store: SQLiteChatStore
    let clock: ManualClock
    let sms: CapturingSMSProvider
    let secret: ServerSecret
    let port: Int
    private let task: Mutex<Task<Void, any Error>?>

    init(directory: Scratch) async throws {
        let store = try SQLiteChatStore(path: directory.file("server.sqlite"))
        let (clock, sms, secret) = (ManualClock(Date()), CapturingSMSProvider(), ServerSecret.random())
        let (task, port) = try await Self.launchOnOwnPort(store: store, sms: sms, secret: secret, clock: clock)
        (self.store, self.clock, self.sms, self.secret, self.port) = (store, clock, sms, secret, port)
        self.task = Mutex(task)
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// Ports taken by the live servers of this process. A server that is stopped keeps its port
    /// here so that no other live server takes it before `restart()`.
    private static let reserved = Mutex<Set<Int>>([])

    /// Starts on a port of its own, below the kernel's ephemeral range: a port-0 server would get
    /// an ephemeral port, which any outgoing connection or port-0 listener of a parallel test may
    /// take while this server is stopped, and `restart()` would then find it in use.
    private static func launchOnOwnPort(
        store: SQLiteChatStore, sms: CapturingSMSProvider, secret: ServerSecret,
        clock: ManualClock
    ) async throws -> (Task<Void, any Error>, Int) {
        let range = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
        let ephemeralStart = range?.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32768
        let candidates = 20_000..<max(20_001, min(ephemeralStart, 32_768))
        for _ in 0..<64 {
            let port = Int.random(in: candidates)
            guard reserved.withLock({ $0.insert(port).inserted }) else { continue }
            do {
                return try await launch(store: store, sms: sms, secret: secret, clock: clock, port: port)
            } catch let error as IOError where error.errnoCode == EADDRINUSE {
                continue  // held by something else: leave it reserved, try another
            }
        }
        throw TestFailure("no free port found for the live server in \(candidates)")
    }

    private static func launch(
        store: SQLiteChatStore, sms: CapturingSMSProvider, secret: ServerSecret, clock: ManualClock,
        port: Int
    ) async throws -> (Task<Void, any Error>, Int) {
        var logger = Logger(label: "roqua.chat.client-test")
        logger.logLevel = .critical
        let server = await ChatServer(store: store, sms: sms, secret: secret, clock: clock, logger: logger)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = try server.application(host: "127.0.0.1", port: port) { port in continuation.yield(port) }
        let task = Task {
            defer { continuation.finish() }
            try await ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger)).run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next() else {
            try await task.value
            throw TestFailure("the server stopped before listening")
        }
        return (task, bound)
    }

    func stop() async {
        let running = task.withLock { task in
            defer { task = nil }
            return task
        }
        running?.cancel()
        _ = try? await running?.value  // cancellation is how it stops; its error says nothing
    }

    /// Starts again on the same port; waits up to 5 s for the old listener's socket to go.
    func restart() async throws {
        var attempt = 0
        while true {
            do {
                let (task, _) = try await Self.launch(store: store, sms: sms, secret: secret, clock: clock, port: port)
                self.task.withLock { $0 = task }
                return
            } catch let error as IOError where error.errnoCode == EADDRINUSE && attempt < 50 {
                attempt += 1
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// Signs `client` in as `phone` (making them a guide first when asked).
    @discardableResult
    func signIn(_ client: ChatClient, phone: String, role: Role = .user) async throws -> UserInfo {
        if role != .user { _ = try await store.setRole(phone: try PhoneNumber(phone), role: role, now: clock.now()) }
        try await client.requestCode(server: url, phone: phone)
        guard let code = sms.lastCode(for: try PhoneNumber(phone)) else { throw TestFailure("no code sent to \(phone)") }
        return try await client.verify(code: code)
    }
}

/// Sleeps nothing and records what the engine asked for.
final class RecordedSleeps: Sendable {
    private let delays = Mutex<[TimeInterval]>([])
    var all: [TimeInterval] { delays.withLock { $0 } }
    var sleep: @Sendable (TimeInterval) async throws -> Void {
        { seconds in self.delays.withLock { $0.append(seconds) } }
    }
}

/// A guide and two travellers signed in to `server`, in one group whose key the travellers
/// received sealed for their devices through the server.
struct TourParty {
    let guide: ChatClient
    let travellers: [ChatClient]
    let group: GroupInfo
    var everyone: [ChatClient] { [guide] + travellers }

    static func make(
        _ server: LiveServer, in scratch: Scratch, sleeps: RecordedSleeps = RecordedSleeps(),
        confirmKeyChanges: Bool = false
    ) async throws -> TourParty {
        func client(_ name: String) throws -> ChatClient {
            try ChatClient(home: scratch.file(name), policy: RetryPolicy(maxAttempts: 3, seed: 7), sleep: sleeps.sleep)
        }
        let guide = try client("guide")
        try await server.signIn(guide, phone: "+905550000001", role: .guide)
        let group = try await guide.createGroup(name: "Kapadokya", confirmKeyChanges: confirmKeyChanges)
        var travellers: [ChatClient] = []
        for (index, phone) in ["+905551000001", "+905551000002"].enumerated() {
            let traveller = try client("traveller-\(index + 1)")
            try await server.signIn(traveller, phone: phone)
            _ = try await traveller.join(code: try await guide.invite(groupID: group.id, phone: phone).code)
            travellers.append(traveller)
        }
        // The guide's sync adds the new devices to the group's log and seals an epoch to them; theirs collect it.
        _ = try await guide.engine.sync()
        for traveller in travellers { _ = try await traveller.engine.sync() }
        return TourParty(guide: guide, travellers: travellers, group: group)
    }

    /// A party made on a server started in `scratch`, then the server stopped (it can `restart()`).
    static func offline(in scratch: Scratch) async throws -> (LiveServer, TourParty) {
        let server = try await LiveServer(directory: scratch)
        let party = try await make(server, in: scratch)
        await server.stop()
        return (server, party)
    }
}
