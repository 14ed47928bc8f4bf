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
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        context.logger.log(level: level, "request", metadata: [
            "method": "\(request.method.rawValue)",
            "route": "\(context.endpointPath ?? "?")",
            "status": "\(response.status.code)",
            "ms": "\(String(format: "%.1f", milliseconds))",
        ])
        return response
    }
}
