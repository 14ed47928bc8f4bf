import Crypto
import Foundation
import RoquaChatCore
import RoquaFuzzing

/// Every parser of what a server or a peer can send a device, fed raw bytes (`scripts/checks/fuzz.sh
/// --chat`; the replay mode checks the saved inputs in the test suite).
enum ChatFuzzTargets {
    static let all: [String: FuzzDriver.Target] = [
        "peer-wire": peerWire,
        "group-log": groupLog,
        "push-body": pushBody,
        "phone": { data in
            // Normalizing is idempotent: a normalized number reads back as itself.
            guard let number = try? PhoneNumber(String(decoding: data, as: UTF8.self)) else { return }
            guard let again = try? PhoneNumber(number.e164), again == number else {
                fatalError("\(number.e164) does not read back as itself")
            }
        },
    ]

    /// The push splitter, differentially: fed whole or in pieces it finds the same messages, and
    /// on any body that is valid JSON it agrees with decoding the body whole (`PushBody`).
    @Sendable static func pushBody(_ data: Data) throws {
        let bytes = [UInt8](data)
        func split(step: Int) -> [Range<Int>]? {
            var splitter = PushBodySplitter()
            var ranges: [Range<Int>] = []
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + step)
                guard let found = try? splitter.feed(bytes[start..<end]) else { return nil }
                ranges += found
                start = end
            }
            guard (try? splitter.finish()) != nil else { return nil }
            return ranges
        }
        let whole = split(step: max(bytes.count, 1))
        let pieces = split(step: Int(bytes.first ?? 1) % 7 + 1)
        guard whole == pieces else {
            fatalError("fed in pieces, the splitter finds \(String(describing: pieces)), not \(String(describing: whole))")
        }
        guard (try? JSONSerialization.jsonObject(with: data)) != nil else { return }
        let decoded = try? ChatJSON.decoder().decode(PushBody.self, from: data)
        let streamed = whole.flatMap { ranges in
            try? ranges.map { try ChatJSON.decoder().decode(PushMessage.self, from: Data(bytes[$0])) }
        }
        if let streamed, decoded?.messages != streamed {
            fatalError("the splitter's messages differ from decoding the body whole")
        }
        // A body naming `messages` twice decodes whole (the last wins) but the splitter refuses it
        // on purpose, so that no two readers of one body see different messages.
        func namesMessagesTwice() -> Bool {
            var splitter = PushBodySplitter()
            do {
                _ = try splitter.feed(bytes[...])
                _ = try splitter.finish()
                return false
            } catch {
                return "\(error)".contains("\"messages\" appears twice")
            }
        }
        if let decoded, decoded.messages.count <= ChatLimits.maxMessagesPerPush, streamed == nil, !namesMessagesTwice() {
            fatalError("a body that decodes whole is refused by the splitter")
        }
    }

    /// What a peer on the local network can send: a beacon, the first frame of a session (its
    /// hello), its sealed identity, a sealed frame, and a frame's plaintext.
    @Sendable static func peerWire(_ data: Data) throws {
        // Each step is independent: a refusal of one must not skip the next.
        _ = (try? PeerBeacon(datagram: data))?.isRecognised(by: [Data(repeating: 7, count: 32)], now: Date())
        _ = try? PeerFrame.decode(data)
        guard let (handshake, pending, session) = PeerWireKeys.session else { return }
        var opener = session
        _ = try? opener.open(data)
        _ = try? pending.finish(data)
        _ = try handshake.answer(data)
    }

    /// What a server or a peer can put in a control message: a group-log entry or join request,
    /// applied to a group that has a creator and one member. The input is tried as it is, and
    /// spliced into a validly signed `add` (so the fuzzer also explores entries that decode).
    @Sendable static func groupLog(_ data: Data) throws {
        guard let fixture = GroupLogFixture.shared else { return }
        for candidate in [data, fixture.spliced(data)] {
            var state = fixture.state
            _ = try? state.apply(try SignedStatement(content: String(decoding: candidate, as: UTF8.self)))
            var replay = fixture.state
            _ = try? replay.apply(try SignedStatement(content: String(decoding: candidate, as: UTF8.self)), checkSignatures: false)
        }
        _ = fixture.secret.isJoinProof(String(decoding: data, as: UTF8.self), group: "g", record: fixture.creator.record)
        _ = InviteSecret(text: String(decoding: data.prefix(64), as: UTF8.self))
    }
}

/// Keys made once per process for the peer-wire target: two devices sharing a LAN key, a
/// responder's handshake, one waiting for the other's identity, and a finished session whose
/// opener reads the input as a sealed frame.
struct PeerWireKeys: Sendable {
    /// Nil only if key generation failed, which the target then skips (there is nothing of the
    /// input's to check without keys).
    static let session: (PeerHandshake, PeerHandshakePending, PeerOpener)? = {
        let keys = PeerWireKeys()
        guard let initiator = try? keys.handshake(.initiator), let responder = try? keys.handshake(.responder),
            let (identity, waiting) = try? initiator.answer(responder.hello),
            let (_, pending) = try? responder.answer(initiator.hello),
            let opener = try? pending.finish(identity).opener
        else { return nil }
        return (responder, waiting, opener)
    }()
    let device = Curve25519.Signing.PrivateKey()
    let lanKey = Data(repeating: 7, count: 32)

    func handshake(_ role: PeerHandshake.Role) throws -> PeerHandshake {
        let record = DeviceRecord(
            userID: "fuzz", deviceID: "fuzz", identityKey: device.publicKey.rawRepresentation.base64EncodedString(),
            agreementKey: Curve25519.KeyAgreement.PrivateKey().publicKey.rawRepresentation.base64EncodedString(),
            created: 0)
        return try PeerHandshake(
            role: role, device: try SignedDeviceRecord.sign(record, with: device), signingKey: device, lanKeys: [lanKey])
    }
}

/// A group made once per process: its creator's `create`, then a validly signed `add` whose
/// JSON the group-log target splices the input into.
struct GroupLogFixture: Sendable {
    static let shared: GroupLogFixture? = try? GroupLogFixture()
    let state: GroupLogState
    let creator: SignedDeviceRecord
    let add: Data
    let secret = InviteSecret(bytes: Data(repeating: 5, count: 10))

    init() throws {
        let key = try Curve25519.Signing.PrivateKey(rawRepresentation: Data(repeating: 1, count: 32))
        func record(_ user: String, _ signing: Curve25519.Signing.PrivateKey) throws -> SignedDeviceRecord {
            try SignedDeviceRecord.sign(
                DeviceRecord(
                    userID: user, deviceID: "device-\(user)", identityKey: signing.publicKey.rawRepresentation.base64EncodedString(),
                    agreementKey: Curve25519.KeyAgreement.PrivateKey().publicKey.rawRepresentation.base64EncodedString(),
                    created: 1), with: signing)
        }
        creator = try record("guide", key)
        var create = GroupStatement(
            groupID: "g", seq: 1, prev: "", kind: .create, actorUser: "guide", actorDevice: "device-guide", created: 1)
        create.name = "Kapadokya"
        create.device = creator
        var state = GroupLogState(groupID: "g")
        let head = try state.apply(try SignedStatement.sign(create, with: key)).hash
        self.state = state
        var add = GroupStatement(groupID: "g", seq: 2, prev: head, kind: .add, actorUser: "guide", actorDevice: "device-guide", created: 2)
        add.device = try record("ayse", Curve25519.Signing.PrivateKey())
        add.role = .member
        self.add = Data(try SignedStatement.sign(add, with: key).content().utf8)
    }

    /// The valid `add` with the input written over it from a position the input's first byte picks.
    func spliced(_ data: Data) -> Data {
        guard let first = data.first else { return add }
        var bytes = add
        let at = Int(first) * bytes.count / 256
        let patch = data.dropFirst().prefix(bytes.count - at)
        bytes.replaceSubrange(at..<(at + patch.count), with: patch)
        return bytes
    }
}
