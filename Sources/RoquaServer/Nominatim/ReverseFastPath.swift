import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import RoquaIO
import RoquaServeInput

/// Answers `GET /reverse` on the connection's event loop, between Hummingbird's connection-state
/// handler and its async bridging, so the common request skips the bridging, the router and the
/// middleware chain. It answers only what `ReverseFastAnswers` answers exactly as the route would
/// (a well-formed query it can resolve, for an allowed `Host`, authorised by the bearer header when there is a token);
/// everything else — other routes, errors, cookies, `Connection` headers — passes through untouched.
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
               let (response, body) = answers.answer(head, date: date.now(), allocator: context.channel.allocator) {
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

/// What `ReverseFastPath` answers, shared by every connection: the `/reverse` route's answer with
/// the headers the middleware chain and Hummingbird would add, in the same order.
struct ReverseFastAnswers: Sendable {
    let state: ServerState
    let formatter: NominatimFormatter
    let serverName: String?

    init(state: ServerState, serverName: String?) {
        self.state = state
        self.formatter = NominatimFormatter(catalog: state.catalog)
        self.serverName = serverName
    }

    private static let allowAnyOrigin = HTTPField(name: .accessControlAllowOrigin, value: "*")
    private static let contentSecurityPolicy = HTTPField(name: .contentSecurityPolicy, value: SecurityHeaders.contentSecurityPolicy)
    private static let noSniff = HTTPField(name: .xContentTypeOptions, value: SecurityHeaders.noSniff)
    private static let noStore = HTTPField(name: .cacheControl, value: SecurityHeaders.noStore)
    private static let json = HTTPField(name: .contentType, value: JSONBody.json)
    private static let geoJSON = HTTPField(name: .contentType, value: JSONBody.geoJSON)

    /// The response to `head`, or nil when the route has to answer it (not `GET /reverse`, an
    /// error of any kind, a token given other than as a bearer header, a `Connection` header).
    func answer(_ head: HTTPRequest, date: String, allocator: ByteBufferAllocator) -> (HTTPResponse, ByteBuffer)? {
        guard head.method == .get, let path = head.path, let query = Self.reverseQuery(path) else { return nil }
        if let connection = head.headerFields[.connection], connection != "keep-alive" { return nil }
        // A foreign `Host` (DNS rebinding) gets the middleware's 421.
        guard state.origins.allowsHost(head.authority) else { return nil }
        if let token = state.options.token, !BearerToken.authorises(head.headerFields[.authorization], token: token) {
            return nil
        }
        // Every error (a malformed query, a failing resolver) is the route's to answer, with the
        // same JSON and status; here, nil just sends the request there.
        guard let answer = try? ReverseAnswer(query: query, acceptLanguage: head.headerFields[.acceptLanguage],
                                              resolvers: state.resolvers, formatter: formatter) else { return nil }
        guard let bytes = try? OrderedJSONEncoder().encode(answer.document) else { return nil }
        let body = allocator.buffer(bytes: bytes)
        var fields = HTTPFields()
        fields.reserveCapacity(8)
        fields.append(Self.allowAnyOrigin)
        fields.append(answer.contentType == JSONBody.json ? Self.json
            : answer.contentType == JSONBody.geoJSON ? Self.geoJSON : HTTPField(name: .contentType, value: answer.contentType))
        fields.append(HTTPField(name: .contentLength, value: String(body.readableBytes)))
        fields.append(Self.contentSecurityPolicy)
        fields.append(Self.noSniff)
        fields.append(Self.noStore)
        fields.append(HTTPField(name: .date, value: date))
        if let serverName { fields.append(HTTPField(name: .server, value: serverName)) }
        state.logger.debug("request", metadata: ["method": "GET", "path": "/reverse", "status": "200"])
        return (HTTPResponse(status: .ok, headerFields: fields), body)
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
