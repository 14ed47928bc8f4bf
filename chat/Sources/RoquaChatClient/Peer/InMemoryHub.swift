import Foundation
import RoquaChatCore
import Synchronization

/// A deterministic stand-in for the network: frames wait in one queue and are delivered one at
/// a time, picked at random (reordering), each lost or doubled with the given probabilities,
/// never across a partition. Everything random comes from one seeded generator, so a run is
/// reproducible from its seed. Frames go through their JSON encoding, as on a real link.
public final class InMemoryHub: PeerTransport {
    private struct Queued: Sendable {
        var from: String
        var to: String
        var bytes: Data
    }

    private struct State: Sendable {
        var random: SplitMix64
        var queue: [Queued] = []
        var nodes: [String: PeerNode] = [:]
        var cut: Set<String> = []
        var delivered = 0
    }

    private let state: Mutex<State>
    private let loss: Double
    private let duplication: Double

    /// A hub losing a `loss` fraction of frames and doubling a `duplication` fraction.
    public init(seed: UInt64, loss: Double = 0, duplication: Double = 0) {
        state = Mutex(State(random: SplitMix64(seed: seed)))
        self.loss = loss
        self.duplication = duplication
    }

    /// Adds a node under `name`.
    public func join(_ name: String, _ node: PeerNode) { state.withLock { $0.nodes[name] = node } }

    /// Cuts (or, with `connected`, restores) the link between two nodes.
    public func partition(_ first: String, _ second: String, connected: Bool = false) {
        state.withLock { state in
            for key in ["\(first)|\(second)", "\(second)|\(first)"] {
                if connected { state.cut.remove(key) } else { state.cut.insert(key) }
            }
        }
    }

    /// Frames handed to nodes so far.
    public var delivered: Int { state.withLock { $0.delivered } }

    /// Queues a frame (maybe losing or doubling it).
    /// - Throws: `EncodingError`.
    public func send(_ frame: PeerFrame, from: String, to: String) async throws {
        let bytes = try frame.encoded()
        state.withLock { state in
            guard !state.cut.contains("\(from)|\(to)") else { return }
            if Double(state.random.next() >> 11) / Double(1 << 53) < loss { return }
            state.queue.append(Queued(from: from, to: to, bytes: bytes))
            if Double(state.random.next() >> 11) / Double(1 << 53) < duplication {
                state.queue.append(Queued(from: from, to: to, bytes: bytes))
            }
        }
    }

    /// One round: every node opens a session to every node it is not cut from, then frames
    /// are delivered in random order until none is left.
    /// - Throws: what a node's store throws.
    public func round() async throws {
        let nodes = state.withLock { state in state.nodes.sorted { $0.key < $1.key } }
        for (name, node) in nodes {
            try await node.gossip(to: nodes.map(\.key).filter { $0 != name }, as: name, over: self)
        }
        while let next = state.withLock({ state -> (Queued, PeerNode?)? in
            guard !state.queue.isEmpty else { return nil }
            let index = Int(state.random.next() % UInt64(state.queue.count))
            let item = state.queue.remove(at: index)
            state.delivered += 1
            return (item, state.nodes[item.to])
        }) {
            guard let node = next.1 else { continue }
            try await node.deliver(try PeerFrame.decode(next.0.bytes), from: next.0.from, as: next.0.to, over: self)
        }
    }
}
