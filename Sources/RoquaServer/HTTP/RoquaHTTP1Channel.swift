import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import RoquaHTTPGuard

/// Hummingbird's HTTP/1 channel with `ConnectionGuard` before its connection-state handler and
/// `ReverseFastPath` right after it:
/// that handler still sees every request and response, so the idle timeout, keep-alive and the
/// graceful shutdown's "close once the last response is written" count the fast answers too.
struct RoquaHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = HTTP1Channel.Value

    let base: HTTP1Channel
    /// nil: every request goes through Hummingbird (tests compare both ways).
    let fastPath: ReverseFastAnswers?
    let stopping: ServerStopping
    let limits: ConnectionLimits

    var responder: HTTPChannelHandler.Responder { base.responder }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let fastPath = self.fastPath, stopping = self.stopping, limits = self.limits
        // `base.setup` completes at once on the channel's event loop, so this runs before any read.
        return base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let connectionState = try pipeline.handler(type: HTTPConnectionStateHandler.self)
            // Before the fast path: it sees every request part and every response's end.
            try pipeline.addHandler(ConnectionGuard(limits: limits, stopping: stopping), position: .before(connectionState))
            if let fastPath { try pipeline.addHandler(ReverseFastPath(fastPath), position: .after(connectionState)) }
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// `.http1(configuration:)` with `GET /reverse` answered by `fastPath` when given, and every
    /// connection's time limits kept by `ConnectionGuard`.
    static func roquaHTTP1(
        configuration: HTTP1Channel.Configuration, fastPath: ReverseFastAnswers?,
        stopping: ServerStopping, limits: ConnectionLimits
    ) -> HTTPServerBuilder {
        .init { responder in
            RoquaHTTP1Channel(
                base: HTTP1Channel(responder: responder, configuration: configuration), fastPath: fastPath,
                stopping: stopping, limits: limits)
        }
    }
}
