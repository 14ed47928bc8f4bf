import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A failure starting or talking to the throwaway PostgreSQL server; the message has the tool's output.
public struct PostgresServerError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A throwaway PostgreSQL server: `initdb` into a temporary directory, `pg_ctl start` on a free
/// loopback port (as the `postgres` user when the tests run as root, since `initdb` refuses
/// root), trust authentication, no fsync. `stop()` kills it and removes the directory.
public final class PostgresServer: Sendable {
    public let port: Int
    public let directory: String
    public let binaries: String
    let runAs: String?

    /// The directory holding `initdb` and `pg_ctl`: `$ROQUA_PG_BIN`, else the newest
    /// `/usr/lib/postgresql/*/bin` (Debian's `postgresql` package); nil when absent.
    public static var binaryDirectory: String? {
        if let explicit = ProcessInfo.processInfo.environment["ROQUA_PG_BIN"], !explicit.isEmpty { return explicit }
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []  // no directory: not installed
        return versions.compactMap(Int.init).sorted().reversed().map { "\(root)/\($0)/bin" }
            .first {
                FileManager.default.isExecutableFile(atPath: $0 + "/initdb") && FileManager.default.isExecutableFile(atPath: $0 + "/pg_ctl")
            }
    }

    public static var isInstalled: Bool { binaryDirectory != nil }

    /// Whether the PostGIS extension is installed for that server: Debian's
    /// `/usr/share/postgresql/VERSION/extension/postgis.control`, or `share/extension` beside
    /// a `$ROQUA_PG_BIN` installation.
    public static var hasPostGIS: Bool {
        guard let binaries = binaryDirectory else { return false }
        let version = ((binaries as NSString).deletingLastPathComponent as NSString).lastPathComponent
        return [
            "/usr/share/postgresql/\(version)/extension/postgis.control",
            (binaries as NSString).deletingLastPathComponent + "/share/extension/postgis.control",
            (binaries as NSString).deletingLastPathComponent + "/share/postgresql/extension/postgis.control",
        ]
        .contains { FileManager.default.fileExists(atPath: $0) }
    }

    /// Starts a server; `label` names its temporary directory.
    /// - Throws: `PostgresServerError` with the server's log when it does not start.
    public static func start(label: String = "roqua-pg") throws -> PostgresServer {
        guard let binaries = binaryDirectory else { throw PostgresServerError("PostgreSQL binaries not found") }
        let runAs: String? = getuid() == 0 ? "postgres" : nil
        let directory = NSTemporaryDirectory() + "\(label)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        if let runAs { try run("/bin/chown", [runAs, directory]) }
        let port = try freePort()
        let server = PostgresServer(port: port, directory: directory, binaries: binaries, runAs: runAs)
        do {
            try server.pg("initdb", ["-D", directory + "/data", "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"])
            try server.pg(
                "pg_ctl",
                [
                    "-D", directory + "/data", "-l", directory + "/log", "-w", "-t", "60",
                    "-o",
                    "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off",
                    "start",
                ])
        } catch {
            // The log is only a diagnostic: without it the error still says what failed.
            let log = (try? String(contentsOfFile: directory + "/log", encoding: .utf8)) ?? ""
            server.stop()
            throw PostgresServerError("PostgreSQL did not start: \(error)\n\(log.suffix(2000))")
        }
        return server
    }

    private init(port: Int, directory: String, binaries: String, runAs: String?) {
        self.port = port
        self.directory = directory
        self.binaries = binaries
        self.runAs = runAs
    }

    /// A new, empty database.
    /// - Throws: `PostgresServerError` when `createdb` fails.
    public func createDatabase(_ name: String) throws {
        try pg("createdb", ["-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", name])
    }

    /// Runs `psql` (as this process's user: a client needs no server account) on `database`
    /// with `arguments` (e.g. `["-f", file]` or `["-c", sql]`), stopping at the first error;
    /// returns what it printed, unaligned with `|` between fields and no headers.
    /// - Throws: `PostgresServerError` with psql's output when it fails.
    @discardableResult
    public func psql(database: String, _ arguments: [String]) throws -> String {
        try Self.run(
            binaries + "/psql",
            [
                "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", "\(port)",
                "-U", "postgres", "-d", database,
            ] + arguments)
    }

    public func stop() {
        // Stopping a server that never started fails; the directory goes either way.
        _ = try? pg("pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs a server tool as the server's user.
    @discardableResult
    public func pg(_ tool: String, _ arguments: [String]) throws -> String {
        if let runAs {
            return try Self.run("/usr/sbin/runuser", ["-u", runAs, "--", binaries + "/" + tool] + arguments)
        }
        return try Self.run(binaries + "/" + tool, arguments)
    }

    /// Runs a tool to its end and returns its output (stdout and stderr, in one file). Not
    /// through Foundation's `Process`: that waits until every inheritor of its bookkeeping
    /// descriptor exits, and `pg_ctl start` leaves a server running. `posix_spawn` with every
    /// descriptor above 2 closed, then `waitpid`.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let outputPath = NSTemporaryDirectory() + "roqua-pg-output-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Every other open descriptor of this process (glibc ignores ones closed meanwhile).
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            if let fd = Int32(name), fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw PostgresServerError("cannot start \(executable): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""  // no output file: nothing printed
        let exited = status & 0x7F == 0, code = (status >> 8) & 0xFF
        guard exited && code == 0 else {
            throw PostgresServerError(
                "\(executable) \(arguments.prefix(12).joined(separator: " ")) failed (status \(status)): \(text.suffix(2000))")
        }
        return text
    }

    /// A port nothing listens on right now (bind to port 0, read it, close).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw PostgresServerError("socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(fd, socketAddress, length) == 0 && getsockname(fd, socketAddress, &length) == 0
            }
        }
        guard bound else { throw PostgresServerError("bind() failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
