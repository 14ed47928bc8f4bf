import ArgumentParser
import Foundation
import Logging
import RoquaChatServer
import RoquaHTTPGuard
import ServiceLifecycle

/// `roqua-chat-server [run]`: runs the sync server until SIGINT or SIGTERM, then shuts down gracefully.
struct ServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the sync server (the default; graceful shutdown on SIGINT/SIGTERM).")

    @OptionGroup var store: StoreLocation

    @Option(name: .long, help: ArgumentHelp("Where to listen; loopback unless you mean otherwise.", valueName: "HOST:PORT"))
    var listen = "127.0.0.1:8080"

    @Option(
        name: .customLong("sms-outbox"),
        help: ArgumentHelp(
            "Development SMS provider: sign-in codes are appended to this file as JSON lines.",
            valueName: "FILE"))
    var smsOutbox: String

    @Option(
        name: .customLong("jwt-secret-file"),
        help: ArgumentHelp(
            "The server secret (≥ 32 bytes; e.g. openssl rand -hex 32). Default with --db: PATH.secret, created when missing; with --postgres: random per process.",
            valueName: "FILE"))
    var jwtSecretFile: String?

    @Option(name: .customLong("max-blob-bytes"), help: "The largest blob accepted.")
    var maxBlobBytes = 10 * 1024 * 1024

    // Defaults from `ChatSettings`, where each number's reason is written.
    @Option(
        name: .customLong("code-requests-per-address"),
        help: "Sign-in code requests per client address (IPv6: per /64) per minute (loopback exempt).")
    var codeRequestsPerAddress = ChatSettings().codeRequestsPerAddress

    @Option(name: .customLong("code-requests-per-server"), help: "Sign-in code requests per minute for the whole server (SMS pumping).")
    var codeRequestsPerServer = ChatSettings().codeRequestsPerServer

    @Option(name: .customLong("code-requests-per-hour"), help: "Sign-in code requests per hour for the whole server: the cap on SMS sent.")
    var codeRequestsPerHour = ChatSettings().codeRequestsPerHour

    @Option(name: .customLong("code-checks-per-address"), help: "Sign-in code checks per client address per minute (loopback exempt).")
    var codeChecksPerAddress = ChatSettings().codeChecksPerAddress

    @Option(name: .customLong("code-checks-per-server"), help: "Sign-in code checks per minute for the whole server.")
    var codeChecksPerServer = ChatSettings().codeChecksPerServer

    @Option(
        name: .customLong("trusted-proxy"),
        help: ArgumentHelp(
            "A reverse proxy's address whose X-Forwarded-For names the client (repeatable); limits then count clients, not the proxy. A proxy on this machine that is not named here gets 503 on sign-in.",
            valueName: "ADDRESS"))
    var trustedProxies: [String] = []

    @Option(name: .customLong("blob-quota-per-user"), help: "Attachment bytes one user may have uploaded (1 GiB by default).")
    var blobQuotaPerUser: Int64 = 1 << 30

    @Option(name: .customLong("blob-quota-per-group"), help: "Attachment bytes one group's messages may name (4 GiB by default).")
    var blobQuotaPerGroup: Int64 = 4 << 30

    @Option(
        name: .customLong("tls-cert"),
        help: ArgumentHelp("Serve HTTPS with this PEM certificate chain (with --tls-key).", valueName: "FILE"))
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("The PEM private key of --tls-cert; must be 0600.", valueName: "FILE"))
    var tlsKey: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    func validate() throws {
        _ = try Self.listenAddress(listen)
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("Unknown log level '\(logLevel)'.") }
        guard maxBlobBytes > 0 else { throw ValidationError("--max-blob-bytes must be positive.") }
        guard blobQuotaPerUser > 0, blobQuotaPerGroup > 0 else {
            throw ValidationError("--blob-quota-per-user and --blob-quota-per-group must be positive.")
        }
        guard
            [codeRequestsPerAddress, codeRequestsPerServer, codeRequestsPerHour, codeChecksPerAddress, codeChecksPerServer]
                .allSatisfy({ $0 > 0 })
        else {
            throw ValidationError(
                "--code-requests-per-address, --code-requests-per-server, --code-requests-per-hour, --code-checks-per-address and --code-checks-per-server must be at least 1."
            )
        }
        guard (tlsCert == nil) == (tlsKey == nil) else { throw ValidationError("--tls-cert and --tls-key go together.") }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "roqua.chat")
        let (host, port) = try Self.listenAddress(listen)
        let opened = try failing { try store.open(logger: logger) }
        let secret: ServerSecret
        if let jwtSecretFile {
            secret = try failing { try ServerSecret.load(path: jwtSecretFile) }
        } else if let db = store.db {
            secret = try failing { try ServerSecret.loadOrCreate(path: db + ".secret") }
        } else {
            logger.warning("no --jwt-secret-file: a random secret; tokens die with this process and other instances reject them")
            secret = .random()
        }
        let tls = try failing { try tlsCert.map { try ServerTLS.configuration(certificate: $0, key: tlsKey ?? "") } }
        var settings = ChatSettings()
        settings.maxBlobBytes = maxBlobBytes
        settings.trustedProxies = Set(trustedProxies)
        settings.blobBytesPerUser = blobQuotaPerUser
        settings.blobBytesPerGroup = blobQuotaPerGroup
        settings.codeRequestsPerAddress = codeRequestsPerAddress
        settings.codeRequestsPerServer = codeRequestsPerServer
        settings.codeRequestsPerHour = codeRequestsPerHour
        settings.codeChecksPerAddress = codeChecksPerAddress
        settings.codeChecksPerServer = codeChecksPerServer
        let server = await ChatServer(
            store: opened.store, sms: FileOutboxSMSProvider(path: smsOutbox), secret: secret,
            settings: settings, logger: logger)
        let application = try failing {
            try server.application(host: host, port: port, tls: tls, services: opened.services, beforeStart: opened.prepare)
        }
        // `StopSignal` after the application: told first at shutdown, so uploads still arriving are cut at once.
        let services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: application),
            .init(service: StopSignal(stopping: server.stopping), successTerminationBehavior: .ignore),
        ]
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
        logger.info("stopped")
    }

    /// `HOST:PORT` or `[IPv6]:PORT`.
    static func listenAddress(_ text: String) throws -> (String, Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            throw ValidationError("--listen '\(text)' is not HOST:PORT (e.g. 127.0.0.1:8080).")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw ValidationError("--listen '\(text)' has no host.") }
        return (host, port)
    }
}

/// Runs `body`, turning a library error into a clean exit with its message.
func failing<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as ValidationError {
        throw error
    } catch {
        throw ValidationError("\(error)")
    }
}
