import Foundation
import Hummingbird
import RoquaServeInput

/// With a token, every route but the login form needs it: `Authorization: Bearer TOKEN`, or the
/// HttpOnly cookie the login form sets. Without one (loopback only), everything is open.
struct AccessControlMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: String?
    static var cookieName: String { "roqua_token" }
    static var openPaths: Set<String> { ["/login", "/app.css"] }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The live ingestion routes check a device's own token instead (`IngestRoutes`).
        guard let token, !Self.openPaths.contains(request.uri.path), !request.uri.path.hasPrefix(IngestRoutes.prefix) else {
            return try await next(request, context)
        }
        if BearerToken.authorises(request.headers[.authorization], token: token) {
            return try await next(request, context)
        }
        if let cookie = request.cookies[Self.cookieName], BearerToken.same(cookie.value, token) {
            return try await next(request, context)
        }
        if request.method == .get, request.uri.path == "/" {
            return Response(status: .seeOther, headers: [.location: "/login"])
        }
        throw APIError(.unauthorized, "this server needs its token: send 'Authorization: Bearer TOKEN' or sign in at /login",
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

/// `GET /login` shows the form; `POST /login` with `token=…` sets the cookie and goes to the page.
enum LoginRoutes {
    static func add<Context: RequestContext>(to router: Router<Context>, token: String?, assets: StaticAssets) {
        router.get("/login") { request, _ in
            let language = StaticAssets.PageLanguage.preferred(request.headers[.acceptLanguage])
            var response = assets.response(for: language == .tr ? "login.tr.html" : "login.html") ?? Response(status: .notFound)
            response.headers[.vary] = "Accept-Language"
            return response
        }
        router.post("/login") { request, context -> Response in
            guard let token else { return Response(status: .seeOther, headers: [.location: "/"]) }
            var request = request
            let body = try await request.collectBody(upTo: 4096)
            let form = try QueryParameters(String(buffer: body))
            guard let given = form["token"], BearerToken.same(given, token) else {
                return Response(status: .seeOther, headers: [.location: "/login?failed=1"])
            }
            let cookie = Cookie(name: AccessControlMiddleware<Context>.cookieName, value: token, path: "/", httpOnly: true,
                                sameSite: .strict)
            return Response(status: .seeOther, headers: [.location: "/", .setCookie: cookie.description])
        }
    }
}
