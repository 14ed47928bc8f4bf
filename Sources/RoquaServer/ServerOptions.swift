import Foundation
import Logging
import RoquaBoundaries
import RoquaHTTPGuard
import RoquaIO
import RoquaServeInput

/// What `roqua serve` was asked to do, checked before anything is opened.
public struct ServerOptions: Sendable {
    /// Where to listen: `127.0.0.1:8080` by default; port 0 picks a free port.
    public var listen: ListenAddress
    public var boundaries: String
    public var store: String
    /// Required for any address other than loopback (unless `insecurePublic`); sent as
    /// `Authorization: Bearer` or the login cookie.
    public var token: String?
    /// Names besides the listen address and loopback that `Host` may carry (a reverse proxy's).
    public var allowHosts: [String]
    /// Listen beyond loopback without a token: anyone who can reach the port reads everything.
    public var insecurePublic: Bool
    /// Largest track or restore upload, in bytes.
    public var maxUploadBytes: Int
    /// How many days back a live fix may have been taken (`LiveWindow`).
    public var liveMaxAgeDays: Int
    /// Achievement definitions (nil: the built-in ones).
    public var achievements: String?
    /// Leaflet's folder (`leaflet.js`, `leaflet.css`, `images/`); nil: looked up (see `StaticAssets`).
    public var leaflet: String?
    /// swift-log level of the server's log on stderr (coordinates never appear at info or above).
    public var logLevel: String
    /// Whether `GET /reverse` is answered by `ReverseFastPath` before Hummingbird's router (tests
    /// turn it off to compare the two ways).
    package var reverseFastPath = true
    /// Slow-client limits of every connection (tests shorten them).
    package var connectionLimits = ConnectionLimits()

    public static let defaultMaxUploadMegabytes = 200
    public static let defaultLiveMaxAgeDays = LiveWindow.defaultMaxAgeDays

    /// - Throws: `ServerError.tokenRequired` when a non-loopback address has no token (and no
    ///   `insecurePublic`), `.badOption` for an empty or too short token, an upload limit outside
    ///   1…10,000 MB, a live window outside 1…366 days and an `--allow-host` that is not a host name.
    public init(
        listen: ListenAddress = ListenAddress(host: "127.0.0.1", port: 8080), boundaries: String, store: String,
        token: String? = nil, maxUploadMegabytes: Int = defaultMaxUploadMegabytes, achievements: String? = nil,
        leaflet: String? = nil, logLevel: String = "info", allowHosts: [String] = [], insecurePublic: Bool = false,
        liveMaxAgeDays: Int = defaultLiveMaxAgeDays
    ) throws {
        guard (1...10_000).contains(maxUploadMegabytes) else {
            throw ServerError.badOption("--max-upload must be between 1 and 10000 MB (got \(maxUploadMegabytes))")
        }
        guard (1...366).contains(liveMaxAgeDays) else {
            throw ServerError.badOption("--live-max-age must be between 1 and 366 days (got \(liveMaxAgeDays))")
        }
        self.liveMaxAgeDays = liveMaxAgeDays
        if let token {
            // A short token on a network is a guessable password.
            // Characters a cookie value and a Bearer header both carry as they are.
            let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/=")
            guard (16...512).contains(token.count), token.allSatisfy(allowed.contains) else {
                throw ServerError.badOption("--token must be 16 to 512 characters of A-Z a-z 0-9 - . _ ~ + / =")
            }
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ServerError.badOption(
                "--log-level must be one of: "
                    + Logger.Level.allCases.map(\.rawValue).joined(separator: ", ") + " (not \(Echo.quoted(logLevel)))")
        }
        guard listen.isLoopback || token != nil || insecurePublic else { throw ServerError.tokenRequired(listen.description) }
        for name in allowHosts where AllowedHost(parsing: name) == nil {
            throw ServerError.badOption(
                "--allow-host expects a host name such as roqua.example.org, or the origin a proxy serves "
                    + "the page at such as https://roqua.example.org (not \(Echo.quoted(name)))")
        }
        self.allowHosts = allowHosts
        self.insecurePublic = insecurePublic
        self.listen = listen
        self.boundaries = boundaries
        self.store = store
        self.token = token
        maxUploadBytes = maxUploadMegabytes << 20
        self.achievements = achievements
        self.leaflet = leaflet
        self.logLevel = logLevel
    }
}

/// `HOST:PORT`, `[IPv6]:PORT` or a bare `PORT` (loopback).
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// - Throws: `ServerError.badOption` naming the text when it is not an address with a port 0…65535.
    public init(parsing text: String) throws {
        let bad = ServerError.badOption("--listen expects HOST:PORT (e.g. 127.0.0.1:8080), not \(Echo.quoted(text))")
        var host = "127.0.0.1", portText = Substring(text)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { throw bad }
            host = String(text[text.index(after: text.startIndex)..<close])
            portText = text[text.index(close, offsetBy: 2)...]
        } else if let colon = text.lastIndex(of: ":") {
            guard text.firstIndex(of: ":") == colon else { throw bad }  // a bare IPv6 address needs brackets
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, host.count <= 253, let port = Int(portText), (0...65535).contains(port) else { throw bad }
        self.init(host: host, port: port)
    }

    /// Loopback only: `localhost`, 127.0.0.0/8, `::1`.
    public var isLoopback: Bool {
        if host == "localhost" || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// Why the server cannot start.
public enum ServerError: Error, CustomStringConvertible, Equatable, Sendable {
    case tokenRequired(String)
    case badOption(String)
    case leafletMissing(searched: [String])
    case cannotListen(String, reason: String)

    public var description: String {
        switch self {
        case let .tokenRequired(address):
            "\(address) is not a loopback address: anyone on the network could read your visited places; "
                + "pass --token TOKEN (at least 16 characters) to require it, or listen on 127.0.0.1 "
                + "(--insecure-public serves it to the network without a token)"
        case let .badOption(message): message
        case let .leafletMissing(searched):
            "Leaflet not found (looked in \(searched.joined(separator: ", "))); install Debian's libjs-leaflet "
                + "(apt-get install libjs-leaflet) or pass --leaflet DIR"
        case let .cannotListen(address, reason): "cannot listen on \(address): \(reason)"
        }
    }
}
