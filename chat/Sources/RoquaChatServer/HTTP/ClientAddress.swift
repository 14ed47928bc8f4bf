import Foundation
import HTTPTypes

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Who a sign-in request is counted as: the key its per-address limits and its code's requester
/// are counted under, and whether it came straight from this machine.
package struct ClientAddress: Sendable, Equatable {
    /// An IPv4 address, or the /64 network of an IPv6 address (`2001:db8:1:2::/64`): one
    /// subscriber is usually handed a whole /64, so counting single IPv6 addresses would give one
    /// client 2^64 allowances. Text that is no address is counted as it came.
    package let key: String
    /// Connected from this machine with no proxy in between — the only clients the per-address
    /// limits may spare (`ChatSettings.limitLoopback`). Proxied traffic never is, whatever
    /// address the proxy names.
    package let isLocal: Bool

    /// Headers by which a proxy names the client it forwards.
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let forwardingHeaders = [forwardedFor, HTTPField.Name("Forwarded")!, HTTPField.Name("X-Real-IP")!]

    /// The client of a request from connection peer `peer` with `headers`. A trusted proxy's
    /// client is the last address it appended to `X-Forwarded-For` (the ones before it are the
    /// client's own word); anyone else's headers are ignored.
    /// - Throws: `untrustedProxy` when a peer on this machine that is not a trusted proxy forwards
    ///   the request: every client would look like this machine, and spared by the per-address
    ///   limits one stranger could pump SMS and lock numbers out (issue 51). A misconfiguration to
    ///   refuse loudly, not to serve.
    package static func resolve(peer: String, headers: HTTPFields, trustedProxies: Set<String>) throws -> ClientAddress {
        let peerAddress = IPAddress(peer)
        let trusted =
            trustedProxies.contains(peer)
            || (peerAddress.map { address in trustedProxies.contains { IPAddress($0) == address } } ?? false)
        if trusted {
            let forwarded = headers[values: forwardedFor].last?.split(separator: ",").last?.trimmingCharacters(in: .whitespaces)
            guard let forwarded, !forwarded.isEmpty, forwarded.count <= 64 else {
                // A trusted proxy that names nobody: the proxy is the client, and not spared.
                return ClientAddress(key: key(peer), isLocal: false)
            }
            return ClientAddress(key: key(forwarded), isLocal: false)
        }
        let loopback = peerAddress?.isLoopback ?? false
        if loopback, forwardingHeaders.contains(where: { headers[$0] != nil }) {
            throw ChatServerError.untrustedProxy(peer: peer)
        }
        return ClientAddress(key: key(peer), isLocal: loopback)
    }

    /// What limits count `text` under: its /64 for IPv6, itself for IPv4 (an IPv4-mapped IPv6
    /// address is its IPv4 address), the text as it came when it is no address.
    package static func key(_ text: String) -> String {
        IPAddress(text)?.limitKey ?? text
    }
}

/// An IP address parsed by the C library (`inet_pton`), so that every spelling of one address —
/// `::1`, `0:0::1`, a zone, brackets, an IPv4-mapped form — counts as that address.
struct IPAddress: Equatable {
    /// 4 bytes (IPv4) or 16 (IPv6, never IPv4-mapped: those are stored as IPv4).
    let bytes: [UInt8]

    init?(_ text: String) {
        var text = Substring(text.trimmingCharacters(in: .whitespaces))
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") { text = text[text.index(after: text.startIndex)..<close] }
        if let zone = text.firstIndex(of: "%") { text = text[..<zone] }
        // `192.0.2.1:4711`, as some proxies write a client, is the address and a port.
        if text.contains("."), text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") { text = text[..<colon] }
        guard !text.isEmpty, text.count <= 64 else { return nil }
        var v4 = [UInt8](repeating: 0, count: 4)
        var v6 = [UInt8](repeating: 0, count: 16)
        if v4.withUnsafeMutableBytes({ inet_pton(AF_INET, String(text), $0.baseAddress) }) == 1 {
            bytes = v4
        } else if v6.withUnsafeMutableBytes({ inet_pton(AF_INET6, String(text), $0.baseAddress) }) == 1 {
            let mapped = v6[0..<10].allSatisfy { $0 == 0 } && v6[10] == 0xff && v6[11] == 0xff
            bytes = mapped ? Array(v6[12..<16]) : v6
        } else {
            return nil
        }
    }

    var isLoopback: Bool {
        bytes.count == 4 ? bytes[0] == 127 : bytes == [UInt8](repeating: 0, count: 15) + [1]
    }

    var limitKey: String {
        guard bytes.count == 16 else { return bytes.map(String.init).joined(separator: ".") }
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }
}
