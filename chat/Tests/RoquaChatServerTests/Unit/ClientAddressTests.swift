import Foundation
import HTTPTypes
import Logging
import Synchronization
import Testing

@testable import RoquaChatServer

@Suite("Who a sign-in request counts as")
struct ClientAddressTests {
    @Test("IPv6 counts per /64 however it is written; IPv4-mapped is IPv4; no address counts as written")
    func keys() {
        #expect(ClientAddress.key("2001:db8:1:2::1") == "2001:db8:1:2::/64")
        #expect(ClientAddress.key("2001:DB8:1:2:ffff:ffff:ffff:ffff") == "2001:db8:1:2::/64")
        #expect(ClientAddress.key("[2001:db8:1:2::9]:443") == "2001:db8:1:2::/64")
        #expect(ClientAddress.key("2001:db8:1:3::1") == "2001:db8:1:3::/64")
        #expect(ClientAddress.key("fe80::1%eth0") == "fe80:0:0:0::/64")
        #expect(ClientAddress.key("::ffff:203.0.113.5") == "203.0.113.5")
        #expect(ClientAddress.key("203.0.113.5:4711") == "203.0.113.5")
        #expect(ClientAddress.key("unknown") == "unknown")
        for loopback in ["127.0.0.1", "127.8.0.1", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1"] {
            #expect(IPAddress(loopback)?.isLoopback == true, "\(loopback)")
        }
        #expect(IPAddress("::2")?.isLoopback == false && IPAddress("10.0.0.1")?.isLoopback == false)
    }

    @Test("proxied traffic is never local; a trusted proxy is matched however its address is written")
    func proxied() throws {
        var headers = HTTPFields()
        headers[ClientAddress.forwardedFor] = "127.0.0.1, 2001:db8:5:6::7"
        let viaProxy = try ClientAddress.resolve(peer: "::ffff:127.0.0.1", headers: headers, trustedProxies: ["127.0.0.1"])
        #expect(viaProxy == ClientAddress(key: "2001:db8:5:6::/64", isLocal: false))
        headers[ClientAddress.forwardedFor] = "127.0.0.1"
        #expect(
            try ClientAddress.resolve(peer: "127.0.0.1", headers: headers, trustedProxies: ["127.0.0.1"]).isLocal == false,
            "a client the proxy names as loopback is still proxied")
        #expect(
            try ClientAddress.resolve(peer: "127.0.0.1", headers: [:], trustedProxies: []) == ClientAddress(key: "127.0.0.1", isLocal: true)
        )
        // Another machine's header is ignored, not refused: it is counted by its own address, so
        // a client cannot dodge its limit by inventing addresses.
        #expect(
            try ClientAddress.resolve(peer: "192.0.2.4", headers: headers, trustedProxies: [])
                == ClientAddress(key: "192.0.2.4", isLocal: false))
    }

    @Test("an untrusted proxy on this machine: 503 saying what to set, and one log line a minute saying it too")
    func untrustedProxy() async throws {
        let lines = LogLines()
        let logger = Logger(label: "test") { _ in lines }
        let limits = SignInLimits(settings: ChatSettings(), clock: ManualClock())
        var headers = HTTPFields()
        headers[ClientAddress.forwardedFor] = "203.0.113.5"
        for _ in 0..<3 {
            await #expect {
                _ = try await limits.admit(.codeRequest, peer: "127.0.0.1", headers: headers, logger: logger)
            } throws: { error in
                guard let error = error as? ChatServerError, case .untrustedProxy = error else { return false }
                return error.status == .serviceUnavailable && "\(error)".contains("--trusted-proxy 127.0.0.1")
            }
        }
        #expect(lines.messages.count == 1 && lines.messages[0].contains("--trusted-proxy 127.0.0.1"), "\(lines.messages)")
    }
}

/// A log handler that keeps the messages it is given.
final class LogLines: LogHandler, Sendable {
    private let box = Mutex<[String]>([])
    var messages: [String] { box.withLock { $0 } }

    // Fixed: everything is kept, with no metadata.
    var metadata: Logger.Metadata {
        get { [:] }
        set { _ = newValue }
    }
    var logLevel: Logger.Level {
        get { .trace }
        set { _ = newValue }
    }
    subscript(metadataKey _: String) -> Logger.Metadata.Value? {
        get { nil }
        set { _ = newValue }
    }

    func log(event: LogEvent) { box.withLock { $0.append("\(event.message)") } }
}
