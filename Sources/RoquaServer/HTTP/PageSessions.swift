import Foundation
import Hummingbird
import NIOCore
import RoquaIO
import RoquaServeInput
import Synchronization

/// The browser's sign-ins (`POST /login` with the server's token): each a random session id in
/// an HttpOnly cookie, so the token itself never leaves the sign-in request and a stolen cookie
/// ends with its session (`POST /logout`, the expiry, or a restart of the server). Ids are kept
/// only as their SHA-256.
final class PageSessions: Sendable {
    static let cookieName = "roqua_session"
    /// How long a sign-in lasts.
    static let lifetime: TimeInterval = 7 * 86_400
    /// Sessions kept at most; the oldest is ended to make room.
    static let maximum = 1_000

    private let sessions = Mutex([String: Date]())

    /// A new session's id (32 random bytes, URL-safe base64).
    func open(now: Date = Date()) -> String {
        let id = OriginPolicy.randomToken()
        sessions.withLock { sessions in
            sessions = sessions.filter { $0.value > now }
            if sessions.count >= Self.maximum, let oldest = sessions.min(by: { $0.value < $1.value }) {
                sessions[oldest.key] = nil
            }
            sessions[Self.key(id)] = now.addingTimeInterval(Self.lifetime)
        }
        return id
    }

    func isOpen(_ id: String, now: Date = Date()) -> Bool {
        guard id.utf8.count <= 128 else { return false }
        return sessions.withLock { ($0[Self.key(id)] ?? .distantPast) > now }
    }

    func close(_ id: String) {
        guard id.utf8.count <= 128 else { return }
        _ = sessions.withLock { $0.removeValue(forKey: Self.key(id)) }
    }

    private static func key(_ id: String) -> String { SHA256.hex(of: Array(id.utf8)) }

    /// The cookie of session `id`: `Secure` when the page was signed in to over https (a later
    /// plain-http visit to the same name then does not send it), SameSite=Strict, HttpOnly.
    static func cookie(_ id: String, secure: Bool) -> Cookie {
        Cookie(name: cookieName, value: id, maxAge: Int(lifetime), path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }

    /// The cookie that ends one in the browser.
    static func expired(secure: Bool) -> Cookie {
        Cookie(name: cookieName, value: "", maxAge: 0, path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }
}

/// Failed sign-ins: per client address a bucket of `perAddressBurst` refilled one every
/// `perAddressInterval`, and server-wide `serverBurst` refilled one every `serverInterval`
/// (behind a proxy every client has the proxy's address). Checked before the token is compared,
/// so a guess over the limit learns nothing, right or wrong.
final class LoginLimits: Sendable {
    static let perAddressBurst = 10.0
    static let perAddressInterval: TimeInterval = 6
    static let serverBurst = 60.0
    static let serverInterval: TimeInterval = 1
    /// Addresses remembered at most (a flood of addresses cannot grow this without bound).
    static let maximumAddresses = 10_000

    private struct Bucket {
        var tokens: Double
        var at: Date
    }

    private let state = Mutex((addresses: [String: Bucket](), server: Bucket(tokens: LoginLimits.serverBurst, at: .distantPast)))

    /// Whether `address` may try once more now.
    func mayTry(_ address: String, now: Date = Date()) -> Bool {
        state.withLock { state in
            let server = Self.refilled(state.server, burst: Self.serverBurst, interval: Self.serverInterval, now: now)
            let own = Self.refilled(
                state.addresses[address] ?? Bucket(tokens: Self.perAddressBurst, at: now),
                burst: Self.perAddressBurst, interval: Self.perAddressInterval, now: now)
            return server.tokens >= 1 && own.tokens >= 1
        }
    }

    /// Counts a failed try of `address`.
    func failed(_ address: String, now: Date = Date()) {
        state.withLock { state in
            state.server = Self.refilled(state.server, burst: Self.serverBurst, interval: Self.serverInterval, now: now)
            state.server.tokens -= 1
            if state.addresses[address] == nil, state.addresses.count >= Self.maximumAddresses { state.addresses.removeAll() }
            var own = Self.refilled(
                state.addresses[address] ?? Bucket(tokens: Self.perAddressBurst, at: now),
                burst: Self.perAddressBurst, interval: Self.perAddressInterval, now: now)
            own.tokens -= 1
            state.addresses[address] = own
        }
    }

    private static func refilled(_ bucket: Bucket, burst: Double, interval: TimeInterval, now: Date) -> Bucket {
        let elapsed = max(0, now.timeIntervalSince(bucket.at))
        return Bucket(tokens: min(burst, bucket.tokens + elapsed / interval), at: now)
    }
}

/// Hummingbird's basic context plus the client's address (the sign-in limits count by it).
struct ServeRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The address without the port; "unknown" when the channel has none.
    var clientAddress: String { remoteAddress?.ipAddress ?? "unknown" }
}
