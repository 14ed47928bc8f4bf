import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1 channel with `ReverseFastPath` right after its connection-state handler:
/// that handler still sees every request and response, so the idle timeout, keep-alive and the
/// graceful shutdown's "close once the last response is written" count the fast answers too.
struct RoquaHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = HTTP1Channel.Value

    let base: HTTP1Channel
    /// nil: every request goes through Hummingbird (tests compare both ways).
    let fastPath: ReverseFastAnswers?

    var responder: HTTPChannelHandler.Responder { base.responder }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let fastPath = self.fastPath
        // `base.setup` completes at once on the channel's event loop, so this runs before any read.
        return base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            guard let fastPath else { return value }
            let pipeline = channel.pipeline.syncOperations
            let connectionState = try pipeline.handler(type: HTTPConnectionStateHandler.self)
            try pipeline.addHandler(ReverseFastPath(fastPath), position: .after(connectionState))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// `.http1(configuration:)` with `GET /reverse` answered by `fastPath` when given.
    static func roquaHTTP1(configuration: HTTP1Channel.Configuration, fastPath: ReverseFastAnswers?) -> HTTPServerBuilder {
        .init { responder in
            RoquaHTTP1Channel(base: HTTP1Channel(responder: responder, configuration: configuration), fastPath: fastPath)
        }
    }
}
