import Crypto
import Foundation

/// Why a peer link was refused or closed.
public enum PeerWireError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A frame that is too big or not a peer frame.
    case frame(String)
    /// The opening `hello` of a session was not one.
    case hello(String)
    /// The peer's credential did not verify with the pinned server key.
    case credential(PeerCredentialError)
    /// The peer's signature over the session transcript did not verify with its credential's key.
    case proof
    /// A sealed frame that does not open (altered, replayed, reordered or under another key).
    case sealed(counter: UInt64)
    /// A beacon that is not one.
    case beacon(String)

    public var description: String {
        switch self {
        case .frame(let reason): "peer frame refused: \(reason)"
        case .hello(let reason): "peer hello refused: \(reason)"
        case .credential(let error): "peer refused: \(error)"
        case .proof: "peer refused: its signature over the session does not verify with its credential's device key"
        case .sealed(let counter): "peer frame \(counter) does not open: altered, replayed or reordered"
        case .beacon(let reason): "peer beacon ignored: \(reason)"
        }
    }
}

/// The first frame of a peer link, in the clear: who the sender is (its server-signed
/// credential) and a fresh X25519 key for this session only.
public struct PeerHello: Codable, Sendable, Equatable {
    /// The wire version (1).
    public var version: Int
    /// The sender device's credential.
    public var credential: SignedPeerCredential
    /// Base64 X25519 public key, new for each session.
    public var ephemeral: String

    /// Creates the value from its parts.
    public init(version: Int = 1, credential: SignedPeerCredential, ephemeral: String) {
        self.version = version
        self.credential = credential
        self.ephemeral = ephemeral
    }
}

/// The session handshake of the local-network transport. Both sides send a `PeerHello` at once,
/// then each signs the transcript (both hellos, the initiator's first) with its device's Ed25519
/// key and sends the signature. A side accepts the other when its credential verifies with the
/// server key pinned at sign-in, and its signature with the device key that credential names:
/// the ephemeral keys are then bound to both devices, so nobody in between can substitute
/// their own. Each direction gets its own AES-256-GCM key, HKDF-SHA256 from the X25519 secret
/// salted with the transcript; frames after the handshake are sealed with it (`PeerSealer`).
public struct PeerHandshake: Sendable {
    /// Which end of the TCP connection this side is (it orders the transcript).
    public enum Role: String, Sendable { case initiator, responder }

    static let label = Data("roqua-peer/1".utf8)

    /// This side's hello, to send first.
    public let hello: Data
    private let role: Role
    private let signingKey: Curve25519.Signing.PrivateKey
    private let ephemeral: Curve25519.KeyAgreement.PrivateKey

    /// A handshake as `role`, presenting `credential` and proving it with `signingKey`.
    /// - Throws: `EncodingError` (never in practice).
    public init(role: Role, credential: SignedPeerCredential, signingKey: Curve25519.Signing.PrivateKey) throws {
        self.role = role
        self.signingKey = signingKey
        ephemeral = Curve25519.KeyAgreement.PrivateKey()
        hello = try ChatJSON.encoder().encode(PeerHello(credential: credential,
                                                        ephemeral: ephemeral.publicKey.rawRepresentation.base64EncodedString()))
    }

    /// The step after the other side's hello arrived: checks its credential and returns this
    /// side's proof (to send) and what is needed to check the other's.
    /// - Throws: `PeerWireError.hello` / `.credential`.
    public func answer(_ theirHello: Data, serverKey: Data, now: Date) throws -> (proof: Data, pending: PeerHandshakePending) {
        guard theirHello.count <= PeerFrame.maxBytes else { throw PeerWireError.hello("\(theirHello.count) bytes") }
        let theirs: PeerHello
        do { theirs = try ChatJSON.decoder().decode(PeerHello.self, from: theirHello) } catch {
            throw PeerWireError.hello("not a hello: \(String(describing: error).prefix(200))")
        }
        guard theirs.version == 1 else { throw PeerWireError.hello("version \(theirs.version) is not 1") }
        let credential: PeerCredential
        do { credential = try theirs.credential.verified(serverKey: serverKey, now: now) } catch let error as PeerCredentialError {
            throw PeerWireError.credential(error)
        }
        guard let ephemeralBytes = Data(base64Encoded: theirs.ephemeral),
              let theirEphemeral = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: ephemeralBytes),
              let signingBytes = Data(base64Encoded: credential.signingKey),
              let theirSigningKey = try? Curve25519.Signing.PublicKey(rawRepresentation: signingBytes) else {
            throw PeerWireError.hello("its keys are not 32-byte Curve25519 keys")
        }
        let transcript = role == .initiator ? Self.transcript(hello, theirHello) : Self.transcript(theirHello, hello)
        let secret: SharedSecret
        do { secret = try ephemeral.sharedSecretFromKeyAgreement(with: theirEphemeral) } catch {
            throw PeerWireError.hello("no key agreement with its ephemeral key")
        }
        let other: Role = role == .initiator ? .responder : .initiator
        let proof = try signingKey.signature(for: Self.signed(role, transcript))
        let sending = Self.key(secret, transcript, role)
        let receiving = Self.key(secret, transcript, other)
        return (proof, PeerHandshakePending(credential: credential, signed: theirs.credential, theirRole: other,
                                            theirKey: theirSigningKey, transcript: transcript,
                                            sealer: PeerSealer(key: sending), opener: PeerOpener(key: receiving)))
    }

    static func transcript(_ initiator: Data, _ responder: Data) -> Data {
        var bytes = label
        for part in [initiator, responder] {
            withUnsafeBytes(of: UInt32(part.count).bigEndian) { bytes.append(contentsOf: $0) }
            bytes.append(part)
        }
        return Data(SHA256.hash(data: bytes))
    }

    static func signed(_ role: Role, _ transcript: Data) -> Data {
        label + Data(" \(role.rawValue)".utf8) + transcript
    }

    static func key(_ secret: SharedSecret, _ transcript: Data, _ sender: Role) -> SymmetricKey {
        secret.hkdfDerivedSymmetricKey(using: SHA256.self, salt: transcript,
                                       sharedInfo: label + Data(" \(sender.rawValue) frames".utf8), outputByteCount: 32)
    }
}

/// A handshake waiting for the other side's proof.
public struct PeerHandshakePending: Sendable {
    /// The other device, as its credential says (already verified).
    public let credential: PeerCredential
    /// The credential as signed, to hand to the peer protocol.
    public let signed: SignedPeerCredential
    let theirRole: PeerHandshake.Role
    let theirKey: Curve25519.Signing.PublicKey
    let transcript: Data
    let sealer: PeerSealer
    let opener: PeerOpener

    /// The session's ciphers once the other side's proof verified.
    /// - Throws: `PeerWireError.proof`.
    public func finish(_ theirProof: Data) throws -> (sealer: PeerSealer, opener: PeerOpener) {
        guard theirKey.isValidSignature(theirProof, for: PeerHandshake.signed(theirRole, transcript)) else { throw PeerWireError.proof }
        return (sealer, opener)
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
              let plaintext = try? AES.GCM.open(box, using: key) else { throw PeerWireError.sealed(counter: counter) }
        counter += 1
        return plaintext
    }

    static func nonce(_ counter: UInt64) throws -> AES.GCM.Nonce {
        var bytes = Data(count: 4)
        withUnsafeBytes(of: counter.bigEndian) { bytes.append(contentsOf: $0) }
        return try AES.GCM.Nonce(data: bytes)
    }
}
