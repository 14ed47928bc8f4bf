import Foundation
import NIOCore
import NIOPosix
import RoquaChatCore
import RoquaIO

/// How a `PeerNetwork` finds peers: the addresses of a peers file (re-read every second, so it
/// may be written after the run started), or UDP beacons. Beacons go to the broadcast address of
/// the listener's network every second: 127.255.255.255 for a loopback listener (every process
/// on this machine that listens for beacons hears it, and only they), 255.255.255.255 otherwise.
/// Of two devices that hear each other, the one with the smaller nonce dials.
struct PeerDiscovery: Sendable {
    let network: PeerNetwork
    let listenPort: Int
    let beacons: NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>?

    /// Checks the peers file, or binds the beacon socket.
    /// - Throws: `PeerNetworkError.peersFile` / `.beacon`.
    init(network: PeerNetwork, listenPort: Int) async throws {
        self.network = network
        self.listenPort = listenPort
        if let file = network.options.peersFile {
            _ = try Self.addresses(file)
            beacons = nil
            return
        }
        let port = network.options.beaconPort
        do {
            beacons = try await DatagramBootstrap(group: network.group)
                .channelOption(.socketOption(.so_reuseaddr), value: 1)
                .channelOption(.socketOption(.so_broadcast), value: 1)
                .bind(host: "0.0.0.0", port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>(
                            wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw PeerNetworkError.beacon(port: port, reason: "\(error)")
        }
    }

    var loopback: Bool { network.options.host.hasPrefix("127.") || network.options.host == "localhost" }

    /// Dials and announces until the network closes the sockets (at the end of its run).
    func run() async {
        if let file = network.options.peersFile {
            while !Task.isCancelled {
                // The file was readable at start; a bad edit later keeps the dialing of what parses.
                for (host, port) in (try? Self.addresses(file)) ?? [] {
                    Task { await network.dial(host: host, port: port) }
                }
                try? await Task.sleep(for: .seconds(1))  // cancellation ends the loop at its check
            }
            return
        }
        guard let beacons else { return }
        network.track(beacons.channel)
        let (client, options, nonce) = (network.client, network.options, network.nonce)
        // Two literal addresses and a port checked by the CLI: nil (no beacons sent, only heard) cannot happen in practice.
        let target = try? SocketAddress(ipAddress: loopback ? "127.255.255.255" : "255.255.255.255", port: options.beaconPort)
        try? await beacons.executeThenClose { inbound, outbound in  // ends when the socket is closed at the deadline
            let announcer = Task {
                while !Task.isCancelled, let target {
                    // Re-read each time: a sync or peer exchange during the run may bring a new epoch.
                    let own = PeerBeacon(port: listenPort, nonce: nonce, lanKeys: (try? client.store.lanKeys()) ?? [], now: options.now())
                    try await outbound.write(AddressedEnvelope(remoteAddress: target, data: ByteBuffer(bytes: own.datagram)))
                    try await Task.sleep(for: .seconds(1))
                }
            }
            defer { announcer.cancel() }
            var senders: [UInt64: String] = [:]
            for try await datagram in inbound {
                // Not ours to read, made without a shared epoch's key, or stale: ignored.
                guard let heard = try? PeerBeacon(datagram: Data(datagram.data.readableBytesView)),
                    nonce < heard.nonce,
                    let host = datagram.remoteAddress.ipAddress, !loopback || host.hasPrefix("127."),
                    heard.isRecognised(by: (try? client.store.lanKeys()) ?? [], now: options.now())
                else { continue }
                // A nonce is one run on one host: the same beacon replayed from elsewhere is ignored.
                if let first = senders[heard.nonce], first != host { continue }
                if senders.count < 1024 { senders[heard.nonce] = host }
                Task { await network.dial(host: host, port: heard.port) }
            }
        }
    }

    /// A peers file is a few lines; anything bigger is not one.
    static let maxPeersFileBytes = 1 << 20

    /// The `host:port` lines of a peers file (blank lines and `#` comments skipped).
    /// - Throws: `PeerNetworkError.peersFile` naming the line.
    static func addresses(_ path: String) throws -> [(String, Int)] {
        let text: String
        do { text = String(decoding: try FileSource.contents(of: path, limit: maxPeersFileBytes), as: UTF8.self) } catch {
            throw PeerNetworkError.peersFile(path: path, line: 0, reason: "cannot read it: \(error.message)")
        }
        var result: [(String, Int)] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0].trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            guard let colon = line.lastIndex(of: ":"), let port = Int(line[line.index(after: colon)...]), (1...65535).contains(port),
                colon > line.startIndex
            else {
                throw PeerNetworkError.peersFile(path: path, line: index + 1, reason: "expected host:port, found \"\(line.prefix(80))\"")
            }
            result.append((String(line[..<colon]), port))
        }
        return result
    }
}
