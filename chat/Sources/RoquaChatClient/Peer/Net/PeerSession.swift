import Foundation
import NIOCore
import RoquaChatCore
import Synchronization

extension PeerNetwork {
    /// One connection: the handshake, then sealed frames both ways until either side closes or
    /// the run ends. Every session re-sends its summaries each `gossipInterval`, so what a third
    /// device brought in the meantime is passed on (relays). A connection that fails its
    /// handshake is counted as refused and closed; nothing it sent reaches the node.
    func session(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>, role: PeerHandshake.Role, address: String?) async {
        let channel = connection.channel
        track(channel)
        defer { untrack(channel) }
        let established = Established()
        let timeout = channel.eventLoop.scheduleTask(in: .nanoseconds(Int64(options.handshakeTimeout.nanoseconds))) {
            if !established.value { channel.close(promise: nil) }
        }
        defer { timeout.cancel() }
        var name: String?
        do {
            try await connection.executeThenClose { inbound, outbound in
                var frames = inbound.makeAsyncIterator()
                let user = try await client.user()
                let handshake = try PeerHandshake(
                    role: role, device: try client.identity.record(userID: user.id),
                    signingKey: client.identity.signingKey, lanKeys: try client.store.lanKeys())
                try await outbound.write(ByteBuffer(bytes: handshake.hello))
                guard let theirHello = try await frames.next() else { return }
                let (identity, pending) = try handshake.answer(Data(theirHello.readableBytesView))
                try await outbound.write(ByteBuffer(bytes: identity))
                guard let theirIdentity = try await frames.next() else { return }
                let (device, sealer, opener) = try pending.finish(Data(theirIdentity.readableBytesView))
                // A device meeting itself (its own beacon or address) has nothing to exchange.
                guard device.record.deviceID != client.identity.deviceID else { return }
                // A device no verified log held here lists (removed, or never added) is refused.
                guard try await node.admits(device) else { throw PeerWireError.notMember }
                established.value = true
                // Bounded: a peer that asks faster than it reads loses frames (the protocol is best
                // effort and re-sends from summaries) instead of growing this device's memory.
                let (queue, continuation) = AsyncStream<PeerFrame>.makeStream(bufferingPolicy: .bufferingOldest(Self.queuedFrames))
                let session = register(device.record, continuation)
                name = session
                // The hello the node acts on is the one the handshake proved, never one sent later.
                _ = try await node.receive(.hello(device), from: session)
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask {
                        var sealer = sealer
                        for await frame in queue { try await outbound.write(ByteBuffer(bytes: try sealer.seal(try frame.encoded()))) }
                    }
                    tasks.addTask { try await self.gossip(continuation) }
                    var opener = opener
                    while let sealed = try await frames.next() {
                        let frame = try PeerFrame.decode(try opener.open(Data(sealed.readableBytesView)))
                        if case .hello = frame { continue }
                        for reply in try await node.receive(frame, from: session) { continuation.yield(reply) }
                    }
                    continuation.finish()
                    tasks.cancelAll()
                }
            }
        } catch is PeerWireError where !established.value {
            // A refused handshake is counted; why is the peer's business, not this user's log.
            state.withLock { $0.refused += 1 }
        } catch {
            // The link broke (peer gone, run over, sealed frame altered): the session ends and
            // the peers meet again at the next dial or beacon.
        }
        if let name { _ = state.withLock { $0.outgoing.removeValue(forKey: name) } }
    }

    /// Frames waiting to be written on one session, at most.
    static let queuedFrames = 256

    private func register(_ device: DeviceRecord, _ queue: AsyncStream<PeerFrame>.Continuation) -> String {
        state.withLock { state in
            state.serial += 1
            state.sessions += 1
            state.devices.insert("\(device.userID)/\(device.deviceID)")
            let name = "\(device.userID)/\(device.deviceID)#\(state.serial)"
            state.outgoing[name] = queue
            return name
        }
    }

    /// Queues this device's summaries now and every `gossipInterval`.
    private func gossip(_ queue: AsyncStream<PeerFrame>.Continuation) async throws {
        while !Task.isCancelled {
            for frame in try await node.opening() {
                if case .hello = frame { continue }
                queue.yield(frame)
            }
            try await Task.sleep(for: options.gossipInterval)
        }
    }
}

/// Whether a connection finished its handshake (read by the timeout on the event loop).
final class Established: Sendable {
    private let flag = Atomic(false)
    var value: Bool {
        get { flag.load(ordering: .acquiring) }
        set { flag.store(newValue, ordering: .releasing) }
    }
}

extension Duration {
    var nanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
}
