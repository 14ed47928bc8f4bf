import Foundation
import RoquaIO
import Synchronization

/// Who may talk to the server through a browser. Every request's `Host` must name this server
/// (a DNS-rebinding page reaches 127.0.0.1 under its own name, which is refused), and every
/// write must come from a page of this server: an `Origin` (or `Referer`) of the same origin,
/// plus the per-launch token that only the server's own page can read.
package final class OriginPolicy: Sendable {
    /// The header the page sends the per-launch token in (a custom header: another site cannot
    /// send it without a CORS preflight, which this server never grants).
    package static let tokenHeader = "X-Roqua-CSRF"

    /// Random, per launch; embedded in the server's own pages only.
    package let csrfToken: String
    private let listenHost: String
    /// `--allow-host` names, accepted in `Host` with any port.
    private let allowedNames: Set<String>
    /// `--allow-host SCHEME://NAME[:PORT]`: the only origin a browser may name for that name.
    private let pinnedOrigins: [String: AllowedHost.Origin]
    private let anyAddress: Bool
    /// The port actually bound (known once listening; port 0 asks for any free one).
    private let port: Atomic<Int>
    /// `Host` values accepted as they are, byte for byte (`127.0.0.1:8080`, `localhost:8080`…):
    /// what browsers and clients send, answered without parsing (the `/reverse` fast path asks
    /// for every request).
    private let exact: Mutex<Set<String>>

    /// - Parameters:
    ///   - listenHost: the `--listen` host; its name is accepted in `Host` with the bound port.
    ///   - allowedNames: `--allow-host` entries (a reverse proxy's name, `AllowedHost`), accepted
    ///     in `Host` with any port; entries that fail to parse are ignored (`ServerOptions` refuses them).
    package init(listenHost: String, port: Int, allowedNames: [String], csrfToken: String = OriginPolicy.randomToken()) {
        self.listenHost = Self.normalised(listenHost)
        let allowed = allowedNames.compactMap(AllowedHost.init(parsing:))
        self.allowedNames = Set(allowed.map(\.name))
        pinnedOrigins = Dictionary(
            allowed.compactMap { entry in entry.origin.map { (entry.name, $0) } }, uniquingKeysWith: { first, _ in first })
        anyAddress = listenHost == "0.0.0.0" || listenHost == "::"
        self.port = Atomic(port)
        exact = Mutex(Self.exactHosts(listenHost: listenHost, port: port))
        self.csrfToken = csrfToken
    }

    /// Called once the socket is bound.
    package func bound(port: Int) {
        self.port.store(port, ordering: .releasing)
        exact.withLock { $0 = Self.exactHosts(listenHost: listenHost, port: port) }
    }

    private static func exactHosts(listenHost: String, port: Int) -> Set<String> {
        let listen = listenHost.contains(":") ? "[\(listenHost)]" : listenHost
        return Set(["127.0.0.1", "localhost", "[::1]", listen].map { "\($0):\(port)" })
    }

    /// 32 random bytes, URL-safe base64.
    package static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// Whether the `Host` header (HTTP/1.1's authority) names this server: `localhost`, a loopback
    /// address or the listen address with the bound port, an IP address when listening on every
    /// interface (rebinding needs a name: a page at an IP address *is* that address's origin), or
    /// an `--allow-host` name with any port. nil (no `Host`) is refused.
    package func allowsHost(_ authority: String?) -> Bool {
        guard let authority else { return false }
        if exact.withLock({ $0.contains(authority) }) { return true }
        guard let (name, port) = Self.split(authority, defaultPort: 80) else { return false }
        if allowedNames.contains(name) { return true }
        guard port == self.port.load(ordering: .acquiring) else { return false }
        if name == "localhost" || name == listenHost || Self.isLoopbackAddress(name) { return true }
        return anyAddress && Self.isAddress(name)
    }

    /// Why a write is refused, or nil when it comes from a page of this server: `Origin`
    /// (or, without one, `Referer`) of this server's origin, and the per-launch token.
    package func refusesWrite(origin: String?, referer: String?, authority: String?, token: String?) -> String? {
        if let reason = refusesOrigin(origin: origin, referer: referer, authority: authority, required: true) { return reason }
        guard let token, Self.same(token, csrfToken) else {
            return "a write needs the page's \(Self.tokenHeader) header (this server's page sends it; other sites cannot)"
        }
        return nil
    }

    /// Why a request naming another site as its origin is refused, or nil. With `required`, a
    /// request that names no origin at all is refused too (browsers name one on every write).
    package func refusesOrigin(origin: String?, referer: String?, authority: String?, required: Bool) -> String? {
        let claimed = origin ?? referer.flatMap(Self.origin(ofURL:))
        guard let claimed else {
            return required ? "a write needs an Origin or Referer header naming this server (none was sent)" : nil
        }
        let refusal = "cross-site request refused: origin \(Echo.quoted(String(claimed.prefix(80)))) is not this server"
        guard let (scheme, rest) = Self.splitScheme(claimed), scheme == "http" || scheme == "https",
            let (name, port) = Self.split(rest, defaultPort: AllowedHost.defaultPort(scheme))
        else { return refusal }
        // The origin names the host the request was sent to, port included: a page on another
        // port of an allowed name (`http://roqua.example.org:9999`) is another site.
        guard let authority, let (hostName, hostPort) = Self.split(authority, defaultPort: AllowedHost.defaultPort(scheme)),
            hostName == name, hostPort == port
        else { return refusal }
        // A `Host` carries no scheme: where the proxy's origin was given in full, it is compared too.
        if let pinned = pinnedOrigins[name], pinned != AllowedHost.Origin(scheme: scheme, port: port) { return refusal }
        return nil
    }

    /// Why a request to a live ingestion route is refused, GET included: phones send no `Origin`
    /// and no `Sec-Fetch-Site`, a browser does (an `<img>` of a leaked URL on another site sends
    /// `Sec-Fetch-Site: cross-site` and a foreign `Referer`), and such a request is never a phone's.
    package func refusesIngestion(origin: String?, referer: String?, fetchSite: String?, authority: String?) -> String? {
        refusesCrossSite(
            origin: origin, referer: referer, fetchSite: fetchSite, authority: authority,
            because: "a phone's position is never posted by a page of another site")
    }

    /// Why a request that a page of another site made (by `Sec-Fetch-Site`, `Origin` or
    /// `Referer`) is refused, `because` saying what it must not reach; nil when none says so.
    package func refusesCrossSite(origin: String?, referer: String?, fetchSite: String?, authority: String?, because: String) -> String? {
        if let fetchSite, fetchSite != "same-origin", fetchSite != "none" {
            return "cross-site request refused: \(because) (Sec-Fetch-Site: \(Echo.quoted(String(fetchSite.prefix(20)))))"
        }
        return refusesOrigin(origin: origin, referer: referer, authority: authority, required: false)
    }

    /// `scheme://authority` of a URL (a `Referer`), nil when it has none.
    package static func origin(ofURL url: String) -> String? {
        guard let (scheme, rest) = splitScheme(url) else { return nil }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return authority.isEmpty ? nil : "\(scheme)://\(authority)"
    }

    private static func splitScheme(_ text: String) -> (String, String)? {
        guard let range = text.range(of: "://") else { return nil }
        return (text[..<range.lowerBound].lowercased(), String(text[range.upperBound...]))
    }

    /// `name[:port]` or `[v6][:port]` → the lower-cased name (brackets off) and the port. nil for
    /// anything else: user info, a path, an empty name, control or non-ASCII characters, a port
    /// that is not 1…65535.
    package static func split(_ authority: String, defaultPort: Int) -> (String, Int)? {
        var name = Substring(authority), portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            name = authority[authority.index(after: authority.startIndex)..<close]
            let rest = authority[authority.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                portText = rest.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            name = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        // Visible ASCII only: a NUL would end the name where inet_pton reads it (`[::1\0x]` as `::1`).
        guard !name.isEmpty, name.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) && !"@/?#\\".unicodeScalars.contains($0) })
        else { return nil }
        var port = defaultPort
        if let portText {
            guard portText.allSatisfy({ ("0"..."9").contains($0) }), let value = Int(portText), (1...65535).contains(value) else {
                return nil
            }
            port = value
        }
        return (normalised(String(name)), port)
    }

    static func normalised(_ name: String) -> String {
        name.hasPrefix("[") && name.hasSuffix("]") ? String(name.dropFirst().dropLast()).lowercased() : name.lowercased()
    }

    /// 127.0.0.0/8 or ::1.
    static func isLoopbackAddress(_ name: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, name, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        return inet_pton(AF_INET6, name, &v6) == 1 && withUnsafeBytes(of: &v6) { $0.dropLast().allSatisfy { $0 == 0 } && $0.last == 1 }
    }

    /// Compares in time that depends on the length only, not on where the texts differ.
    package static func same(_ given: String, _ expected: String) -> Bool {
        let a = Array(given.utf8), b = Array(expected.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }

    /// An IPv4 dotted quad or an IPv6 address (not a name a DNS server could answer).
    package static func isAddress(_ name: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, name, &v4) == 1 || inet_pton(AF_INET6, name, &v6) == 1
    }
}

/// One `--allow-host` entry: a name (`roqua.example.org`, any scheme and port), or the full
/// origin a reverse proxy serves the page at (`https://roqua.example.org`), which then is the
/// only origin accepted for that name.
package struct AllowedHost: Sendable, Equatable {
    package struct Origin: Sendable, Equatable {
        package var scheme: String
        package var port: Int
    }

    package var name: String
    package var origin: Origin?

    /// nil unless `text` is a host name or address, or `http(s)://HOST[:PORT]` with nothing after it.
    package init?(parsing text: String) {
        var rest = text
        if let range = text.range(of: "://") {
            let scheme = text[..<range.lowerBound].lowercased()
            guard scheme == "http" || scheme == "https" else { return nil }
            rest = String(text[range.upperBound...])
            guard let (name, port) = OriginPolicy.split(rest, defaultPort: Self.defaultPort(scheme)) else { return nil }
            (self.name, origin) = (name, Origin(scheme: scheme, port: port))
        } else if OriginPolicy.isAddress(text) {
            (name, origin) = (text.lowercased(), nil)  // a bare IPv6 address
        } else {
            // A port belongs to an origin (`https://NAME:PORT`); a bare name is accepted with any.
            guard !text.contains(":") || text.hasPrefix("["), let (name, _) = OriginPolicy.split(text, defaultPort: 80) else { return nil }
            (self.name, origin) = (name, nil)
        }
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-.:")
        guard (1...253).contains(name.count), name.allSatisfy(allowed.contains), !name.hasPrefix("."), !name.hasPrefix("-") else {
            return nil
        }
    }

    package static func defaultPort(_ scheme: String) -> Int { scheme == "https" ? 443 : 80 }
}
