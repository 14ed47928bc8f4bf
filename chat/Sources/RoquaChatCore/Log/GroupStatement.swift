import Crypto
import Foundation

/// One entry of a group's log, or a join request. Log entries (`create`, `add`, `remove`,
/// `role`, `rekey`) are chained by hash (`prev` is the hex SHA-256 of the previous entry's signed bytes)
/// and signed by the acting device's identity key; every client checks the whole chain
/// (`GroupLogState`). A `join` is not an entry: it is the request an invited device posts to the
/// group's mailbox, proving with the invite's secret that the person handed the code sent it.
public struct GroupStatement: Codable, Sendable, Equatable {
    /// What the statement does.
    public enum Kind: String, Codable, Sendable {
        case create, add, remove, rekey, join
        /// A guide promotes a member to guide or demotes a guide to member.
        case role
    }

    /// `group_id`.
    public var groupID: String
    /// Position in the log (1 = `create`); 0 for a `join`.
    public var seq: Int
    /// Hex SHA-256 of the previous entry ("" for `create` and `join`).
    public var prev: String
    /// What it does.
    public var kind: Kind
    /// The acting user and device.
    public var actorUser: String
    public var actorDevice: String
    /// Whole milliseconds since 1970, as the actor's clock said.
    public var created: Int64
    /// `create`: the group's name.
    public var name: String?
    /// `create`: the group's policy that a member's changed identity key blocks sending until
    /// each sender confirmed it (`verify --confirm`).
    public var confirmKeyChanges: Bool?
    /// `create`: the creator's device; `add`: the newcomer's; `join`: the requester's.
    public var device: SignedDeviceRecord?
    /// `add`: the newcomer's role in the group; `role`: the member's new role.
    public var role: MemberRole?
    /// `add` / `join`: which invite (a hash of its secret, never the secret).
    public var inviteID: String?
    /// `add` / `join`: HMAC under the invite's secret (see `InviteSecret`).
    public var inviteProof: String?
    /// `remove`: the user leaving; `role`: the user whose role changes.
    public var userID: String?
    /// `rekey`: the new epoch (the previous one plus one).
    public var epoch: Int?
    /// `rekey`: per member device, base64 of the HPKE-sealed epoch secret.
    public var sealed: [String: String]?

    public init(groupID: String, seq: Int, prev: String, kind: Kind, actorUser: String, actorDevice: String, created: Int64) {
        self.groupID = groupID
        self.seq = seq
        self.prev = prev
        self.kind = kind
        self.actorUser = actorUser
        self.actorDevice = actorDevice
        self.created = created
    }

    enum CodingKeys: String, CodingKey {
        case groupID = "group_id"
        case seq, prev, kind
        case actorUser = "actor_user"
        case actorDevice = "actor_device"
        case created, name, device, role
        case confirmKeyChanges = "confirm_key_changes"
        case inviteID = "invite_id"
        case inviteProof = "invite_proof"
        case userID = "user_id"
        case epoch, sealed
    }
}

/// A statement as it travels: the exact bytes signed (base64 of its JSON) and the actor's
/// Ed25519 signature over a domain tag and those bytes. It is the `content` of a `control`
/// message, which the actor's device also signs like any message.
public struct SignedStatement: Codable, Sendable, Equatable {
    /// Base64 of the statement's JSON, exactly as signed.
    public var statement: String
    /// Base64 Ed25519 signature.
    public var signature: String

    static let domainTag = Data("roqua-chat/group-statement/v1".utf8)

    /// Creates the value from its parts.
    public init(statement: String, signature: String) {
        self.statement = statement
        self.signature = signature
    }

    /// Signs `statement` with the actor's identity key.
    /// - Throws: `EncodingError`, `CryptoKitError`.
    public static func sign(_ statement: GroupStatement, with key: Curve25519.Signing.PrivateKey) throws -> SignedStatement {
        let bytes = try ChatJSON.encoder().encode(statement)
        return SignedStatement(
            statement: bytes.base64EncodedString(),
            signature: try key.signature(for: SignedBytes.encode([domainTag, bytes])).base64EncodedString())
    }

    /// The statement and its hash (hex SHA-256 of the signed bytes), before any signature check.
    /// - Throws: `GroupLogError.malformed`.
    public func decoded() throws -> (statement: GroupStatement, hash: String) {
        guard let bytes = Data(base64Encoded: statement), bytes.count <= ChatLimits.maxContentBytes else {
            throw GroupLogError.malformed("the statement is not base64")
        }
        do {
            return (try ChatJSON.decoder().decode(GroupStatement.self, from: bytes), Hex.encode(SHA256.hash(data: bytes)))
        } catch {
            throw GroupLogError.malformed("not a statement: \(String(describing: error).prefix(160))")
        }
    }

    /// Whether `key` signed these bytes.
    public func isSigned(by key: Curve25519.Signing.PublicKey) -> Bool {
        guard let bytes = Data(base64Encoded: statement), let signature = Data(base64Encoded: signature) else { return false }
        return key.isValidSignature(signature, for: SignedBytes.encode([Self.domainTag, bytes]))
    }

    /// The JSON text carried as a control message's content.
    /// - Throws: `EncodingError`.
    public func content() throws -> String { String(decoding: try ChatJSON.encoder().encode(self), as: UTF8.self) }

    /// The signed statement carried in a control message's content.
    /// - Throws: `GroupLogError.malformed`.
    public init(content: String) throws {
        do { self = try ChatJSON.decoder().decode(SignedStatement.self, from: Data(content.utf8)) } catch {
            throw GroupLogError.malformed("a control message that is not a signed statement")
        }
    }
}

/// Why a statement was not applied.
public enum GroupLogError: Error, Sendable, Equatable, CustomStringConvertible {
    case malformed(String)
    /// Not the next entry (its `seq`/`prev` does not follow the head held here).
    case outOfOrder(seq: Int, head: Int)
    /// Signed by a device that may not make it, or not signed by the device it names.
    case notAllowed(String)

    public var description: String {
        switch self {
        case .malformed(let reason): "group statement refused: \(reason)"
        case .outOfOrder(let seq, let head): "group statement \(seq) does not follow entry \(head) held here"
        case .notAllowed(let reason): "group statement refused: \(reason)"
        }
    }
}

/// The secret half of an invite code: the server gets only the code's first part, so it can
/// admit a sign-in to the group's mailbox, but it cannot produce a `join` the guide's device
/// accepts, nor an `add` the newcomer accepts (both carry an HMAC under this secret).
public struct InviteSecret: Sendable, Equatable {
    /// 10 random bytes (80 bits), shown as 16 Crockford base-32 characters.
    public let bytes: Data

    public init(bytes: Data) { self.bytes = bytes }

    /// A new random secret.
    public static func random() -> InviteSecret {
        InviteSecret(bytes: SymmetricKey(size: .init(bitCount: 80)).withUnsafeBytes { Data($0) })
    }

    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

    /// `XXXX-XXXX-XXXX-XXXX`.
    public var text: String {
        var bits = 0, value = 0, out: [Character] = []
        for byte in bytes {
            value = value << 8 | Int(byte)
            bits += 8
            while bits >= 5 {
                out.append(Self.alphabet[(value >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        return stride(from: 0, to: out.count, by: 4).map { String(out[$0..<min($0 + 4, out.count)]) }.joined(separator: "-")
    }

    /// The secret from its 16 characters (case, dashes and spaces ignored; O read as 0, I and L as 1).
    public init?(text: some StringProtocol) {
        var value = 0, bits = 0
        var bytes = Data()
        var count = 0
        for character in text.uppercased() {
            let canonical: Character =
                switch character {
                case "O": "0"
                case "I", "L": "1"
                default: character
                }
            if canonical == "-" || canonical == " " { continue }
            guard let digit = Self.alphabet.firstIndex(of: canonical) else { return nil }
            value = (value << 5 | digit) & 0xFFFF
            bits += 5
            count += 1
            if bits >= 8 {
                bytes.append(UInt8((value >> (bits - 8)) & 0xFF))
                bits -= 8
            }
        }
        guard count == 16, bytes.count == 10 else { return nil }
        self.bytes = bytes
    }

    private var key: SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: bytes), info: Data("roqua-chat/invite/v1".utf8), outputByteCount: 32)
    }

    /// Names the invite without revealing the secret.
    public var id: String { Hex.encode(SHA256.hash(data: Data("roqua-chat/invite-id/v1".utf8) + bytes).prefix(16)) }

    /// The newcomer's proof in its `join`.
    public func joinProof(group: String, record: DeviceRecord) -> String {
        Data(HMAC<SHA256>.authenticationCode(for: Self.joinBytes(group, record), using: key)).base64EncodedString()
    }

    /// The inviter's proof in the `add` of that newcomer.
    public func addProof(group: String, record: DeviceRecord, actorIdentity: String) -> String {
        Data(HMAC<SHA256>.authenticationCode(for: Self.addBytes(group, record, actorIdentity), using: key)).base64EncodedString()
    }

    /// Whether `proof` is this secret's `join` proof (compared in constant time by swift-crypto).
    public func isJoinProof(_ proof: String?, group: String, record: DeviceRecord) -> Bool {
        guard let code = proof.flatMap({ Data(base64Encoded: $0) }) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: Self.joinBytes(group, record), using: key)
    }

    /// Whether `proof` is this secret's `add` proof.
    public func isAddProof(_ proof: String?, group: String, record: DeviceRecord, actorIdentity: String) -> Bool {
        guard let code = proof.flatMap({ Data(base64Encoded: $0) }) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: Self.addBytes(group, record, actorIdentity), using: key)
    }

    private static func joinBytes(_ group: String, _ record: DeviceRecord) -> Data {
        SignedBytes.encode([Data("join".utf8), Data(group.utf8), record.payload])
    }

    private static func addBytes(_ group: String, _ record: DeviceRecord, _ actor: String) -> Data {
        SignedBytes.encode([Data("add".utf8), Data(group.utf8), record.payload, Data(actor.utf8)])
    }
}
