import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import RoquaHTTPGuard
import RoquaServeInput

/// Answers `GET /reverse` on the connection's event loop, between Hummingbird's connection-state
/// handler and its async bridging, so the request skips the bridging, the router and the
/// middleware chain, whose checks and decoration `ReverseFastAnswers` applies itself.
/// Everything else — other routes and methods, `Connection` headers — passes through untouched.
///
/// Pipelined requests stay in order: a request is answered here only while no earlier request is
/// still with Hummingbird (its response's end not yet written), else it goes through as well.
/// Resolving takes a few microseconds of CPU and never blocks, so it runs on the event loop.
final class ReverseFastPath: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum Current {
        /// Between requests.
        case none
        /// With Hummingbird: its parts go through.
        case passing
        /// Answered here once its end arrives (a body, which GET does not use, is dropped as Hummingbird drops it).
        case answering(HTTPResponse, ByteBuffer)
    }

    private let answers: ReverseFastAnswers
    private var current = Current.none
    /// Requests passed to Hummingbird whose response has not ended yet.
    private var unanswered = 0
    private var needsFlush = false
    private var date = HTTPDate()

    init(_ answers: ReverseFastAnswers) {
        self.answers = answers
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(head):
            if unanswered == 0, context.channel.isWritable,
                let (response, body) = answers.answer(head, date: date.now())
            {
                current = .answering(response, body)
                return
            }
            current = .passing
            unanswered += 1
            context.fireChannelRead(data)
        case .body:
            if case .answering = current { return }
            context.fireChannelRead(data)
        case .end:
            guard case let .answering(response, body) = current else {
                current = .none
                context.fireChannelRead(data)
                return
            }
            current = .none
            context.write(wrapOutboundOut(.head(response)), promise: nil)
            context.write(wrapOutboundOut(.body(body)), promise: nil)
            context.write(wrapOutboundOut(.end(nil)), promise: nil)
            needsFlush = true
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if needsFlush {
            needsFlush = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { unanswered = max(0, unanswered - 1) }
        context.write(data, promise: promise)
    }
}

@available(*, unavailable)
extension ReverseFastPath: Sendable {}

/// What `ReverseFastPath` answers, shared by every connection: `GET /reverse` decorated as the
/// router decorates it — the same `Host` check (`OriginGuard`), token check (`AccessControl`),
/// answer (`ReverseEndpoint`), error document (`APIError.reply(for:)`), headers
/// (`SecurityHeaders`) and log line (`RequestLog`), with the headers Hummingbird adds (length,
/// date, server) in its order. Every request it takes it answers, errors included: none is
/// parsed or resolved a second time by the router.
struct ReverseFastAnswers: Sendable {
    let state: ServerState
    let endpoint: ReverseEndpoint
    let serverName: String?
    static let route = "/reverse"

    init(state: ServerState, serverName: String?) {
        self.state = state
        self.endpoint = ReverseEndpoint(state: state)
        self.serverName = serverName
    }

    /// The response to `head`, or nil when it is the router's to answer: another route or
    /// method, a target with a fragment (Hummingbird's parsing decides what it means), a
    /// `Connection` header other than keep-alive (Hummingbird answers it and closes).
    func answer(_ head: HTTPRequest, date: String) -> (HTTPResponse, ByteBuffer)? {
        guard head.method == .get, let path = head.path, let query = Self.reverseQuery(path) else { return nil }
        if let connection = head.headerFields[.connection], connection != "keep-alive" { return nil }
        let start = ContinuousClock.now
        var reply: JSONReply
        do {
            if let refusal = OriginGuard.hostRefusal(state.origins, authority: head.authority) { throw refusal }
            guard
                AccessControl.admits(
                    path: Self.route, headers: head.headerFields, token: state.options.token,
                    sessions: state.sessions)
            else { throw AccessControl.unauthorised }
            reply = try endpoint.reply(query: query, acceptLanguage: head.headerFields[.acceptLanguage])
        } catch {
            reply = APIError.reply(for: error, path: Self.route, logger: state.logger)
        }
        // Built as the router's response is built, so its headers come in the same order.
        var response = reply.response.head
        SecurityHeaders.add(to: &response.headerFields)
        response.headerFields.append(HTTPField(name: .date, value: date))
        if let serverName { response.headerFields.append(HTTPField(name: .server, value: serverName)) }
        RequestLog.record(
            state.logger, level: RoquaServer.requestLogLevel, method: .get, route: Self.route,
            status: response.status.code, since: start)
        return (response, reply.body)
    }

    /// The query of a `/reverse` request target (nil: another path, or one with a fragment, left
    /// to Hummingbird's own parsing); `.some(nil)` when there is no query at all.
    static func reverseQuery(_ target: String) -> String?? {
        let route = "/reverse"
        guard target.hasPrefix(route) else { return nil }
        let rest = target.utf8.dropFirst(route.utf8.count)
        guard let first = rest.first else { return .some(nil) }
        guard first == UInt8(ascii: "?"), !rest.contains(UInt8(ascii: "#")) else { return nil }
        return .some(String(Substring(rest.dropFirst())))
    }
}
