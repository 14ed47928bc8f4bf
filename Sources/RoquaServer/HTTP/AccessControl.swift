import Foundation
import Hummingbird
import RoquaServeInput

/// With a token, every route but the sign-in form needs it: `Authorization: Bearer TOKEN`, or
/// the cookie of a session the sign-in form opened (`PageSessions`). Without one (loopback only),
/// everything is open.
struct AccessControlMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: String?
    let sessions: PageSessions

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if AccessControl.admits(path: request.uri.path, headers: request.headers, token: token, sessions: sessions) {
            return try await next(request, context)
        }
        if request.method == .get, request.uri.path == "/" {
            return Response(status: .seeOther, headers: [.location: "/login"])
        }
        throw AccessControl.unauthorised
    }
}

/// The middleware's rule, which `ReverseFastPath` applies too.
enum AccessControl {
    static var openPaths: Set<String> { ["/login", "/logout", "/app.css"] }

    /// Whether a request to `path` may go on: no token, an open path, a live ingestion route
    /// (those check a device's own token instead, `IngestRoutes`), the bearer header, or the
    /// cookie of an open session.
    static func admits(path: String, headers: HTTPFields, token: String?, sessions: PageSessions) -> Bool {
        guard let token, !openPaths.contains(path), !path.hasPrefix(IngestRoutes.prefix) else { return true }
        if BearerToken.authorises(headers[.authorization], token: token) { return true }
        if let cookie = Cookies(from: headers[values: .cookie])[PageSessions.cookieName], sessions.isOpen(cookie.value) { return true }
        return false
    }

    static var unauthorised: APIError {
        APIError(
            .unauthorized, "this server needs its token: send 'Authorization: Bearer TOKEN' or sign in at /login",
            headers: [.wwwAuthenticate: "Bearer"])
    }
}

/// The token check shared by the middleware, the login form and `ReverseFastPath`.
enum BearerToken {
    /// Whether an `Authorization` header's value is `Bearer TOKEN`.
    static func authorises(_ header: String?, token: String) -> Bool {
        guard let header, header.hasPrefix("Bearer ") else { return false }
        return same(String(header.dropFirst(7)), token)
    }

    /// Compares in time that depends on the length only, not on where the texts differ.
    static func same(_ given: String, _ token: String) -> Bool { OriginPolicy.same(given, token) }
}

/// `GET /login` shows the form; `POST /login` with `token=…` opens a session (`PageSessions`)
/// and goes to the page; `POST /logout` ends it. Failed sign-ins are limited (`LoginLimits`).
enum LoginRoutes {
    static func add(
        to router: Router<ServeRequestContext>, token: String?, assets: StaticAssets, sessions: PageSessions,
        limits: LoginLimits
    ) {
        router.get("/login") { request, _ in
            let language = StaticAssets.PageLanguage.preferred(request.headers[.acceptLanguage])
            var response = assets.response(for: language == .tr ? "login.tr.html" : "login.html") ?? Response(status: .notFound)
            response.headers[.vary] = "Accept-Language"
            return response
        }
        router.post("/login") { request, context -> Response in
            guard let token else { return Response(status: .seeOther, headers: [.location: "/"]) }
            guard limits.mayTry(context.clientAddress) else {
                throw APIError(.tooManyRequests, "too many failed sign-ins; wait a minute", headers: [.retryAfter: "60"])
            }
            var request = request
            let body = try await request.collectBody(upTo: 4096)
            let form = try QueryParameters(String(buffer: body))
            guard let given = form["token"], BearerToken.same(given, token) else {
                limits.failed(context.clientAddress)
                return Response(status: .seeOther, headers: [.location: "/login?failed=1"])
            }
            let cookie = PageSessions.cookie(sessions.open(), secure: Self.overHTTPS(request))
            return Response(status: .seeOther, headers: [.location: "/", .setCookie: cookie.description])
        }
        router.post("/logout") { request, _ -> Response in
            if let cookie = request.cookies[PageSessions.cookieName] { sessions.close(cookie.value) }
            let expired = PageSessions.expired(secure: Self.overHTTPS(request))
            return Response(status: .seeOther, headers: [.location: token == nil ? "/" : "/login", .setCookie: expired.description])
        }
    }

    /// Whether the browser posted from an https page (behind a TLS proxy): the form's `Origin`,
    /// which `OriginGuardMiddleware` has already checked is this server's.
    static func overHTTPS(_ request: Request) -> Bool {
        (request.headers[.origin] ?? request.headers[.referer].flatMap(OriginPolicy.origin(ofURL:)))?.lowercased().hasPrefix("https://")
            ?? false
    }
}
