import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import RoquaHTTPGuard
import ServiceLifecycle
import UnixSignals

/// `roqua serve`: the exploration page and the APIs on one Hummingbird server.
public enum RoquaServer {
    /// Opens the boundary DB and the store, draws the world's and Türkiye's shapes once, then
    /// serves until SIGINT or SIGTERM, finishing the requests in flight (graceful shutdown).
    /// `onReady` gets the port actually bound (useful with port 0) once connections are accepted.
    /// - Throws: `ServerError`, `BoundaryDatabaseError`, `RegionStoreError`, or the socket's
    ///   error when the address cannot be bound.
    public static func run(_ options: ServerOptions, onReady: @escaping @Sendable (Int) -> Void) async throws {
        var logger = Logger(label: "roqua.serve")
        logger.logLevel = Logger.Level(rawValue: options.logLevel) ?? .info
        try await run(options, logger: logger, signals: [.sigterm, .sigint], onReady: onReady)
    }

    /// As `run(_:onReady:)` with the signals chosen. Tests use none and end `stop` instead: the same
    /// graceful shutdown a signal starts (cancelling the task would close the listening channel
    /// under Hummingbird's own shutdown, which then logs an error).
    package static func run(
        _ options: ServerOptions, logger: Logger, signals: [UnixSignal],
        stop: AsyncStream<Void>? = nil, onReady: @escaping @Sendable (Int) -> Void
    ) async throws {
        let state = try await offloaded { try ServerState(options: options, logger: logger) }
        try await offloaded {
            // The first page load draws these: have them ready before the first request.
            _ = try state.shapes.geoJSON(childrenOf: UnitShapes.worldCode)
            if state.hierarchy.units["TR"] != nil { _ = try state.shapes.geoJSON(childrenOf: "TR") }
        }
        let router = makeRouter(state: state)
        let serverName = "roqua"
        var decoder = HTTP1Channel.Configuration.DecoderConfiguration()
        decoder.maxHeaderFieldSize = 8 * 1024
        decoder.maxHeaderListSize = 32 * 1024
        decoder.maxHeaderFieldCount = 100
        let app = Application(
            router: router,
            server: .roquaHTTP1(
                configuration: .init(idleTimeout: .seconds(75), httpDecoderConfiguration: decoder),
                fastPath: options.reverseFastPath ? ReverseFastAnswers(state: state, serverName: serverName) : nil,
                stopping: state.stopping, limits: options.connectionLimits),
            configuration: .init(address: .hostname(options.listen.host, port: options.listen.port), serverName: serverName),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? options.listen.port
                state.origins.bound(port: port)
                logger.info(
                    "listening",
                    metadata: [
                        "address": "\(options.listen.host):\(port)",
                        "leaflet": "\(state.assets.leafletDirectory)",
                    ])
                onReady(port)
            },
            logger: logger
        )
        // Shut down in reverse order: `StopSignal` first, so uploads and imports under way stop
        // at once, then the app, which waits for the requests in flight (now quick to end).
        let services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: app),
            .init(service: StopSignal(stopping: state.stopping), successTerminationBehavior: .ignore),
        ]
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: signals, logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            if let stop {
                tasks.addTask {
                    for await _ in stop {}
                    // Ended by the caller, not by the server stopping on its own (then this task is cancelled).
                    if !Task.isCancelled { await group.triggerGracefulShutdown() }
                }
            }
            try await group.run()
            tasks.cancelAll()
        }
        logger.info("stopped")
    }

    /// The level of the one log line per request (`RequestLog`).
    static let requestLogLevel = Logger.Level.debug

    static func makeRouter(state: ServerState) -> Router<ServeRequestContext> {
        let router = Router(context: ServeRequestContext.self)
        // Outermost first: headers on every answer, errors included; the log sees the final status.
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: RequestLogMiddleware(level: requestLogLevel))
        router.add(middleware: JSONErrorMiddleware(logger: state.logger))
        router.add(middleware: OriginGuardMiddleware(policy: state.origins, token: state.options.token))
        router.add(middleware: AccessControlMiddleware(token: state.options.token, sessions: state.sessions))
        LoginRoutes.add(to: router, token: state.options.token, assets: state.assets, sessions: state.sessions, limits: state.loginLimits)
        StaticAssets.add(to: router, assets: state.assets)
        ReverseRoutes.add(to: router, state: state)
        BatchRoute.add(to: router, state: state)
        ExplorationRoutes.add(to: router, state: state)
        MapTileRoutes.add(to: router, state: state)
        PhotoRoutes.add(to: router, state: state)
        TrackRoutes.add(to: router, state: state)
        ArchiveRoutes.add(to: router, state: state)
        IngestRoutes.add(to: router, state: state)
        DeviceRoutes.add(to: router, state: state)
        TravelRoutes.add(to: router, state: state)
        return router
    }
}
