import Foundation
import HTTPTypes
import Hummingbird
import Logging
import RoquaServeInput

/// Every response: a Content-Security-Policy that lets the page load and fetch from its own
/// origin only (no CDN, no tiles, no inline script), no MIME sniffing, no framing (the page's
/// own `<meta name="referrer">` sends one to its own origin only). `ReverseFastPath` writes the same.
enum SecurityHeaders {
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    static let noSniff = "nosniff"
    /// Unless the route set its own `Cache-Control`.
    static let noStore = "no-store"

    /// Adds the headers to a response's (`Cache-Control` only when the route set none).
    static func add(to fields: inout HTTPFields) {
        fields[fields: .contentSecurityPolicy] = Self.prepared.policy
        fields[fields: .xContentTypeOptions] = Self.prepared.noSniff
        if fields[.cacheControl] == nil { fields[fields: .cacheControl] = Self.prepared.noStore }
    }

    /// Made once: a field checks its value's characters when it is made (the policy is 200 bytes).
    private static let prepared = (
        policy: [HTTPField(name: .contentSecurityPolicy, value: contentSecurityPolicy)],
        noSniff: [HTTPField(name: .xContentTypeOptions, value: noSniff)],
        noStore: [HTTPField(name: .cacheControl, value: noStore)]
    )
}

/// Adds `SecurityHeaders` to every response.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        SecurityHeaders.add(to: &response.headers)
        return response
    }
}

/// Turns every error into a JSON answer (`APIError`'s shape): Roqua's own,
/// Hummingbird's (404, 413, …) and unexpected ones (500, logged by type only — an error's text
/// may hold a coordinate, which is personal data).
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return APIError.reply(for: error, path: request.uri.path, logger: logger).response
        }
    }
}
