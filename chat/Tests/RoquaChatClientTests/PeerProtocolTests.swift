import Foundation
import RoquaChatCore
import Testing

@testable import RoquaChatClient

@Suite("Peer protocol on the in-memory hub")
struct PeerProtocolTests {
    /// Every client's messages as (author, local_id) → body.
    static func holdings(_ client: ChatClient, _ group: String) throws -> [String: String?] {
        Dictionary(uniqueKeysWithValues: try client.messages(groupID: group).map { ("\($0.senderID)/\($0.localID)", $0.body) })
    }

    @Test(
        "with loss, duplication, reordering and a partition bridged by a relay, 20 seeded runs all converge; then the server gets everything"
    )
    func converges() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await LiveServer(directory: scratch)
        let party = try await TourParty.make(server, in: scratch)
        await server.stop()
        let group = party.group.id
        let nodes = party.everyone.map { PeerNode(client: $0) }
        let names = ["guide", "ayse", "mehmet"]
        var rounds: [Int] = []
        for seed in UInt64(1)...20 {
            let hub = InMemoryHub(seed: seed, loss: 0.3, duplication: 0.2)
            for (name, node) in zip(names, nodes) { hub.join(name, node) }
            // The guide and Mehmet never hear each other: Ayşe relays.
            hub.partition("guide", "mehmet")
            for (index, client) in party.everyone.enumerated() {
                for count in 0..<(Int(seed) % 3 + 1) {
                    try await client.send(groupID: group, text: "run \(seed) from \(names[index]) #\(count)")
                }
            }
            try await party.travellers[1].send(
                groupID: group, location: LocationBody(latitude: 38.64, longitude: 34.83, address: "Nevşehir Merkez, Nevşehir, Türkiye"))
            var round = 0
            while round < 60 {
                try await hub.round()
                round += 1
                let views = try party.everyone.map { try Self.holdings($0, group) }
                if views.allSatisfy({ $0 == views[0] }) { break }
            }
            rounds.append(round)
            let views = try party.everyone.map { try Self.holdings($0, group) }
            #expect(views.allSatisfy { $0 == views[0] }, "seed \(seed) did not converge in \(round) rounds")
            #expect(views[0].values.allSatisfy { $0 != nil }, "seed \(seed): a body did not decrypt")
        }
        #expect(rounds.allSatisfy { $0 < 60 })
        print("peer rounds to converge per seed (loss 0.3, duplication 0.2, one partition):", rounds)
        let stats = await nodes.asyncMap { await $0.stats }
        #expect(stats.allSatisfy { $0.rejected == 0 } && stats.contains { $0.duplicates > 0 })
        // Back online: every device pushes what it holds (its own and relayed), then all agree
        // with the server, statuses sent or better, nothing doubled.
        try await server.restart()
        for client in party.everyone { _ = try await client.engine.sync() }
        for client in party.everyone { _ = try await client.engine.sync() }
        let stored = try await server.store.messages(groupID: group, after: 0, upTo: nil, limit: 500).filter { $0.type != .control }
        let serverSet = Set(stored.map { "\($0.senderID)/\($0.localID)" })
        #expect(stored.count == serverSet.count)
        for client in party.everyone {
            let messages = try client.messages(groupID: group)
            #expect(Set(messages.map { "\($0.senderID)/\($0.localID)" }) == serverSet)
            #expect(messages.allSatisfy { $0.status.rank >= MessageStatus.sent.rank })
            #expect(messages.filter { $0.type == .location }.allSatisfy { $0.location?.address == "Nevşehir Merkez, Nevşehir, Türkiye" })
        }
        await server.stop()
    }

    @Test("forged or altered messages and forged device records are rejected by peers and by the server")
    func forgeries() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await LiveServer(directory: scratch)
        let party = try await TourParty.make(server, in: scratch)
        let (guide, victim, attacker) = (party.guide, party.travellers[0], party.travellers[1])
        let group = party.group.id
        let original = try await guide.send(groupID: group, text: "Toplanma yeri: Göreme otogarı")
        let node = PeerNode(client: victim)
        let attackerRecord = try attacker.identity.record(userID: try await attacker.user().id)
        _ = try await node.receive(.hello(attackerRecord), from: "attacker")
        let genuine = try #require(try guide.store.pendingBatch(limit: 10).first { $0.localID == original.localID })
        // Altered ciphertext (one byte), and the guide's message re-signed by the attacker.
        var altered = genuine
        var bytes = try #require(Data(base64Encoded: altered.content))
        bytes[bytes.count - 1] ^= 1
        altered.content = bytes.base64EncodedString()
        var impersonated = genuine
        impersonated.signature = try DeviceSignature.sign(
            try MessageSigningFields(genuine, senderID: genuine.senderID ?? ""),
            with: attacker.identity.signingKey)
        var unsigned = genuine
        unsigned.signature = nil
        for envelope in [
            PeerEnvelope(message: altered, hops: 0), PeerEnvelope(message: impersonated, hops: 0),
            PeerEnvelope(message: unsigned, hops: 0), PeerEnvelope(message: genuine, hops: 3),
        ] {
            #expect(try await node.receive(.messages([envelope]), from: "attacker").isEmpty)
        }
        // A device record the guide's key did not sign (the attacker's keys under the guide's name) is refused at hello.
        var forged = attackerRecord
        forged.record.userID = try await guide.user().id
        _ = try await node.receive(.hello(forged), from: "impostor")
        #expect(try await node.receive(.messages([PeerEnvelope(message: genuine, hops: 0)]), from: "impostor").isEmpty)
        let stats = await node.stats
        #expect(stats.rejected == 5 && stats.stored == 0)
        #expect(try victim.messages(groupID: group).isEmpty)
        // The genuine one passes.
        #expect(
            try await node.receive(.messages([PeerEnvelope(message: genuine, hops: 0)]), from: "attacker")
                == [.ack(["\(genuine.senderID ?? "")/\(genuine.localID)"])])
        #expect(try victim.messages(groupID: group).map(\.body) == ["Toplanma yeri: Göreme otogarı"])
        // The server refuses the same forgeries when the attacker uploads them.
        let result: PushResult = try await attacker.api.call(.POST, "/v1/sync/push", body: PushBody(messages: [altered, impersonated]))
        #expect(result.synced.isEmpty && result.rejected.map(\.reason) == [.badSignature, .badSignature])
        await server.stop()
    }

    @Test("frames over the size limit or malformed are refused with a clear error")
    func frames() throws {
        #expect { try PeerFrame.decode(Data(count: PeerFrame.maxBytes + 1)) } throws: { "\($0)".contains("frame limit") }
        #expect { try PeerFrame.decode(Data("{\"hello\":1}".utf8)) } throws: { "\($0)".contains("not a peer frame") }
        let frame = PeerFrame.ack(["a/b"])
        #expect(try PeerFrame.decode(try frame.encoded()) == frame)
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        for element in self { out.append(try await transform(element)) }
        return out
    }
}
