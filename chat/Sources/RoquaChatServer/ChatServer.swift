import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import RoquaHTTPGuard
import ServiceLifecycle

/// The sync server: services over a store, behind Hummingbird. The CLI runs it as a service
/// (graceful shutdown on SIGINT/SIGTERM); tests start it on port 0 in-process.
package struct ChatServer: Sendable {
    package let store: any ChatStore
    package let settings: ChatSettings
    /// Set when the graceful shutdown begins (`StopSignal`): requests still arriving are cut.
    package let stopping = ServerStopping()
    let routes: ChatRoutes
    let logger: Logger

    /// Builds the services over `store`.
    package init(
        store: any ChatStore, sms: any SMSProvider, secret: ServerSecret, clock: any ChatClock = SystemClock(),
        settings: ChatSettings = ChatSettings(), logger: Logger = Logger(label: "roqua.chat")
    ) async {
        self.store = store
        self.settings = settings
        self.logger = logger
        let environment = ServiceEnvironment(store: store, clock: clock, settings: settings, logger: logger)
        routes = ChatRoutes(
            auth: await AuthService(environment, sms: sms, secret: secret),
            groups: GroupService(environment),
            sync: SyncService(environment),
            blobs: BlobService(environment),
            identity: ServerIdentityService(secret: secret),
            store: store, settings: settings, clock: clock, signInLimits: SignInLimits(settings: settings, clock: clock))
    }

    /// The Hummingbird application listening on `host:port` (port 0: any free port, reported
    /// through `onRunning`) — over TLS with `tls` —, running `services` (e.g. a database client)
    /// alongside and `beforeStart` (e.g. migrations) once they run but before the first request.
    /// Every connection keeps `settings.connectionLimits` (`ConnectionGuard`): a head within a
    /// minute, bodies at a minimum rate, each request in within its deadline.
    /// - Throws: NIOSSL's error for a TLS configuration it cannot use.
    package func application(
        host: String, port: Int, tls: TLSConfiguration? = nil, services: [any Service] = [],
        beforeStart: [@Sendable () async throws -> Void] = [],
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        let router = Router(context: ChatRequestContext.self)
        routes.register(on: router)
        let logger = logger
        var decoder = HTTP1Channel.Configuration.DecoderConfiguration()
        decoder.maxHeaderFieldSize = 8 * 1024
        decoder.maxHeaderListSize = 32 * 1024
        decoder.maxHeaderFieldCount = 100
        // Idle connections (a client that connects and says nothing) are closed after a minute.
        let http = HTTPServerBuilder.guardedHTTP1(
            configuration: .init(idleTimeout: .seconds(60), httpDecoderConfiguration: decoder),
            stopping: stopping, limits: settings.connectionLimits)
        var application = Application(
            router: router,
            server: try tls.map { try .tls(http, tlsConfiguration: $0) } ?? http,
            configuration: .init(address: .hostname(host, port: port), serverName: "roqua-chat"),
            services: services,
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                logger.info("listening", metadata: ["address": "\(host):\(port)", "scheme": "\(tls == nil ? "http" : "https")"])
                await onRunning(port)
            },
            logger: logger)
        for step in beforeStart { application.beforeServerStarts(perform: step) }
        return application
    }
}
