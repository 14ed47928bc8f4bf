import Foundation
import NIOCore
import NIOExtras
import NIOPosix
import RoquaChatCore
import Synchronization

/// Where a `PeerNetwork` listens and how it finds peers.
public struct PeerNetworkOptions: Sendable {
    /// The TCP listener's address (loopback unless the user asks for the network).
    public var host: String
    /// The TCP port (0: one the system picks).
    public var port: Int
    /// A file of `host:port` lines to dial, re-read every second; without it, UDP beacons.
    public var peersFile: String?
    /// The UDP port of beacons.
    public var beaconPort: Int
    /// How often each session re-sends its summaries (what arrived since is then passed on).
    public var gossipInterval: Duration
    /// How long a connection may take to finish its handshake.
    public var handshakeTimeout: Duration
    /// The time beacon windows are read at (tests move it).
    public var now: @Sendable () -> Date = { Date() }

    /// Options with the defaults of `roqua-chat peer`.
    public init(
        host: String = "127.0.0.1", port: Int = 0, peersFile: String? = nil, beaconPort: Int = 47474,
        gossipInterval: Duration = .milliseconds(500), handshakeTimeout: Duration = .seconds(5)
    ) {
        self.host = host
        self.port = port
        self.peersFile = peersFile
        self.beaconPort = beaconPort
        self.gossipInterval = gossipInterval
        self.handshakeTimeout = handshakeTimeout
    }
}

/// What a run of the network transport did.
public struct PeerRunReport: Sendable, Equatable {
    /// Distinct devices a session was established with.
    public var peers: Int
    /// Sessions established (a device met twice counts twice).
    public var sessions: Int
    /// Connections refused during the handshake (no shared epoch, bad proof, not a member).
    public var refused: Int
    /// What the peer protocol saw.
    public var stats: PeerStats
}

/// The peer protocol over the local network (SwiftNIO): a TCP listener, dialing of the peers a
/// peers file lists or UDP beacons announce, a handshake per connection (`PeerHandshake`: X25519
/// ephemeral keys mixed with the LAN keys of shared group epochs, then each device's record and
/// its signature over the transcript, sealed; the verified group logs decide who is served),
/// then frames of at most `PeerFrame.maxBytes`, each length-prefixed and sealed with
/// the session's keys. Sessions feed a `PeerNode`, which decides what to send.
public final class PeerNetwork: PeerTransport, Sendable {
    let node: PeerNode
    let client: ChatClient
    let options: PeerNetworkOptions
    let group: MultiThreadedEventLoopGroup = .singleton
    let nonce = UInt64.random(in: 1...UInt64.max)

    struct State {
        var outgoing: [String: AsyncStream<PeerFrame>.Continuation] = [:]
        var channels: [ObjectIdentifier: any Channel] = [:]
        var dialing: Set<String> = []
        var devices: Set<String> = []
        var sessions = 0
        var refused = 0
        var serial = 0
        var stopped = false
    }

    let state = Mutex(State())

    /// A transport for `client`'s device.
    public init(client: ChatClient, options: PeerNetworkOptions) {
        self.client = client
        self.node = PeerNode(client: client)
        self.options = options
    }

    /// Queues a frame on the session named `to` (frames of a session leave in order).
    /// - Throws: `PeerWireError.frame` when that session is closed.
    public func send(_ frame: PeerFrame, from: String, to: String) async throws {
        guard let queue = state.withLock({ $0.outgoing[to] }) else { throw PeerWireError.frame("the session with \(to) is closed") }
        queue.yield(frame)
    }

    /// Listens, finds peers and exchanges with them for `duration`, then closes everything.
    /// `listening` gets the TCP port as soon as it is bound.
    /// - Throws: `notSignedIn`; `noGroupKey` when no group epoch is held here yet;
    ///   `PeerNetworkError` when the listener
    ///   or the beacon socket cannot be bound or the peers file cannot be read.
    public func run(for duration: Duration, listening: @Sendable (Int) -> Void = { _ in }) async throws -> PeerRunReport {
        _ = try await client.user()
        // Peers recognise each other only by the LAN keys of group epochs: without one, say so instead of meeting no one.
        guard try !client.store.lanKeys().isEmpty else {
            throw ChatClientError.noGroupKey(group: "any group", epoch: 0)
        }
        let server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
        do {
            server = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: options.host, port: options.port) { channel in
                    channel.eventLoop.makeCompletedFuture { try Self.framed(channel) }
                }
        } catch {
            throw PeerNetworkError.listen(address: "\(options.host):\(options.port)", reason: "\(error)")
        }
        let port = server.channel.localAddress?.port ?? options.port
        track(server.channel)
        let discovery = try await PeerDiscovery(network: self, listenPort: port)
        listening(port)
        await withTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                try? await server.executeThenClose { inbound in  // ends when the channel is closed at the deadline
                    try await withThrowingDiscardingTaskGroup { connections in
                        for try await connection in inbound {
                            connections.addTask { await self.session(connection, role: .responder, address: nil) }
                        }
                    }
                }
            }
            tasks.addTask { await discovery.run() }
            // Task.sleep throws only when cancelled, and nothing cancels this group from outside
            // but the caller, who wants the run to end then too.
            try? await Task.sleep(for: duration)
            closeEverything()
            tasks.cancelAll()
        }
        let stats = await node.stats
        // Keys used during the run leave the write-ahead log too (forward secrecy at rest).
        try client.store.checkpoint()
        return state.withLock { state in
            PeerRunReport(peers: state.devices.count, sessions: state.sessions, refused: state.refused, stats: stats)
        }
    }

    /// Dials `host:port` unless a session with that address is open or being opened.
    func dial(host: String, port: Int) async {
        let address = "\(host):\(port)"
        guard state.withLock({ state in state.stopped ? false : state.dialing.insert(address).inserted }) else { return }
        defer { _ = state.withLock { $0.dialing.remove(address) } }
        do {
            let connection = try await ClientBootstrap(group: group)
                .connectTimeout(.seconds(2))
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture { try Self.framed(channel) }
                }
            await session(connection, role: .initiator, address: address)
        } catch {
            // Nobody listens there (yet): discovery dials again at its next tick.
        }
    }

    /// Length-prefixed frames, a hostile length bounded by the handler's buffer limit.
    static func framed(_ channel: any Channel) throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        let limit = PeerFrame.maxBytes + 64
        try channel.pipeline.syncOperations.addHandler(
            ByteToMessageHandler(LengthFieldBasedFrameDecoder(lengthFieldBitLength: .fourBytes), maximumBufferSize: limit))
        try channel.pipeline.syncOperations.addHandler(LengthFieldPrepender(lengthFieldBitLength: .fourBytes))
        return try NIOAsyncChannel(wrappingChannelSynchronously: channel)
    }

    func track(_ channel: any Channel) {
        let stopped = state.withLock { state in
            if !state.stopped { state.channels[ObjectIdentifier(channel)] = channel }
            return state.stopped
        }
        if stopped { channel.close(promise: nil) }
    }

    func untrack(_ channel: any Channel) { _ = state.withLock { $0.channels.removeValue(forKey: ObjectIdentifier(channel)) } }

    private func closeEverything() {
        let (channels, queues) = state.withLock { state in
            state.stopped = true
            defer {
                state.channels = [:]
                state.outgoing = [:]
            }
            return (Array(state.channels.values), Array(state.outgoing.values))
        }
        for queue in queues { queue.finish() }
        for channel in channels { channel.close(promise: nil) }
    }
}

/// Why the network transport could not start.
public enum PeerNetworkError: Error, Sendable, CustomStringConvertible {
    /// The TCP listener could not be bound.
    case listen(address: String, reason: String)
    /// The UDP beacon socket could not be bound.
    case beacon(port: Int, reason: String)
    /// The peers file is unreadable or has a line that is not `host:port`.
    case peersFile(path: String, line: Int, reason: String)

    public var description: String {
        switch self {
        case .listen(let address, let reason): "cannot listen on \(address): \(reason)"
        case .beacon(let port, let reason): "cannot use UDP port \(port) for beacons: \(reason)"
        case .peersFile(let path, let line, let reason): line > 0 ? "\(path):\(line): \(reason)" : "\(path): \(reason)"
        }
    }
}
