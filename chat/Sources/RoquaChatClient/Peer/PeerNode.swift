import Foundation
import RoquaChatCore

/// How peers reach each other. Delivery is best effort: frames may be lost, duplicated or
/// reordered, and the protocol converges anyway because every session starts over from
/// summaries.
public protocol PeerTransport: Sendable {
    /// Hands a frame for `to` to the transport.
    /// - Throws: when the transport itself failed (a closed connection); the frame is then lost.
    func send(_ frame: PeerFrame, from: String, to: String) async throws
}

/// What a node saw, for tests and the CLI.
public struct PeerStats: Sendable, Equatable {
    /// Messages new here.
    public var stored = 0
    /// Messages held already (dropped by (author, `local_id`)).
    public var duplicates = 0
    /// Messages or hellos refused (bad hello, bad signature, not a member).
    public var rejected = 0
    /// Attachment blobs received.
    public var blobs = 0
}

/// One device in the peer protocol. A session: each side sends `hello` (its self-signed device
/// record) and a summary per group; a side answers each summary of a group whose verified log
/// lists the other device as a member with the messages the other lacks (up to 3 hops from
/// their author), and acknowledges what it received. Every message passes `MessageIntake`
/// before it is stored: its author's signature must verify with the identity key the verified
/// group log gives that device, and a log entry must apply to the log held here. A device
/// removed from the log is served nothing by a peer that has seen the removal.
public actor PeerNode {
    /// Messages are relayed until they have travelled this many hops.
    public static let maxHops = 3
    /// Messages per `messages` frame.
    static let batchSize = 50

    let client: ChatClient
    private var sessions: [String: SignedDeviceRecord] = [:]
    private var acked: [String: Set<String>] = [:]
    /// What this node saw so far.
    public private(set) var stats = PeerStats()

    /// A node over `client`'s store and keys.
    public init(client: ChatClient) { self.client = client }

    /// The frames that open a session: hello, then a summary of every group held here.
    /// - Throws: `notSignedIn`; `store`.
    public func opening() async throws -> [PeerFrame] {
        let user = try await client.user()
        var frames = [PeerFrame.hello(try client.identity.record(userID: user.id))]
        for groupID in try memberGroups() {
            frames.append(.summary(PeerSummary(groupID: groupID, unbroken: try client.store.summary(groupID: groupID))))
        }
        if let want = try wanted() { frames.append(want) }
        return frames
    }

    /// The groups whose verified log lists this device.
    private func memberGroups() throws -> [String] {
        try client.store.groupIDs().filter { try client.store.logState(groupID: $0).member(device: client.identity.deviceID) != nil }
    }

    /// Whether `record` is a member device of a group held here (what a session needs).
    public func admits(_ record: SignedDeviceRecord) throws -> Bool {
        guard record.verifiedIdentityKey != nil else { return false }
        return try client.store.groupIDs().contains { try serves(record, groupID: $0) }
    }

    /// Whether the verified log of the group lists `record` (same identity key) as a member device.
    private func serves(_ record: SignedDeviceRecord, groupID: String) throws -> Bool {
        let state = try client.store.logState(groupID: groupID)
        return state.member(device: client.identity.deviceID) != nil && state.member(device: record.record.deviceID)?.device == record
    }

    /// Opens a session to each neighbour over `transport`.
    public func gossip(to neighbours: [String], as me: String, over transport: any PeerTransport) async throws {
        let frames = try await opening()
        for neighbour in neighbours {
            for frame in frames { try await transport.send(frame, from: me, to: neighbour) }
        }
    }

    /// Handles a frame from `peer` and sends the replies back over `transport`.
    public func deliver(_ frame: PeerFrame, from peer: String, as me: String, over transport: any PeerTransport) async throws {
        for reply in try await receive(frame, from: peer) { try await transport.send(reply, from: me, to: peer) }
    }

    /// Handles a frame from `peer`; returns the replies.
    /// - Throws: `store` when the local store fails (a refused frame is counted, not thrown).
    public func receive(_ frame: PeerFrame, from peer: String) async throws -> [PeerFrame] {
        switch frame {
        case .hello(let record):
            guard try admits(record) else {  // counted; the peer simply gets nothing
                stats.rejected += 1
                sessions[peer] = nil
                return []
            }
            sessions[peer] = record
            return []
        case .summary(let summary):
            guard let record = sessions[peer], try serves(record, groupID: summary.groupID) else { return [] }
            return try offer(summary, to: peer)
        case .messages(let envelopes):
            guard let record = sessions[peer] else { return [] }
            let keys = try await accept(envelopes, from: record)
            let want = envelopes.contains { $0.message.type == .image || $0.message.type == .file } ? try wanted() : nil
            return (keys.isEmpty ? [] : [.ack(keys)]) + (want.map { [$0] } ?? [])
        case .ack(let keys):
            acked[peer, default: []].formUnion(keys)
            return []
        case .want(let digests):
            guard let record = sessions[peer] else { return [] }
            return try blobs(Set(digests.prefix(PeerFrame.maxWanted)), for: record)
        case .blob(let blob):
            // Kept only if a message held here names it and it hashes to that name.
            guard sessions[peer] != nil, try client.store.attachments().contains(where: { $0.body.sha256 == blob.sha256 }),
                !client.blobs.holds(blob.sha256), try client.blobs.keep(blob.data, as: blob.sha256)
            else { return [] }
            stats.blobs += 1
            return []
        }
    }

    /// A `want` of the blobs of readable attachments that are not here, or nil when none is missing.
    private func wanted() throws -> PeerFrame? {
        let missing = Set(try client.store.attachments().map(\.body.sha256)).filter { !client.blobs.holds($0) }
        return missing.isEmpty ? nil : .want(Array(missing.sorted().prefix(PeerFrame.maxWanted)))
    }

    /// The wanted blobs held here that belong to a group the peer is a member of, small enough for a frame.
    private func blobs(_ digests: Set<String>, for record: SignedDeviceRecord) throws -> [PeerFrame] {
        var frames: [PeerFrame] = []
        var sent: Set<String> = []
        for held in try client.store.attachments() where digests.contains(held.body.sha256) && !sent.contains(held.body.sha256) {
            guard try serves(record, groupID: held.groupID), let data = try client.blobs.read(held.body.sha256),
                data.count <= PeerBlob.maxBytes
            else { continue }
            sent.insert(held.body.sha256)
            frames.append(.blob(PeerBlob(sha256: held.body.sha256, data: data)))
        }
        return frames
    }

    private func offer(_ summary: PeerSummary, to peer: String) throws -> [PeerFrame] {
        let done = acked[peer] ?? []
        var envelopes: [PeerEnvelope] = []
        for (wire, hops) in try client.store.messages(groupID: summary.groupID, above: summary.unbroken, maxHops: Self.maxHops) {
            guard let sender = wire.senderID, !done.contains("\(sender)/\(wire.localID)") else { continue }
            envelopes.append(PeerEnvelope(message: wire, hops: hops))
        }
        return stride(from: 0, to: envelopes.count, by: Self.batchSize).map {
            .messages(Array(envelopes[$0..<min($0 + Self.batchSize, envelopes.count)]))
        }
    }

    /// Verifies and stores the messages of groups whose log lists the peer (`MessageIntake`);
    /// returns the keys of those held here now (new or not). Join requests proved by an invite
    /// made here get their `add`, and a guide's device seals a new epoch when the log asks.
    private func accept(_ envelopes: [PeerEnvelope], from peer: SignedDeviceRecord) async throws -> [String] {
        var records: [StoredRecord] = []
        var refused = 0
        var served: [String: Bool] = [:]  // one log replay per group per frame
        for envelope in envelopes {
            let message = envelope.message
            let allowed = try served[message.groupID] ?? serves(peer, groupID: message.groupID)
            served[message.groupID] = allowed
            guard envelope.hops >= 0, envelope.hops < Self.maxHops, message.senderID != nil, allowed else {
                refused += 1
                continue
            }
            var record = client.codec.received(message, senderID: message.senderID ?? "")
            record.hops = envelope.hops + 1
            records.append(record)
        }
        let (outcomes, intake) = try client.store.write { [identity = client.identity, records] db in
            var intake = IntakeContext(identity: identity)
            var outcomes: [MessageIntake.Outcome] = []
            for record in records { outcomes.append(try MessageIntake.take(record, queue: true, context: &intake, in: db)) }
            return (outcomes, intake)
        }
        stats.rejected += refused
        var keys: [String] = []
        for (record, outcome) in zip(records, outcomes) {
            switch outcome {
            case .stored: stats.stored += 1
            case .duplicate: stats.duplicates += 1
            case .dropped:
                stats.rejected += 1
                continue
            }
            keys.append("\(record.senderID)/\(record.wire.localID)")
        }
        if let user = try? await client.user() {
            for (group, joins) in intake.joins { try client.keeper.admit(joins, groupID: group, selfID: user.id) }
            for group in Set(records.map(\.wire.groupID)) { try client.keeper.append(groupID: group, selfID: user.id, []) }
        }
        return keys
    }
}
