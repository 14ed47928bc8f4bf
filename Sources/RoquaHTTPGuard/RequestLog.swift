import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// One log line per request, for both servers (`roqua serve`, the tour-group server): the
/// method, the route's pattern (`/api/units/{code}/children`, `/v1/groups/:id`; never the raw path
/// or query, which can hold coordinates or invite codes), the status and the time taken, at
/// `level` on the request's logger.
public struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    public let level: Logger.Level

    public init(level: Logger.Level) {
        self.level = level
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        RequestLog.record(
            context.logger, level: level, method: request.method, route: context.endpointPath ?? "?",
            status: response.status.code, since: start)
        return response
    }
}

/// The log line itself, for a server that answers some requests outside the router too
/// (`roqua serve`'s `GET /reverse` on the event loop): the same line either way.
public enum RequestLog {
    /// Logs one answered request: method, route pattern, status, milliseconds since `start`.
    public static func record(
        _ logger: Logger, level: Logger.Level, method: HTTPRequest.Method, route: String, status: Int,
        since start: ContinuousClock.Instant
    ) {
        // Checked first: a server at `info` reads no clock for a line it drops.
        guard logger.logLevel <= level else { return }
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        logger.log(
            level: level, "request",
            metadata: [
                "method": "\(method.rawValue)",
                "route": "\(route)",
                "status": "\(status)",
                "ms": "\(String(format: "%.1f", milliseconds))",
            ])
    }
}
