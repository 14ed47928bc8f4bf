import Foundation
import HTTPTypes
import Logging

/// The sign-in routes' abuse limits, counted before a body is read: per client address (IPv6
/// per /64) and for the whole server, for code requests (each may send an SMS) and for code
/// checks (each is a guess and a write).
struct SignInLimits: Sendable {
    enum Route: String, Sendable {
        case codeRequest = "sign-in code requests"
        case codeCheck = "sign-in code checks"
    }

    let settings: ChatSettings
    let clock: any ChatClock
    /// Per address: bounded, the oldest windows forgotten first when full.
    let addresses = RequestRateLimiter()
    /// The server's own few counters, never evicted: a stranger with many addresses must not be
    /// able to push the server's hour of SMS out of memory and start it again.
    let server = RequestRateLimiter(capacity: .max)

    /// Counts one request on `route` and returns its client (whose sends of codes are counted per number).
    /// - Throws: `untrustedProxy` (503) for a request forwarded by an untrusted proxy on this
    ///   machine, logged at most once a minute with what to set; `rateLimited` (429) with the
    ///   seconds to wait.
    func admit(_ route: Route, peer: String, headers: HTTPFields, logger: Logger) async throws -> ClientAddress {
        let now = clock.now()
        let client: ClientAddress
        do {
            client = try ClientAddress.resolve(peer: peer, headers: headers, trustedProxies: settings.trustedProxies)
        } catch let error as ChatServerError {
            if await server.admit("untrusted proxy logged", limit: 1, now: now) == nil {
                logger.error(
                    "sign-in refused: requests from \(peer) carry X-Forwarded-For (or Forwarded, X-Real-IP) but \(peer) is no trusted proxy, so every client would count as this machine; start roqua-chat-server with --trusted-proxy \(peer)"
                )
            }
            throw error
        }
        let (perAddress, perMinute, perHour): (Int, Int, Int?) =
            switch route {
            case .codeRequest: (settings.codeRequestsPerAddress, settings.codeRequestsPerServer, settings.codeRequestsPerHour)
            case .codeCheck: (settings.codeChecksPerAddress, settings.codeChecksPerServer, nil)
            }
        if settings.limitLoopback || !client.isLocal,
            let wait = await addresses.admit("\(route.rawValue) \(client.key)", limit: perAddress, now: now)
        {
            throw ChatServerError.rateLimited(what: "\(route.rawValue) from this address", retryAfterSeconds: wait)
        }
        if let wait = await server.admit(route.rawValue, limit: perMinute, now: now) {
            throw ChatServerError.rateLimited(what: "\(route.rawValue) on this server", retryAfterSeconds: wait)
        }
        if let perHour, let wait = await server.admit("\(route.rawValue) hourly", limit: perHour, per: 3600, now: now) {
            throw ChatServerError.rateLimited(what: "\(route.rawValue) on this server this hour", retryAfterSeconds: wait)
        }
        return client
    }
}
