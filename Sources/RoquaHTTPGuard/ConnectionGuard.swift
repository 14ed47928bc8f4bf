import Foundation
import HTTPTypes
import NIOCore
import NIOHTTPTypes
import Synchronization

/// The time limits of one connection, so a slow or silent client holds nothing a normal request
/// needs. Checked every `tick` on the connection's event loop (one timer per connection, none per
/// request, so `/reverse` under load pays nothing):
/// - a request's head must arrive within `headDeadline` of the connection opening or of the
///   previous response (a header trickled a byte at a time, or an idle keep-alive connection);
/// - a body must bring at least `minimumBytes` every `window` (a trickling upload), and the whole
///   request must be in within `requestDeadline`;
/// - once the server is stopping, a request still being received is cut at the next tick.
/// Only the client's time counts: the ticks while the server waits for bytes (a read is asked
/// for and none came), not while the server itself holds the body back (a busy route, a slow
/// disk: back-pressure asks for no read).
/// A cut request fails its body's reader with `SlowClient` (never a silent early end: the upload
/// would look complete) and closes the connection.
public final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = HTTPRequestPart
    public typealias InboundOut = HTTPRequestPart
    public typealias OutboundIn = HTTPResponsePart
    public typealias OutboundOut = HTTPResponsePart

    /// Why a request was cut off.
    public struct SlowClient: Error, CustomStringConvertible {
        public let description: String
    }

    private enum Phase {
        /// Waiting for a request's head; the client's time so far.
        case waitingForHead(waited: TimeAmount)
        /// Receiving a body: the client's time since the head, in the current window, and the
        /// bytes of the current window.
        case receiving(waited: TimeAmount, window: TimeAmount, windowBytes: Int)
        /// The request is in; the server is answering (its own time, not the client's).
        case answering
    }

    private let limits: ConnectionLimits
    private let stopping: ServerStopping
    private var phase: Phase = .waitingForHead(waited: .zero)
    /// A read is asked for and no data has come since: the time is the client's.
    private var awaitingClient = true
    /// Requests whose response has not ended (pipelined requests queue here).
    private var unanswered = 0
    private var timer: RepeatedTask?

    public init(limits: ConnectionLimits, stopping: ServerStopping) {
        self.limits = limits
        self.stopping = stopping
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        // Runs on the channel's own event loop, where the handler lives.
        timer = context.eventLoop.scheduleRepeatedTask(initialDelay: limits.tick, delay: limits.tick) { _ in
            handler.value.check(context: bound.value)
        }
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    public func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    public func read(context: ChannelHandlerContext) {
        awaitingClient = true
        context.read()
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        awaitingClient = false
        switch unwrapInboundIn(data) {
        case .head:
            phase = .receiving(waited: .zero, window: .zero, windowBytes: 0)
            unanswered += 1
        case let .body(buffer):
            if case let .receiving(waited, window, bytes) = phase {
                phase = .receiving(waited: waited, window: window, windowBytes: bytes + buffer.readableBytes)
            }
        case .end:
            phase = .answering
        }
        context.fireChannelRead(data)
    }

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            unanswered = max(0, unanswered - 1)
            // The next request's clock starts now (unless it is already being received).
            if unanswered == 0, case .answering = phase { phase = .waitingForHead(waited: .zero) }
        }
        context.write(data, promise: promise)
    }

    private func check(context: ChannelHandlerContext) {
        let tick = awaitingClient ? limits.tick : .zero
        switch phase {
        case let .waitingForHead(waited):
            if stopping.isStopping || waited + tick > limits.headDeadline {
                // Nothing of a request is in flight: just close (Hummingbird's idle close does the same).
                context.close(promise: nil)
            } else {
                phase = .waitingForHead(waited: waited + tick)
            }
        case let .receiving(waited, window, bytes):
            if stopping.isStopping {
                cut(context, "the server is stopping")
            } else if waited + tick > limits.requestDeadline {
                cut(context, "the request took longer than \(Self.seconds(limits.requestDeadline)) s to arrive")
            } else if window + tick < limits.window {
                phase = .receiving(waited: waited + tick, window: window + tick, windowBytes: bytes)
            } else if bytes < limits.minimumBytes {
                cut(
                    context,
                    "the client sent \(bytes) bytes in \(Self.seconds(limits.window)) s (at least \(limits.minimumBytes) are required)")
            } else {
                phase = .receiving(waited: waited + tick, window: .zero, windowBytes: 0)
            }
        case .answering:
            break
        }
    }

    private static func seconds(_ time: TimeAmount) -> String {
        let value = Double(time.nanoseconds) / 1e9
        return value == value.rounded() ? String(Int(value)) : String(value)
    }

    private func cut(_ context: ChannelHandlerContext, _ reason: String) {
        timer?.cancel()
        timer = nil
        context.fireErrorCaught(SlowClient(description: reason))
        context.close(promise: nil)
    }
}

@available(*, unavailable)
extension ConnectionGuard: Sendable {}

/// `ConnectionGuard`'s limits (tests shorten them).
public struct ConnectionLimits: Sendable {
    /// How often each connection is checked.
    public var tick: TimeAmount = .seconds(2)
    /// Longest wait for a request's head, after the connection opened or the last response.
    public var headDeadline: TimeAmount = .seconds(60)
    /// A body must bring `minimumBytes` in every window of this length.
    public var window: TimeAmount = .seconds(30)
    public var minimumBytes = 1024
    /// Longest time a request may take to arrive, head to end.
    public var requestDeadline: TimeAmount = .minutes(15)

    public init() {}

    /// Limits in seconds (tests use fractions of one).
    public init(tick: Double, headDeadline: Double, window: Double, minimumBytes: Int, requestDeadline: Double) {
        func time(_ seconds: Double) -> TimeAmount { .nanoseconds(Int64(seconds * 1e9)) }
        self.tick = time(tick)
        self.headDeadline = time(headDeadline)
        self.window = time(window)
        self.minimumBytes = minimumBytes
        self.requestDeadline = time(requestDeadline)
    }
}

/// Set once when the server starts its graceful shutdown: requests still being received are cut,
/// work under way stops at its next check, so SIGTERM ends the server in seconds.
public final class ServerStopping: Sendable {
    private let flag = Atomic(false)

    public init() {}

    public var isStopping: Bool { flag.load(ordering: .relaxed) }

    public func stop() { flag.store(true, ordering: .relaxed) }
}
