import Crypto
import Foundation
import NIOCore
import NIOPosix
@testable import RoquaChatClient
import RoquaChatCore
import Testing

@Suite("Peer session handshake, sealed frames and beacons")
struct PeerHandshakeTests {
    /// A device: its signing key and a credential the server key signed.
    struct Device {
        let key = Curve25519.Signing.PrivateKey()
        let signed: SignedPeerCredential

        init(_ user: String, server: Curve25519.Signing.PrivateKey) throws {
            let credential = PeerCredential(userID: user, deviceID: "device-\(user)", signingKey: key.publicKey.rawRepresentation.base64EncodedString(),
                                            groups: ["g"], role: .user, expiresAt: Date().addingTimeInterval(3600))
            signed = try SignedPeerCredential.issue(credential, key: server)
        }
    }

    let server = Curve25519.Signing.PrivateKey()
    var serverKey: Data { server.publicKey.rawRepresentation }

    @Test("two devices agree on keys; frames open in order only, and not when altered, replayed or reordered")
    func handshakeAndFrames() throws {
        let (alice, bob) = (try Device("alice", server: server), try Device("bob", server: server))
        let initiator = try PeerHandshake(role: .initiator, credential: alice.signed, signingKey: alice.key)
        let responder = try PeerHandshake(role: .responder, credential: bob.signed, signingKey: bob.key)
        let (aliceProof, alicePending) = try initiator.answer(responder.hello, serverKey: serverKey, now: Date())
        let (bobProof, bobPending) = try responder.answer(initiator.hello, serverKey: serverKey, now: Date())
        #expect(alicePending.credential.userID == "bob" && bobPending.credential.userID == "alice")
        var (aliceSealer, aliceOpener) = try alicePending.finish(bobProof)
        var (bobSealer, bobOpener) = try bobPending.finish(aliceProof)

        let frames = try (0..<3).map { try aliceSealer.seal(Data("frame \($0)".utf8)) }
        #expect(try bobOpener.open(frames[0]) == Data("frame 0".utf8))
        #expect(throws: PeerWireError.sealed(counter: 1)) { try bobOpener.open(frames[2]) }   // skipped one
        var replaying = bobOpener
        #expect(throws: PeerWireError.sealed(counter: 1)) { try replaying.open(frames[0]) }  // replayed
        var altered = frames[1]
        altered[altered.startIndex] ^= 1
        #expect(throws: PeerWireError.sealed(counter: 1)) { try bobOpener.open(altered) }
        #expect(try aliceOpener.open(try bobSealer.seal(Data("back".utf8))) == Data("back".utf8))
        // Each direction has its own key: a frame does not open as one of the other direction.
        var mirror = aliceOpener
        #expect(throws: PeerWireError.sealed(counter: 1)) { try mirror.open(try aliceSealer.seal(Data("x".utf8))) }
    }

    @Test("a credential from another server key, an expired one, a proof by another key and a swapped ephemeral key are refused")
    func refusals() throws {
        let alice = try Device("alice", server: server)
        let forged = try Device("mallory", server: Curve25519.Signing.PrivateKey())
        let responder = try PeerHandshake(role: .responder, credential: alice.signed, signingKey: alice.key)
        let mallory = try PeerHandshake(role: .initiator, credential: forged.signed, signingKey: forged.key)
        #expect(throws: PeerWireError.credential(.badSignature)) { try responder.answer(mallory.hello, serverKey: serverKey, now: Date()) }
        let bob = try Device("bob", server: server)
        let bobHandshake = try PeerHandshake(role: .initiator, credential: bob.signed, signingKey: bob.key)
        #expect(throws: PeerWireError.self) {
            try responder.answer(bobHandshake.hello, serverKey: serverKey, now: Date().addingTimeInterval(7200))
        }
        // Bob's credential presented with someone else's key: the proof does not verify.
        let impostor = try PeerHandshake(role: .initiator, credential: bob.signed, signingKey: Curve25519.Signing.PrivateKey())
        let (impostorProof, _) = try impostor.answer(responder.hello, serverKey: serverKey, now: Date())
        let (_, pending) = try responder.answer(impostor.hello, serverKey: serverKey, now: Date())
        #expect(throws: PeerWireError.proof) { try pending.finish(impostorProof) }
        // A man in the middle swaps Bob's ephemeral key for his own: Bob's proof no longer covers the transcript.
        var hello = try ChatJSON.decoder().decode(PeerHello.self, from: bobHandshake.hello)
        hello.ephemeral = Curve25519.KeyAgreement.PrivateKey().publicKey.rawRepresentation.base64EncodedString()
        let swapped = try ChatJSON.encoder().encode(hello)
        let (bobProof, _) = try bobHandshake.answer(responder.hello, serverKey: serverKey, now: Date())
        let (_, pendingSwapped) = try responder.answer(swapped, serverKey: serverKey, now: Date())
        #expect(throws: PeerWireError.proof) { try pendingSwapped.finish(bobProof) }
        for garbage in [Data(), Data("{}".utf8), Data("not json".utf8), Data(count: PeerFrame.maxBytes + 1)] {
            #expect(throws: PeerWireError.self) { try responder.answer(garbage, serverKey: serverKey, now: Date()) }
        }
    }

    @Test("beacons round-trip; anything else is refused; a peers file's bad line is named")
    func beaconsAndPeersFile() throws {
        let beacon = PeerBeacon(port: 40123, nonce: 0xDEAD_BEEF)
        #expect(try PeerBeacon(datagram: beacon.datagram) == beacon)
        for bad in ["roqua-peer/1 0 1", "roqua-peer/1 70000 1", "roqua-peer/1 80 zz", "roqua-peer/2 80 1", "roqua-peer/1 80", ""] {
            #expect(throws: PeerWireError.self) { try PeerBeacon(datagram: Data(bad.utf8)) }
        }
        let scratch = try Scratch()
        defer { scratch.remove() }
        try "# peers\n127.0.0.1:4000\n\n  localhost:4001  # me\n".write(toFile: scratch.file("ok"), atomically: true, encoding: .utf8)
        #expect(try PeerDiscovery.addresses(scratch.file("ok")).map { "\($0.0):\($0.1)" } == ["127.0.0.1:4000", "localhost:4001"])
        try "127.0.0.1:4000\n127.0.0.1\n".write(toFile: scratch.file("bad"), atomically: true, encoding: .utf8)
        #expect { try PeerDiscovery.addresses(scratch.file("bad")) } throws: { "\($0)".hasSuffix("bad:2: expected host:port, found \"127.0.0.1\"") }
        #expect { try PeerDiscovery.addresses("/dev/zero") } throws: { "\($0)".contains("/dev/zero: cannot read it: is over the 1048576-byte limit") }
    }

    @Test("over TCP, a device with a forged credential is refused at the handshake and receives nothing but the hello")
    func forgedPeerIsRefusedOverTheNetwork() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let (_, party) = try await TourParty.offline(in: scratch)
        try await party.guide.send(groupID: party.group.id, text: "only for members")
        try Data().write(to: URL(fileURLWithPath: scratch.file("none.peers")))
        let network = PeerNetwork(client: party.guide, options: PeerNetworkOptions(peersFile: scratch.file("none.peers")))
        let (ports, announce) = AsyncStream<Int>.makeStream()
        let run = Task { try await network.run(for: .seconds(3)) { announce.yield($0) } }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())

        let forged = try Device(try await party.travellers[0].user().id, server: Curve25519.Signing.PrivateKey())
        let connection = try await ClientBootstrap(group: .singletonMultiThreadedEventLoopGroup)
            .connect(host: "127.0.0.1", port: port) { channel in channel.eventLoop.makeCompletedFuture { try PeerNetwork.framed(channel) } }
        let received = try await connection.executeThenClose { inbound, outbound in
            let handshake = try PeerHandshake(role: .initiator, credential: forged.signed, signingKey: forged.key)
            try await outbound.write(ByteBuffer(bytes: handshake.hello))
            var frames: [ByteBuffer] = []
            for try await frame in inbound { frames.append(frame) }
            return frames
        }
        #expect(received.count == 1, "the guide sends its hello, then closes without a proof")
        #expect((try? ChatJSON.decoder().decode(PeerHello.self, from: Data(received[0].readableBytesView))) != nil)
        let report = try await run.value
        #expect(report.refused == 1 && report.sessions == 0 && report.stats.stored == 0)
    }

    @Test("a device whose credential expired is told so instead of meeting no one")
    func expiredCredential() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let (_, party) = try await TourParty.offline(in: scratch)
        var options = PeerNetworkOptions(peersFile: scratch.file("none.peers"))
        options.now = { Date().addingTimeInterval(2 * 86_400) }
        await #expect { _ = try await PeerNetwork(client: party.guide, options: options).run(for: .seconds(1)) } throws: {
            "\($0)".contains("expired") && "\($0)".contains("sync once with the server to renew it")
        }
    }
}
