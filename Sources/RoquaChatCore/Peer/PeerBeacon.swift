import Foundation

/// A discovery beacon: one UDP datagram a `peer` run broadcasts every second, saying on which
/// TCP port it takes sessions. It names no user, device or group (anyone on the network hears
/// it); who is who is settled by the handshake. `nonce` tells a run its own beacons apart and
/// decides which of two runs dials the other.
public struct PeerBeacon: Sendable, Equatable {
    /// The TCP port of the sender's listener.
    public var port: Int
    /// A random number the sender picked at start.
    public var nonce: UInt64

    static let prefix = "roqua-peer/1 "

    /// Creates the value from its parts.
    public init(port: Int, nonce: UInt64) {
        self.port = port
        self.nonce = nonce
    }

    /// The datagram: `roqua-peer/1 PORT NONCE` (the nonce in hex).
    public var datagram: Data { Data("\(Self.prefix)\(port) \(String(nonce, radix: 16))".utf8) }

    /// A beacon from a datagram.
    /// - Throws: `PeerWireError.beacon` for anything else.
    public init(datagram: Data) throws {
        guard datagram.count <= 64, let text = String(data: datagram, encoding: .utf8), text.hasPrefix(Self.prefix) else {
            throw PeerWireError.beacon("not a roqua-peer/1 beacon")
        }
        let fields = text.dropFirst(Self.prefix.count).split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 2, let port = Int(fields[0]), (1...65535).contains(port),
              let nonce = UInt64(fields[1], radix: 16) else {
            throw PeerWireError.beacon("expected a port (1-65535) and a hex nonce")
        }
        self.init(port: port, nonce: nonce)
    }
}
