import HTTPTypes
import Hummingbird
import RoquaIO
import RoquaServeInput

/// `OriginPolicy` on every route: a foreign `Host` gets 421 (GET included: exports, stats,
/// `/reverse`), a write from another site or without the page's token 403, before any body is
/// read. With `--token`, a request authorised by its `Authorization: Bearer` header is no
/// browser's ambient credential and needs no page token, but a foreign `Origin` is still refused.
struct OriginGuardMiddleware<Context: RequestContext>: RouterMiddleware {
    let policy: OriginPolicy
    let token: String?
    /// Writes that change nothing and read nothing of the user's (`POST /reverse/batch`): a foreign
    /// `Origin` is refused, but a client that is no browser (curl) needs no page token.
    static var readOnlyPosts: Set<String> { ["/reverse/batch"] }
    /// The sign-in and sign-out forms post without script: same origin required, no page token.
    static var formPosts: Set<String> { ["/login", "/logout"] }
    /// Reads of the history itself (where the user was on a day, the map of every fix): a page of
    /// another site may not even ask, as it may not post a phone's position.
    static func isHistoryRead(_ path: String) -> Bool {
        path == "/api/timeline" || path.hasPrefix("/api/timeline/") || path.hasPrefix(MapTileRoutes.prefix)
            || path.hasPrefix(PhotoRoutes.prefix)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let authority = request.head.authority
        if let refusal = OriginGuard.hostRefusal(policy, authority: authority) { throw refusal }
        let origin = request.headers[.origin], referer = request.headers[.referer]
        let path = request.uri.path
        // Phones post GET too (OsmAnd, GPSLogger): with a leaked URL any page could, through an `<img>`.
        if path.hasPrefix(IngestRoutes.prefix) {
            if let reason = policy.refusesIngestion(
                origin: origin, referer: referer, fetchSite: request.headers[OriginGuard.fetchSite],
                authority: authority)
            {
                throw APIError(.forbidden, reason)
            }
            return try await next(request, context)
        }
        if Self.isHistoryRead(path),
            let reason = policy.refusesCrossSite(
                origin: origin, referer: referer, fetchSite: request.headers[OriginGuard.fetchSite], authority: authority,
                because: "where you were is never read by a page of another site")
        {
            throw APIError(.forbidden, reason)
        }
        guard ![.get, .head, .options].contains(request.method) else { return try await next(request, context) }
        let bearer = token.map { BearerToken.authorises(request.headers[.authorization], token: $0) } ?? false
        let reason: String?
        // A script's bearer header is no browser's ambient credential: no page token, but a page
        // of another site naming itself as the origin is still refused.
        if bearer || Self.readOnlyPosts.contains(path) {
            reason = policy.refusesOrigin(origin: origin, referer: referer, authority: authority, required: false)
        } else if Self.formPosts.contains(path) {
            reason = policy.refusesOrigin(origin: origin, referer: referer, authority: authority, required: true)
        } else {
            reason = policy.refusesWrite(
                origin: origin, referer: referer, authority: authority,
                token: request.headers[OriginGuard.tokenField])
        }
        if let reason { throw APIError(.forbidden, reason) }
        return try await next(request, context)
    }
}

/// What the middleware keeps once for every request (a generic type has no stored statics), and
/// its `Host` check, which `ReverseFastPath` makes too.
enum OriginGuard {
    /// The 421 for a request to a `Host` this server does not answer for (DNS rebinding), or nil.
    static func hostRefusal(_ policy: OriginPolicy, authority: String?) -> APIError? {
        guard !policy.allowsHost(authority) else { return nil }
        return APIError(
            .misdirectedRequest,
            "this server does not answer for host "
                + Echo.quoted(String((authority ?? "(none)").prefix(80)))
                + "; open it as http://localhost:PORT/ or http://127.0.0.1:PORT/, or start it with --allow-host NAME")
    }

    static let tokenField = HTTPField.Name(OriginPolicy.tokenHeader) ?? .authorization  // a valid name: never the fallback
    static let fetchSite = HTTPField.Name("Sec-Fetch-Site") ?? .origin  // likewise
}
