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
    /// Messages or hellos refused (bad credential, bad signature, not a member).
    public var rejected = 0
    /// Attachment blobs received.
    public var blobs = 0
}

/// One device in the peer protocol. A session: each side sends `hello` (its credential) and a
/// summary per group; a side that verified the other's hello answers each summary of a group
/// both belong to with the messages the other lacks (up to 3 hops from their author), and
/// acknowledges what it received. Every message is checked before it is stored: the author's
/// credential must verify with the server key pinned at sign-in and name the author, device
/// and group, and the author's Ed25519 signature must cover the message as received.
public actor PeerNode {
    /// Messages are relayed until they have travelled this many hops.
    public static let maxHops = 3
    /// Messages per `messages` frame.
    static let batchSize = 50

    let client: ChatClient
    private var sessions: [String: PeerCredential] = [:]
    private var acked: [String: Set<String>] = [:]
    /// What this node saw so far.
    public private(set) var stats = PeerStats()

    /// A node over `client`'s store and keys.
    public init(client: ChatClient) { self.client = client }

    /// The frames that open a session: hello, then a summary of every group held here.
    /// - Throws: `notSignedIn` without a peer credential; `store`.
    public func opening() async throws -> [PeerFrame] {
        guard let (signed, _) = await client.credential else { throw ChatClientError.notSignedIn(home: client.home) }
        // Own messages travel with this device's credential, kept with the authors' ones.
        if let own = try? await verify(signed) { try client.store.saveCredential(signed, of: own) }
        var frames = [PeerFrame.hello(signed)]
        for groupID in try client.store.groupIDs() {
            frames.append(.summary(PeerSummary(groupID: groupID, unbroken: try client.store.summary(groupID: groupID))))
        }
        if let want = try wanted() { frames.append(want) }
        return frames
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
        case .hello(let signed):
            guard let credential = try? await verify(signed) else {   // counted; the peer simply gets nothing
                stats.rejected += 1
                return []
            }
            try client.store.saveCredential(signed, of: credential)
            sessions[peer] = credential
            return []
        case .summary(let summary):
            guard let credential = sessions[peer], credential.groups.contains(summary.groupID),
                  try client.store.groupIDs().contains(summary.groupID) else { return [] }
            return try offer(summary, to: peer, userID: credential.userID)
        case .messages(let envelopes):
            guard sessions[peer] != nil else { return [] }
            var keys: [String] = []
            for envelope in envelopes where try await accept(envelope) {
                keys.append("\(envelope.message.senderID ?? "")/\(envelope.message.localID)")
            }
            let want = envelopes.contains { $0.message.type == .image || $0.message.type == .file } ? try wanted() : nil
            return (keys.isEmpty ? [] : [.ack(keys)]) + (want.map { [$0] } ?? [])
        case .ack(let keys):
            acked[peer, default: []].formUnion(keys)
            return []
        case .want(let digests):
            guard let credential = sessions[peer] else { return [] }
            return try blobs(Set(digests.prefix(PeerFrame.maxWanted)), for: credential)
        case .blob(let blob):
            // Kept only if a message held here names it and it hashes to that name.
            guard sessions[peer] != nil, try client.store.attachments().contains(where: { $0.body.sha256 == blob.sha256 }),
                  !client.blobs.holds(blob.sha256), try client.blobs.keep(blob.data, as: blob.sha256) else { return [] }
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
    private func blobs(_ digests: Set<String>, for credential: PeerCredential) throws -> [PeerFrame] {
        var frames: [PeerFrame] = []
        var sent: Set<String> = []
        for held in try client.store.attachments() where digests.contains(held.body.sha256) && credential.groups.contains(held.groupID) {
            guard !sent.contains(held.body.sha256), let data = try client.blobs.read(held.body.sha256), data.count <= PeerBlob.maxBytes
            else { continue }
            sent.insert(held.body.sha256)
            frames.append(.blob(PeerBlob(sha256: held.body.sha256, data: data)))
        }
        return frames
    }

    private func offer(_ summary: PeerSummary, to peer: String, userID: String) throws -> [PeerFrame] {
        let done = acked[peer] ?? []
        var envelopes: [PeerEnvelope] = []
        for (wire, hops) in try client.store.messages(groupID: summary.groupID, above: summary.unbroken, maxHops: Self.maxHops) {
            guard let sender = wire.senderID, let device = wire.deviceID, !done.contains("\(sender)/\(wire.localID)"),
                  let author = try client.store.credential(userID: sender, deviceID: device) else { continue }
            envelopes.append(PeerEnvelope(message: wire, author: author, hops: hops))
        }
        return stride(from: 0, to: envelopes.count, by: Self.batchSize).map {
            .messages(Array(envelopes[$0..<min($0 + Self.batchSize, envelopes.count)]))
        }
    }

    /// Verifies and stores one message; true when it is held here now (new or not).
    private func accept(_ envelope: PeerEnvelope) async throws -> Bool {
        let message = envelope.message
        guard let author = try? await verify(envelope.author), envelope.hops >= 0, envelope.hops < Self.maxHops,
              author.userID == message.senderID, author.deviceID == message.deviceID, author.groups.contains(message.groupID),
              let signature = message.signature, let fields = try? MessageSigningFields(message, senderID: author.userID),
              let publicKey = Data(base64Encoded: author.signingKey),
              DeviceSignature.verify(signature, of: fields, publicKey: publicKey) else {
            stats.rejected += 1
            return false
        }
        if try client.store.holds(senderID: author.userID, localID: message.localID) {
            stats.duplicates += 1
            return true
        }
        try client.store.saveCredential(envelope.author, of: author)
        let key = try message.keyEpoch.flatMap { try client.store.groupKey(groupID: message.groupID, epoch: $0) }
        var record = client.codec.received(message, senderID: author.userID, key: key)
        record.hops = envelope.hops + 1
        if try client.store.insertOutgoing(record, now: Date()) { stats.stored += 1 } else { stats.duplicates += 1 }
        return true
    }

    private func verify(_ signed: SignedPeerCredential) async throws -> PeerCredential {
        guard let (_, pinned) = await client.credential, let key = Data(base64Encoded: pinned) else {
            throw ChatClientError.notSignedIn(home: client.home)
        }
        return try signed.verified(serverKey: key, now: Date())
    }
}
