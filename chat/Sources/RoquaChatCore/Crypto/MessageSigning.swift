import Crypto
import Foundation

/// What an author signs (Ed25519) and what the server's conflict digest covers: every field
/// that gives a message its meaning, each as a 4-byte big-endian length and its UTF-8 bytes, after
/// a domain tag. `sent_at` enters as whole milliseconds, `metadata` in its canonical JSON form.
public struct MessageSigningFields: Sendable, Equatable {
    /// `group_id`: the group.
    public var groupID: String
    /// `sender_id`: the author.
    public var senderID: String
    /// `device_id`: the device.
    public var deviceID: String?
    /// `local_id`: the author's own id for the message (UUIDv7).
    public var localID: String
    /// What the message carries.
    public var type: MessageType
    /// `sent_at` in whole milliseconds since 1970.
    public var sentAtMilliseconds: Int64
    /// `key_epoch`: the group key epoch of an encrypted body.
    public var keyEpoch: Int?
    /// The body; opaque to the server (ciphertext once end-to-end encryption is on).
    public var content: String
    /// Canonical JSON (`JSONValue.canonicalData()`), or nil.
    public var canonicalMetadata: Data?

    /// Creates the value from its parts.
    public init(
        groupID: String, senderID: String, deviceID: String?, localID: String, type: MessageType,
        sentAtMilliseconds: Int64, keyEpoch: Int?, content: String, canonicalMetadata: Data?
    ) {
        self.groupID = groupID
        self.senderID = senderID
        self.deviceID = deviceID
        self.localID = localID
        self.type = type
        self.sentAtMilliseconds = sentAtMilliseconds
        self.keyEpoch = keyEpoch
        self.content = content
        self.canonicalMetadata = canonicalMetadata
    }

    /// The fields of `message` as pushed by (or relayed for) `senderID`.
    /// - Throws: `EncodingError` when the metadata cannot be written as JSON.
    public init(_ message: PushMessage, senderID: String) throws {
        self.init(
            groupID: message.groupID, senderID: senderID, deviceID: message.deviceID,
            localID: message.localID, type: message.type,
            sentAtMilliseconds: ChatTime.milliseconds(message.sentAt), keyEpoch: message.keyEpoch,
            content: message.content, canonicalMetadata: try message.metadata?.canonicalData())
    }

    static let domainTag = "roqua-chat/message/v1"

    /// The bytes to sign.
    public var payload: Data {
        SignedBytes.encode(
            [
                Self.domainTag, groupID, senderID, deviceID ?? "", localID, type.rawValue, String(sentAtMilliseconds),
                keyEpoch.map(String.init) ?? "", content,
            ].map { Data($0.utf8) } + [canonicalMetadata ?? Data()])
    }

    /// SHA-256 of `payload`: two pushes of the same (author, `local_id`) are the same message
    /// exactly when their digests are equal.
    public var digest: Data { Data(SHA256.hash(data: payload)) }
}

/// Ed25519 device keys: 32 raw bytes, base64 on the wire.
public enum DeviceSignature {
    /// Signs `fields` with the device's private key; base64 text.
    /// - Throws: `CryptoKitError` if signing fails.
    public static func sign(_ fields: MessageSigningFields, with key: Curve25519.Signing.PrivateKey) throws -> String {
        try sign(fields.payload, with: key)
    }

    /// Signs `payload` with the device's private key; base64 text.
    /// - Throws: `CryptoKitError` if signing fails.
    public static func sign(_ payload: Data, with key: Curve25519.Signing.PrivateKey) throws -> String {
        try key.signature(for: payload).base64EncodedString()
    }

    /// Whether `signature` (base64) is `publicKey`'s signature over `fields`.
    public static func verify(_ signature: String, of fields: MessageSigningFields, publicKey: Data) -> Bool {
        verify(signature, of: fields.payload, publicKey: publicKey)
    }

    /// Whether `signature` (base64) is `publicKey`'s signature over `payload`.
    public static func verify(_ signature: String, of payload: Data, publicKey: Data) -> Bool {
        guard let signatureBytes = Data(base64Encoded: signature),
            let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey)
        else { return false }
        return key.isValidSignature(signatureBytes, for: payload)
    }

    /// Decodes a base64 Ed25519 public key; nil unless it is 32 bytes that form a key.
    public static func publicKey(base64 text: String) -> Data? {
        guard let data = Data(base64Encoded: text), data.count == 32,
            (try? Curve25519.Signing.PublicKey(rawRepresentation: data)) != nil
        else { return nil }
        return data
    }
}

/// Lower-case hexadecimal, for digests in URLs and logs.
public enum Hex {
    /// The lower-case hex text of `bytes`.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `text` is a SHA-256 in lower-case hex (64 characters).
    public static func isSHA256(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
