import ArgumentParser
import Foundation
import RoquaChatClient
import RoquaCommandLine

/// `peer`: exchanges messages with nearby group members over the local network, with no server,
/// for a while, then prints what it did. Peers are found by UDP beacons, or dialed from a file.
struct PeerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peer",
        abstract: "Exchange messages with nearby group members, without the server, then exit.",
        discussion: """
            Listens for sessions on --listen and finds peers by UDP beacons on --beacon-port (sent to \
            127.255.255.255 when listening on loopback, else to 255.255.255.255), or dials the host:port \
            lines of --peers FILE instead (re-read every second). Only devices holding a current epoch of a \
            shared group finish the handshake, and each proves its device record of the group's log; \
            sessions are encrypted; messages are checked against their author's signature and relayed up to 3 hops.
            """)

    @OptionGroup var home: HomeOptions

    @Option(help: ArgumentHelp("Where to take sessions (HOST:PORT; port 0 picks one).", valueName: "HOST:PORT"))
    var listen = "127.0.0.1:0"

    @Option(help: ArgumentHelp("Dial the host:port lines of this file instead of using beacons.", valueName: "FILE"))
    var peers: String?

    @Option(name: .customLong("for"), help: ArgumentHelp("Exit after this many seconds.", valueName: "SECONDS"))
    var seconds: Double = 30

    @Option(help: "The UDP port of discovery beacons.")
    var beaconPort = 47474

    @Flag(help: "Print the report as JSON.")
    var json = false

    func validate() throws {
        guard seconds > 0, seconds <= 86_400 else { throw ValidationError("--for must lie in (0, 86400] seconds, not \(seconds)") }
        guard (1...65535).contains(beaconPort) else { throw ValidationError("--beacon-port must lie in 1…65535, not \(beaconPort)") }
        _ = try address()
    }

    private func address() throws -> (host: String, port: Int) {
        guard let colon = listen.lastIndex(of: ":"), colon > listen.startIndex,
            let port = Int(listen[listen.index(after: colon)...]), (0...65535).contains(port)
        else {
            throw ValidationError("--listen must be HOST:PORT (e.g. 127.0.0.1:0), not \"\(listen.prefix(80))\"")
        }
        return (String(listen[..<colon]), port)
    }

    func run() async throws {
        let client = try home.client()
        let (host, port) = try address()
        let options = PeerNetworkOptions(host: host, port: port, peersFile: peers, beaconPort: beaconPort)
        let network = PeerNetwork(client: client, options: options)
        let found = peers.map { "dialing the peers in \($0)" } ?? "beacons on UDP \(beaconPort)"
        let report = try await network.run(for: .milliseconds(Int64(seconds * 1000))) { bound in
            RoquaProgram.note("listening on \(host):\(bound), \(found), for \(seconds)s")
        }
        let stats = report.stats
        if json {
            print(
                try ChatOutput.json(
                    Answer(
                        peers: report.peers, sessions: report.sessions, refused: report.refused,
                        received: stats.stored, duplicates: stats.duplicates, rejected: stats.rejected)))
        } else {
            print(
                "met \(report.peers) peer(s) in \(report.sessions) session(s), \(report.refused) refused; "
                    + "received \(stats.stored) new message(s), \(stats.duplicates) duplicate(s), \(stats.rejected) rejected")
        }
    }

    /// `peer --json`: whom this device met and what it received.
    struct Answer: Encodable {
        var peers, sessions, refused, received, duplicates, rejected: Int
    }
}
