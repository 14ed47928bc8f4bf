import Crypto
import Foundation
import NIOCore
import NIOPosix
import RoquaChatCore
import Testing

@testable import RoquaChatClient

@Suite("Peer session handshake, sealed frames and beacons")
struct PeerHandshakeTests {
    /// A device: its keys and self-signed record.
    struct Device {
        let key = Curve25519.Signing.PrivateKey()
        let record: SignedDeviceRecord

        init(_ user: String) throws {
            record = try SignedDeviceRecord.sign(
                DeviceRecord(
                    userID: user, deviceID: "device-\(user)",
                    identityKey: key.publicKey.rawRepresentation.base64EncodedString(),
                    agreementKey: Curve25519.KeyAgreement.PrivateKey().publicKey.rawRepresentation.base64EncodedString(),
                    created: 1), with: key)
        }

        func handshake(_ role: PeerHandshake.Role, _ lanKeys: [Data]) throws -> PeerHandshake {
            try PeerHandshake(role: role, device: record, signingKey: key, lanKeys: lanKeys)
        }
    }

    let groupKey = Data(repeating: 1, count: 32), otherKey = Data(repeating: 2, count: 32)

    @Test("two devices sharing an epoch's LAN key agree on keys; frames open in order only, and not when altered, replayed or reordered")
    func handshakeAndFrames() throws {
        let (alice, bob) = (try Device("alice"), try Device("bob"))
        let initiator = try alice.handshake(.initiator, [otherKey, groupKey])
        let responder = try bob.handshake(.responder, [groupKey])
        let (aliceIdentity, alicePending) = try initiator.answer(responder.hello)
        let (bobIdentity, bobPending) = try responder.answer(initiator.hello)
        let (bobSeen, aliceSealerStart, aliceOpenerStart) = try alicePending.finish(bobIdentity)
        let (aliceSeen, bobSealerStart, bobOpenerStart) = try bobPending.finish(aliceIdentity)
        #expect(bobSeen == bob.record && aliceSeen == alice.record)
        var (aliceSealer, aliceOpener) = (aliceSealerStart, aliceOpenerStart)
        var (bobSealer, bobOpener) = (bobSealerStart, bobOpenerStart)

        let frames = try (0..<3).map { try aliceSealer.seal(Data("frame \($0)".utf8)) }
        #expect(try bobOpener.open(frames[0]) == Data("frame 0".utf8))
        #expect(throws: PeerWireError.sealed(counter: 2)) { try bobOpener.open(frames[2]) }  // skipped one
        var replaying = bobOpener
        #expect(throws: PeerWireError.sealed(counter: 2)) { try replaying.open(frames[0]) }  // replayed
        var altered = frames[1]
        altered[altered.startIndex] ^= 1
        #expect(throws: PeerWireError.sealed(counter: 2)) { try bobOpener.open(altered) }
        #expect(try aliceOpener.open(try bobSealer.seal(Data("back".utf8))) == Data("back".utf8))
        // Each direction has its own key: a frame does not open as one of the other direction.
        var mirror = aliceOpener
        #expect(throws: PeerWireError.sealed(counter: 2)) { try mirror.open(try aliceSealer.seal(Data("x".utf8))) }
    }

    @Test("no shared epoch, a proof by another key, a swapped ephemeral key and garbage are refused")
    func refusals() throws {
        let (alice, bob) = (try Device("alice"), try Device("bob"))
        let responder = try alice.handshake(.responder, [groupKey])
        // A stranger (or a member removed before this epoch) holds no LAN key of it.
        let stranger = try bob.handshake(.initiator, [otherKey])
        #expect(throws: PeerWireError.hello("no group epoch in common")) { try responder.answer(stranger.hello) }
        // Bob's record presented by someone holding the LAN key but not Bob's identity key.
        let impostor = try PeerHandshake(
            role: .initiator, device: bob.record, signingKey: Curve25519.Signing.PrivateKey(), lanKeys: [groupKey])
        let (impostorIdentity, _) = try impostor.answer(responder.hello)
        let (_, pending) = try responder.answer(impostor.hello)
        #expect(throws: PeerWireError.proof) { try pending.finish(impostorIdentity) }
        // A man in the middle swaps Bob's ephemeral key for his own: its selectors no longer match,
        // and with selectors of his own making (he holds no LAN key) neither.
        let bobHandshake = try bob.handshake(.initiator, [groupKey])
        var hello = try ChatJSON.decoder().decode(PeerHello.self, from: bobHandshake.hello)
        hello.ephemeral = Curve25519.KeyAgreement.PrivateKey().publicKey.rawRepresentation.base64EncodedString()
        #expect(throws: PeerWireError.hello("no group epoch in common")) { try responder.answer(try ChatJSON.encoder().encode(hello)) }
        // Bob's real hello but a frame from someone else as his identity: it does not open.
        let (_, pendingBob) = try responder.answer(bobHandshake.hello)
        let (strangerIdentity, _) = try bob.handshake(.initiator, [groupKey]).answer(responder.hello)
        #expect(throws: PeerWireError.sealed(counter: 0)) { try pendingBob.finish(strangerIdentity) }
        for garbage in [Data(), Data("{}".utf8), Data("not json".utf8), Data(count: PeerFrame.maxBytes + 1)] {
            #expect(throws: PeerWireError.self) { try responder.answer(garbage) }
        }
    }

    @Test("a passive listener learns no user, device, group or role from beacons, hellos and the sealed identities")
    func quietOnTheWire() throws {
        let (alice, bob) = (try Device("ayse-user-id"), try Device("mehmet-user-id"))
        let initiator = try alice.handshake(.initiator, [groupKey])
        let responder = try bob.handshake(.responder, [groupKey])
        let (aliceIdentity, _) = try initiator.answer(responder.hello)
        let (bobIdentity, _) = try responder.answer(initiator.hello)
        let beacon = PeerBeacon(port: 40123, nonce: 7, lanKeys: [groupKey], now: Date()).datagram
        let heard = [initiator.hello, responder.hello, aliceIdentity, bobIdentity, beacon]
        let secrets = [
            "ayse-user-id", "mehmet-user-id", "device-ayse", "device-mehmet", "guide", "member", "group",
            alice.record.record.identityKey, bob.record.record.identityKey,
        ]
        for bytes in heard {
            let text = String(decoding: bytes, as: UTF8.self)
            for secret in secrets { #expect(!text.contains(secret), "\(secret) is readable on the wire") }
            #expect(!bytes.base64EncodedString().contains(alice.record.record.identityKey))
        }
        // Two hellos of the same device share nothing a listener could link.
        let again = try alice.handshake(.initiator, [groupKey])
        let first = try ChatJSON.decoder().decode(PeerHello.self, from: initiator.hello)
        let second = try ChatJSON.decoder().decode(PeerHello.self, from: again.hello)
        #expect(Set(first.selectors).isDisjoint(with: second.selectors) && first.ephemeral != second.ephemeral)
        #expect(first.selectors.count == PeerHello.minSelectors)
    }

    @Test("beacons round-trip; only a holder of the epoch's key recognises one, and not after its window; anything else is refused")
    func beacons() throws {
        let now = Date()
        let beacon = PeerBeacon(port: 40123, nonce: 0xDEAD_BEEF, lanKeys: [groupKey], now: now)
        #expect(try PeerBeacon(datagram: beacon.datagram) == beacon)
        #expect(beacon.tags.count == PeerBeacon.minTags)
        #expect(beacon.isRecognised(by: [otherKey, groupKey], now: now))
        #expect(beacon.isRecognised(by: [groupKey], now: now.addingTimeInterval(PeerBeacon.window)))
        #expect(!beacon.isRecognised(by: [otherKey], now: now), "a stranger's key recognises nothing")
        #expect(!beacon.isRecognised(by: [groupKey], now: now.addingTimeInterval(3 * PeerBeacon.window)), "a replay after its window")
        var moved = beacon
        moved.port = 40124
        #expect(!moved.isRecognised(by: [groupKey], now: now), "a tag does not vouch for another port")
        let fake = PeerBeacon(port: 40123, nonce: 1, lanKeys: [], now: now)
        #expect(!fake.isRecognised(by: [groupKey], now: now))
        for bad in [
            "roqua-peer/2 0 1 0011223344556677", "roqua-peer/2 70000 1 0011223344556677", "roqua-peer/2 80 zz 0011223344556677",
            "roqua-peer/1 80 1", "roqua-peer/2 80 1", "roqua-peer/2 80 1 00", "roqua-peer/2 3 e9 72f,\u{2FE}", "",
        ] {
            #expect(throws: PeerWireError.self) { try PeerBeacon(datagram: Data(bad.utf8)) }
        }
    }

    @Test("a peers file's bad line is named")
    func peersFile() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try "# peers\n127.0.0.1:4000\n\n  localhost:4001  # me\n".write(toFile: scratch.file("ok"), atomically: true, encoding: .utf8)
        #expect(try PeerDiscovery.addresses(scratch.file("ok")).map { "\($0.0):\($0.1)" } == ["127.0.0.1:4000", "localhost:4001"])
        try "127.0.0.1:4000\n127.0.0.1\n".write(toFile: scratch.file("bad"), atomically: true, encoding: .utf8)
        #expect { try PeerDiscovery.addresses(scratch.file("bad")) } throws: {
            "\($0)".hasSuffix("bad:2: expected host:port, found \"127.0.0.1\"")
        }
        #expect { try PeerDiscovery.addresses("/dev/zero") } throws: {
            "\($0)".contains("/dev/zero: cannot read it: is over the 1048576-byte limit")
        }
    }

    @Test("over TCP, a stranger without the group's epoch is refused at the hello, and a removed member at the identity")
    func refusedOverTheNetwork() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await LiveServer(directory: scratch)
        let party = try await TourParty.make(server, in: scratch)
        let removed = party.travellers[1]
        let oldKeys = try removed.store.lanKeys()
        try await party.guide.removeMember(groupID: party.group.id, userID: try await removed.user().id)
        await server.stop()
        try await party.guide.send(groupID: party.group.id, text: "only for members")
        try Data().write(to: URL(fileURLWithPath: scratch.file("none.peers")))
        let network = PeerNetwork(client: party.guide, options: PeerNetworkOptions(peersFile: scratch.file("none.peers")))
        let (ports, announce) = AsyncStream<Int>.makeStream()
        // Long enough for a loaded machine; cancelled as soon as both attempts are done.
        let run = Task { try await network.run(for: .seconds(120)) { announce.yield($0) } }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())

        func attempt(_ handshake: PeerHandshake) async throws -> [ByteBuffer] {
            let connection = try await ClientBootstrap(group: .singletonMultiThreadedEventLoopGroup)
                .connect(host: "127.0.0.1", port: port) { channel in
                    channel.eventLoop.makeCompletedFuture { try PeerNetwork.framed(channel) }
                }
            return try await connection.executeThenClose { inbound, outbound in
                try await outbound.write(ByteBuffer(bytes: handshake.hello))
                var frames: [ByteBuffer] = []
                var iterator = inbound.makeAsyncIterator()
                while let frame = try await iterator.next() {
                    frames.append(frame)
                    if frames.count == 1, let (identity, _) = try? handshake.answer(Data(frame.readableBytesView)) {
                        try await outbound.write(ByteBuffer(bytes: identity))
                    }
                }
                return frames
            }
        }
        // A stranger: its own keys, no LAN key of the group.
        let stranger = try Device(try await party.travellers[0].user().id)
        let strangerFrames = try await attempt(try stranger.handshake(.initiator, [otherKey]))
        #expect(strangerFrames.count == 1, "the guide sends its hello, then closes")
        // The removed member still holds the old epoch's LAN key (the guide accepts one epoch back, so
        // members who missed the removal can still be reached) and its real identity: refused as a non-member.
        let removedRecord = try removed.identity.record(userID: try await removed.user().id)
        let removedFrames = try await attempt(
            try PeerHandshake(
                role: .initiator, device: removedRecord,
                signingKey: removed.identity.signingKey, lanKeys: oldKeys))
        #expect(removedFrames.count == 2, "hello and the guide's sealed identity, then the guide closes")
        run.cancel()
        let report = try await run.value
        #expect(report.refused == 2 && report.sessions == 0 && report.stats.stored == 0)
    }

    @Test("a device holding no group epoch is told so instead of meeting no one")
    func noEpoch() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await LiveServer(directory: scratch)
        let lonely = try ChatClient(home: scratch.file("lonely"))
        try await server.signIn(lonely, phone: "+905551000009")
        try Data().write(to: URL(fileURLWithPath: scratch.file("none.peers")))
        await #expect {
            _ = try await PeerNetwork(client: lonely, options: PeerNetworkOptions(peersFile: scratch.file("none.peers"))).run(
                for: .seconds(1))
        } throws: {
            "\($0)".contains("no key for group")
        }
        await server.stop()
    }
}
