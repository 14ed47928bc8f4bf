import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// Hummingbird's HTTP/1 channel with `ConnectionGuard` before its connection-state handler, so
/// every connection's head deadline, minimum body rate and request deadline are kept.
public struct GuardedHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    public typealias Value = HTTP1Channel.Value

    let base: HTTP1Channel
    let stopping: ServerStopping
    let limits: ConnectionLimits

    public var responder: HTTPChannelHandler.Responder { base.responder }

    public func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let stopping = self.stopping, limits = self.limits
        // `base.setup` completes at once on the channel's event loop, so this runs before any read.
        return base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let connectionState = try pipeline.handler(type: HTTPConnectionStateHandler.self)
            try pipeline.addHandler(ConnectionGuard(limits: limits, stopping: stopping), position: .before(connectionState))
            return value
        }
    }

    public func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// `.http1(configuration:)` with every connection's time limits kept by `ConnectionGuard`.
    public static func guardedHTTP1(
        configuration: HTTP1Channel.Configuration, stopping: ServerStopping,
        limits: ConnectionLimits
    ) -> HTTPServerBuilder {
        .init { responder in
            GuardedHTTP1Channel(base: HTTP1Channel(responder: responder, configuration: configuration), stopping: stopping, limits: limits)
        }
    }
}

/// Tells `ServerStopping` when the graceful shutdown begins (run it in the service group after
/// the application, so it is told first).
public struct StopSignal: Service {
    let stopping: ServerStopping

    public init(stopping: ServerStopping) { self.stopping = stopping }

    public func run() async throws {
        // Cancelled rather than shut down gracefully: the group is ending anyway.
        try? await gracefulShutdown()
        stopping.stop()
    }
}
