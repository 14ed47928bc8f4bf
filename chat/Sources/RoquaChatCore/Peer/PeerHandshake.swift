import Crypto
import Foundation

/// Why a peer link was refused or closed.
public enum PeerWireError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A frame that is too big or not a peer frame.
    case frame(String)
    /// The opening `hello` of a session was not one.
    case hello(String)
    /// The peer's identity did not open, or its signature over the session transcript does not
    /// verify with its device record's identity key.
    case proof
    /// The peer's device is not a member of a group held here (removed, or never added).
    case notMember
    /// A sealed frame that does not open (altered, replayed, reordered or under another key).
    case sealed(counter: UInt64)
    /// A beacon that is not one.
    case beacon(String)

    public var description: String {
        switch self {
        case .frame(let reason): "peer frame refused: \(reason)"
        case .hello(let reason): "peer hello refused: \(reason)"
        case .proof: "peer refused: its signature over the session does not verify with its device record's identity key"
        case .notMember: "peer refused: its device is not a member of any group's log held here"
        case .sealed(let counter): "peer frame \(counter) does not open: altered, replayed or reordered"
        case .beacon(let reason): "peer beacon ignored: \(reason)"
        }
    }
}

/// The first frame of a peer link, in the clear, saying nothing about who sends it: a fresh
/// X25519 key for this session only, and one selector per group epoch the sender holds
/// (HMAC of the ephemeral key under that epoch's LAN key, cut to 16 bytes), padded with random
/// selectors to at least `minSelectors`. Only a holder of the same LAN key recognises one.
public struct PeerHello: Codable, Sendable, Equatable {
    /// The wire version (2).
    public var version: Int
    /// Base64 X25519 public key, new for each session.
    public var ephemeral: String
    /// Base64 selectors, in random order.
    public var selectors: [String]

    /// Creates the value from its parts.
    public init(version: Int = 2, ephemeral: String, selectors: [String]) {
        self.version = version
        self.ephemeral = ephemeral
        self.selectors = selectors
    }

    /// Selectors in a hello, at least (so the count says little) and at most.
    public static let minSelectors = 4, maxSelectors = 64
}

/// Who a side is, sent sealed after the hellos: its self-signed device record and its
/// signature over the session transcript with that record's identity key.
struct PeerIdentity: Codable, Sendable {
    var device: SignedDeviceRecord
    var proof: String
}

/// The session handshake of the local-network transport. Both sides send a `PeerHello` at once.
/// Each finds the LAN keys both hold (by the selectors) and derives the session keys with
/// HKDF-SHA256 from the X25519 secret of the two ephemeral keys together with those LAN keys,
/// salted with the transcript (both hellos, the initiator's first): a listener learns nothing,
/// and a device without a current epoch of a shared group cannot finish. Then each side sends,
/// sealed, its device record and its signature over the transcript; a side accepts the other
/// when the record is self-signed and the signature verifies with it. Whether that device may
/// be served is the group log's business (`PeerNode.admits`).
public struct PeerHandshake: Sendable {
    /// Which end of the TCP connection this side is (it orders the transcript).
    public enum Role: String, Sendable { case initiator, responder }

    static let label = Data("roqua-peer/2".utf8)

    /// This side's hello, to send first.
    public let hello: Data
    private let role: Role
    private let device: SignedDeviceRecord
    private let signingKey: Curve25519.Signing.PrivateKey
    private let ephemeral: Curve25519.KeyAgreement.PrivateKey
    private let lanKeys: [Data]

    /// A handshake as `role` for `device` (signed with `signingKey`), knowing `lanKeys`.
    /// - Throws: `EncodingError` (never in practice).
    public init(role: Role, device: SignedDeviceRecord, signingKey: Curve25519.Signing.PrivateKey, lanKeys: [Data]) throws {
        self.role = role
        self.device = device
        self.signingKey = signingKey
        self.lanKeys = Array(lanKeys.prefix(PeerHello.maxSelectors))
        ephemeral = Curve25519.KeyAgreement.PrivateKey()
        let ephemeralBytes = ephemeral.publicKey.rawRepresentation
        var selectors = self.lanKeys.map { Self.selector($0, ephemeralBytes) }
        while selectors.count < PeerHello.minSelectors { selectors.append(SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) }) }
        hello = try ChatJSON.encoder().encode(
            PeerHello(
                ephemeral: ephemeralBytes.base64EncodedString(),
                selectors: selectors.shuffled().map { $0.base64EncodedString() }))
    }

    static func selector(_ lanKey: Data, _ ephemeral: Data) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: label + Data(" selector".utf8) + ephemeral, using: SymmetricKey(data: lanKey)).prefix(16))
    }

    /// The step after the other side's hello arrived: returns this side's sealed identity (to
    /// send) and what is needed to check the other's.
    /// - Throws: `PeerWireError.hello` (not a hello, or no group epoch in common).
    public func answer(_ theirHello: Data) throws -> (identity: Data, pending: PeerHandshakePending) {
        guard theirHello.count <= 16 * 1024 else { throw PeerWireError.hello("\(theirHello.count) bytes") }
        let theirs: PeerHello
        do { theirs = try ChatJSON.decoder().decode(PeerHello.self, from: theirHello) } catch {
            throw PeerWireError.hello("not a hello: \(String(describing: error).prefix(200))")
        }
        guard theirs.version == 2 else { throw PeerWireError.hello("version \(theirs.version) is not 2") }
        guard theirs.selectors.count <= PeerHello.maxSelectors, let ephemeralBytes = Data(base64Encoded: theirs.ephemeral),
            let theirEphemeral = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: ephemeralBytes)
        else {
            throw PeerWireError.hello("its ephemeral key is not an X25519 key")
        }
        let offered = Set(theirs.selectors.compactMap { Data(base64Encoded: $0) })
        let shared = lanKeys.filter { offered.contains(Self.selector($0, ephemeralBytes)) }.sorted { $0.lexicographicallyPrecedes($1) }
        guard !shared.isEmpty else { throw PeerWireError.hello("no group epoch in common") }
        let transcript = role == .initiator ? Self.transcript(hello, theirHello) : Self.transcript(theirHello, hello)
        let secret: SharedSecret
        do { secret = try ephemeral.sharedSecretFromKeyAgreement(with: theirEphemeral) } catch {
            throw PeerWireError.hello("no key agreement with its ephemeral key")
        }
        let material = secret.withUnsafeBytes { Data($0) } + shared.reduce(Data(), +)
        let other: Role = role == .initiator ? .responder : .initiator
        var sealer = PeerSealer(key: Self.key(material, transcript, role))
        let identity = PeerIdentity(
            device: device, proof: try signingKey.signature(for: Self.signed(role, transcript)).base64EncodedString())
        let sealed = try sealer.seal(try ChatJSON.encoder().encode(identity))
        return (
            sealed,
            PeerHandshakePending(
                theirRole: other, transcript: transcript, sealer: sealer,
                opener: PeerOpener(key: Self.key(material, transcript, other)))
        )
    }

    static func transcript(_ initiator: Data, _ responder: Data) -> Data {
        Data(SHA256.hash(data: label + SignedBytes.encode([initiator, responder])))
    }

    static func signed(_ role: Role, _ transcript: Data) -> Data {
        label + Data(" \(role.rawValue)".utf8) + transcript
    }

    static func key(_ material: Data, _ transcript: Data, _ sender: Role) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: material), salt: transcript,
            info: label + Data(" \(sender.rawValue) frames".utf8), outputByteCount: 32)
    }
}

/// A handshake waiting for the other side's sealed identity.
public struct PeerHandshakePending: Sendable {
    let theirRole: PeerHandshake.Role
    let transcript: Data
    let sealer: PeerSealer
    let opener: PeerOpener

    /// The other device and the session's ciphers, once its identity opened and its proof verified.
    /// - Throws: `PeerWireError.sealed` / `.proof`.
    public func finish(_ theirIdentity: Data) throws -> (device: SignedDeviceRecord, sealer: PeerSealer, opener: PeerOpener) {
        var opener = opener
        let plaintext = try opener.open(theirIdentity)
        guard let identity = try? ChatJSON.decoder().decode(PeerIdentity.self, from: plaintext),
            let key = identity.device.verifiedIdentityKey, let proof = Data(base64Encoded: identity.proof),
            key.isValidSignature(proof, for: PeerHandshake.signed(theirRole, transcript))
        else { throw PeerWireError.proof }
        return (identity.device, sealer, opener)
    }
}

/// Seals this side's frames of a session: AES-256-GCM, the nonce a counter, so a frame that is
/// replayed, dropped or reordered on the way does not open at the other end.
public struct PeerSealer: Sendable {
    let key: SymmetricKey
    private(set) var counter: UInt64 = 0

    /// The sealed frame (ciphertext and tag; the nonce is implicit).
    /// - Throws: `CryptoKitError` (never in practice).
    public mutating func seal(_ plaintext: Data) throws -> Data {
        let box = try AES.GCM.seal(plaintext, using: key, nonce: try PeerOpener.nonce(counter))
        counter += 1
        return box.ciphertext + box.tag
    }
}

/// Opens the other side's frames of a session, in order.
public struct PeerOpener: Sendable {
    let key: SymmetricKey
    private(set) var counter: UInt64 = 0

    /// The frame's plaintext.
    /// - Throws: `PeerWireError.sealed` when it does not open as the next frame.
    public mutating func open(_ sealed: Data) throws -> Data {
        guard sealed.count >= 16,
            let box = try? AES.GCM.SealedBox(nonce: try Self.nonce(counter), ciphertext: sealed.dropLast(16), tag: sealed.suffix(16)),
            let plaintext = try? AES.GCM.open(box, using: key)
        else { throw PeerWireError.sealed(counter: counter) }
        counter += 1
        return plaintext
    }

    static func nonce(_ counter: UInt64) throws -> AES.GCM.Nonce {
        var bytes = Data(count: 4)
        withUnsafeBytes(of: counter.bigEndian) { bytes.append(contentsOf: $0) }
        return try AES.GCM.Nonce(data: bytes)
    }
}
