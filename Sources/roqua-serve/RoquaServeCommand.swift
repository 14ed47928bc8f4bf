import ArgumentParser
import Foundation
import RoquaBoundaries
import RoquaCommandLine
import RoquaCommandOptions
import RoquaServer

/// `roqua-serve`, also run as `roqua serve`: a program of its own so that building the plain
/// CLI does not compile the HTTP stack (SwiftNIO, Hummingbird).
@main
struct RoquaServeCommand: AsyncParsableCommand {
    /// Errors end as every Roqua program's do: `error: …` (see `RoquaProgram`).
    static func main() async { await RoquaProgram.run(Self.self, arguments: Array(CommandLine.arguments.dropFirst())) }

    static let configuration = CommandConfiguration(
        commandName: "roqua-serve",
        abstract: "The exploration app in a browser and a Nominatim-compatible reverse-geocoding API, offline.",
        discussion: "Without a subcommand it serves (run); device manages the phones that post positions live.",
        version: Roqua.version,
        subcommands: [ServeRun.self, DeviceCommand.self],
        defaultSubcommand: ServeRun.self
    )
}

/// `roqua-serve [run]`: the server.
struct ServeRun: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Serve the exploration app and the APIs (the default).",
        discussion: """
            Serves the map page at / and the APIs (/reverse, /reverse/batch, /status, /api/…) on loopback. \
            Listening on any other address needs --token (sent as 'Authorization: Bearer TOKEN' or set by \
            the login form). Only the server's own page may write (import, restore): other web sites and \
            requests naming another host are refused; see docs/serve-security.md. Stops on SIGINT or SIGTERM \
            within seconds (an import under way is rolled back).
            """,
        version: Roqua.version
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var boundaries: BoundaryOptions
    @OptionGroup var achievements: AchievementOptions

    @Option(help: ArgumentHelp("Address and port to listen on (port 0: any free port).", valueName: "HOST:PORT"))
    var listen = "127.0.0.1:8080"

    @Option(help: ArgumentHelp("Token required from clients (16+ characters); needed for a non-loopback address.", valueName: "TOKEN"))
    var token: String?

    @Option(
        name: .customLong("allow-host"),
        help: ArgumentHelp(
            "Another name the server may be reached by (a reverse proxy's), or the origin it serves the page at "
                + "(https://NAME[:PORT]); repeatable. Requests naming any other host are refused (DNS rebinding).",
            valueName: "NAME"))
    var allowHosts: [String] = []

    @Flag(help: "Listen beyond loopback without --token: anyone who reaches the port reads and changes everything.")
    var insecurePublic = false

    @Option(help: ArgumentHelp("Largest track or restore upload, in MB, compressed and decompressed.", valueName: "MB"))
    var maxUpload = ServerOptions.defaultMaxUploadMegabytes

    @Option(
        help: ArgumentHelp(
            "How many days back a phone's live position may have been taken (its offline buffer); older ones "
                + "are skipped.", valueName: "DAYS"))
    var liveMaxAge = ServerOptions.defaultLiveMaxAgeDays

    @Option(
        help: ArgumentHelp(
            "Leaflet's folder (default: $ROQUA_LEAFLET, share/roqua/leaflet, /usr/share/javascript/leaflet).",
            valueName: "DIR"))
    var leaflet: String?

    @Option(help: ArgumentHelp("Log level: trace, debug, info, notice, warning, error, critical.", valueName: "LEVEL"))
    var logLevel = "info"

    func validate() throws {
        do { _ = try options() } catch let error as ServerError { throw ValidationError(error.description) }
    }

    func options() throws -> ServerOptions {
        try ServerOptions(
            listen: ListenAddress(parsing: listen), boundaries: boundaries.path, store: store.path, token: token,
            maxUploadMegabytes: maxUpload, achievements: achievements.path, leaflet: leaflet, logLevel: logLevel,
            allowHosts: allowHosts, insecurePublic: insecurePublic, liveMaxAgeDays: liveMaxAge)
    }

    func run() async throws {
        let options = try options()
        try await RoquaServer.run(options) { port in
            let address = ListenAddress(host: options.listen.host, port: port)
            // Unbuffered: scripts wait for this line to learn the port.
            FileHandle.standardOutput.write(Data("Roqua is serving on http://\(address)/\n".utf8))
        }
    }
}
