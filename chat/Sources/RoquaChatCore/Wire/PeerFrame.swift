import Foundation

/// A message as peers pass it on: the author's signed wire form and how many peers relayed
/// it. Receivers check it against their own verified group log, never against what the sender
/// of the frame says about the author.
public struct PeerEnvelope: Codable, Sendable, Equatable {
    /// The signed message (ciphertext body, or a signed statement).
    public var message: PushMessage
    /// Relays so far (0: straight from the author).
    public var hops: Int

    /// Creates the value from its parts.
    public init(message: PushMessage, hops: Int) {
        self.message = message
        self.hops = hops
    }
}

/// One group's summary: per author device (`user/device`), the highest counter up to which
/// the sender holds every message.
public struct PeerSummary: Codable, Sendable, Equatable {
    /// The group.
    public var groupID: String
    /// `user/device` → highest unbroken counter.
    public var unbroken: [String: Int64]

    /// Creates the value from its parts.
    public init(groupID: String, unbroken: [String: Int64]) {
        self.groupID = groupID
        self.unbroken = unbroken
    }

    enum CodingKeys: String, CodingKey {
        case groupID = "group_id"
        case unbroken
    }
}

/// An image's or file's sealed blob, passed between peers (only blobs up to `maxBytes`: larger
/// ones wait for the server).
public struct PeerBlob: Codable, Sendable, Equatable {
    /// Lowercase hex SHA-256 of `data`.
    public var sha256: String
    /// The sealed bytes.
    public var data: Data

    /// Blobs up to this size travel between peers (base64 in a frame stays under its limit).
    public static let maxBytes = 700 * 1024

    /// Creates the value from its parts.
    public init(sha256: String, data: Data) {
        self.sha256 = sha256
        self.data = data
    }
}

/// What peers say to each other. A session starts with `hello` (the sender's self-signed
/// device record; the network transport has proved it holds that key); nothing else from a
/// peer counts before its hello, and only groups whose verified log lists that device are served.
public enum PeerFrame: Codable, Sendable, Equatable {
    /// The sender's device record.
    case hello(SignedDeviceRecord)
    /// What the sender holds of a group.
    case summary(PeerSummary)
    /// Messages the receiver lacks.
    case messages([PeerEnvelope])
    /// `author/local_id` of messages received (the sender will not offer them again).
    case ack([String])
    /// Digests of attachment blobs the sender lacks (at most `maxWanted`).
    case want([String])
    /// A sealed attachment blob someone wanted.
    case blob(PeerBlob)

    /// Digests in one `want`.
    public static let maxWanted = 100

    /// Frames above this many bytes are refused by transports (a batch stays far below it).
    public static let maxBytes = 1 << 20

    /// The frame's JSON.
    /// - Throws: `EncodingError`.
    public func encoded() throws -> Data { try ChatJSON.encoder().encode(self) }

    /// A frame from JSON.
    /// - Throws: `PeerWireError.frame` for an oversize or malformed frame.
    public static func decode(_ data: Data) throws -> PeerFrame {
        guard data.count <= maxBytes else {
            throw PeerWireError.frame("\(data.count) bytes is over the \(maxBytes)-byte frame limit")
        }
        do { return try ChatJSON.decoder().decode(PeerFrame.self, from: data) } catch {
            throw PeerWireError.frame("not a peer frame: \(String(describing: error).prefix(200))")
        }
    }
}
