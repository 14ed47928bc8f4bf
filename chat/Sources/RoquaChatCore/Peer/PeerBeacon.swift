import Crypto
import Foundation

/// A discovery beacon: one UDP datagram a `peer` run broadcasts every second, saying on which
/// TCP port it takes sessions, with one tag per group epoch it holds: HMAC of the port, the
/// nonce and the current 30-second window under that epoch's LAN key, cut to 8 bytes, padded
/// with random tags to `minTags`. Anyone can hear it; only a holder of the same LAN key
/// recognises a tag, so a listener learns no user, device or group, and a beacon made without
/// the key, or replayed after its window, is ignored. `nonce` tells a run its own beacons
/// apart and decides which of two runs dials the other.
public struct PeerBeacon: Sendable, Equatable {
    /// The TCP port of the sender's listener.
    public var port: Int
    /// A random number the sender picked at start.
    public var nonce: UInt64
    /// The tags (8 bytes each).
    public var tags: [Data]

    static let prefix = "roqua-peer/2 "
    /// Tags in a beacon, at least and at most.
    public static let minTags = 4, maxTags = 16
    /// Seconds per tag window.
    public static let window: TimeInterval = 30

    /// Creates the value from its parts.
    public init(port: Int, nonce: UInt64, tags: [Data]) {
        self.port = port
        self.nonce = nonce
        self.tags = tags
    }

    /// This device's beacon at `now` for `lanKeys`.
    public init(port: Int, nonce: UInt64, lanKeys: [Data], now: Date) {
        var tags = lanKeys.prefix(Self.maxTags).map { Self.tag($0, port: port, nonce: nonce, window: Self.windowIndex(now)) }
        while tags.count < Self.minTags { tags.append(SymmetricKey(size: .init(bitCount: 64)).withUnsafeBytes { Data($0) }) }
        self.init(port: port, nonce: nonce, tags: tags.shuffled())
    }

    static func windowIndex(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 / window).rounded(.down)) }

    static func tag(_ key: Data, port: Int, nonce: UInt64, window: Int64) -> Data {
        let message = SignedBytes.encode(["roqua-peer/2 beacon", String(port), String(nonce), String(window)])
        return Data(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)).prefix(8))
    }

    /// Whether a tag was made with one of `lanKeys` in the window of `now` or the one before.
    public func isRecognised(by lanKeys: [Data], now: Date) -> Bool {
        let current = Self.windowIndex(now)
        let heard = Set(tags)
        return lanKeys.contains { key in
            [current, current - 1].contains { heard.contains(Self.tag(key, port: port, nonce: nonce, window: $0)) }
        }
    }

    /// The datagram: `roqua-peer/2 PORT NONCE TAG,TAG,…` (nonce and tags in hex).
    public var datagram: Data {
        Data("\(Self.prefix)\(port) \(String(nonce, radix: 16)) \(tags.map { Hex.encode($0) }.joined(separator: ","))".utf8)
    }

    /// A beacon from a datagram.
    /// - Throws: `PeerWireError.beacon` for anything else.
    public init(datagram: Data) throws {
        guard datagram.count <= 512, let text = String(data: datagram, encoding: .utf8), text.hasPrefix(Self.prefix) else {
            throw PeerWireError.beacon("not a roqua-peer/2 beacon")
        }
        let fields = text.dropFirst(Self.prefix.count).split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 3, let port = Int(fields[0]), (1...65535).contains(port),
            let nonce = UInt64(fields[1], radix: 16)
        else {
            throw PeerWireError.beacon("expected a port (1-65535), a hex nonce and tags")
        }
        let tags = fields[2].split(separator: ",").compactMap { Self.bytes(hex: $0) }.filter { $0.count == 8 }
        guard !tags.isEmpty, tags.count <= Self.maxTags else { throw PeerWireError.beacon("expected 1-\(Self.maxTags) 8-byte tags") }
        self.init(port: port, nonce: nonce, tags: tags)
    }

    static func bytes(hex: Substring) -> Data? {
        let digits = Array(hex.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var data = Data()
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else { return nil }
            data.append(high << 4 | low)
        }
        return data
    }

    static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
