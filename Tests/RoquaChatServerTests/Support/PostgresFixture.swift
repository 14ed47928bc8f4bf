import Foundation
import Logging
import PostgresNIO
import RoquaChatPostgres
@testable import RoquaChatServer
#if canImport(Glibc)
import Glibc
#endif

/// A throwaway PostgreSQL server: `initdb` into a temporary directory, `pg_ctl start` on a free
/// loopback port (as the `postgres` user when the tests run as root, since `initdb` refuses
/// root), trust authentication, no fsync. `stop()` kills it and removes the directory.
final class PostgresFixture: Sendable {
    let port: Int
    let directory: String
    let binaries: String
    let runAs: String?

    /// The directory holding `initdb` and `pg_ctl`: `$ROQUA_PG_BIN`, else the newest
    /// `/usr/lib/postgresql/*/bin` (Debian's `postgresql` package); nil when absent.
    static var binaryDirectory: String? {
        if let explicit = ProcessInfo.processInfo.environment["ROQUA_PG_BIN"], !explicit.isEmpty { return explicit }
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.compactMap(Int.init).sorted().reversed().map { "\(root)/\($0)/bin" }
            .first { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") && FileManager.default.isExecutableFile(atPath: $0 + "/pg_ctl") }
    }

    static var isInstalled: Bool { binaryDirectory != nil }

    static func start() throws -> PostgresFixture {
        guard let binaries = binaryDirectory else { throw TestFailure("PostgreSQL binaries not found") }
        let runAs: String? = getuid() == 0 ? "postgres" : nil
        let directory = NSTemporaryDirectory() + "roqua-chat-pg-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        if let runAs { try run("/bin/chown", [runAs, directory]) }
        let port = try freePort()
        let fixture = PostgresFixture(port: port, directory: directory, binaries: binaries, runAs: runAs)
        do {
            try fixture.pg("initdb", ["-D", directory + "/data", "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"])
            try fixture.pg("pg_ctl", ["-D", directory + "/data", "-l", directory + "/log", "-w", "-t", "60",
                                      "-o", "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off",
                                      "start"])
        } catch {
            let log = (try? String(contentsOfFile: directory + "/log", encoding: .utf8)) ?? ""
            fixture.stop()
            throw TestFailure("PostgreSQL did not start: \(error)\n\(log.suffix(2000))")
        }
        return fixture
    }

    private init(port: Int, directory: String, binaries: String, runAs: String?) {
        self.port = port
        self.directory = directory
        self.binaries = binaries
        self.runAs = runAs
    }

    /// A new, empty database.
    func createDatabase(_ name: String) throws {
        try pg("createdb", ["-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", name])
    }

    func configuration(database: String) -> PostgresClient.Configuration {
        PostgresClient.Configuration(host: "127.0.0.1", port: port, username: "postgres", password: nil, database: database, tls: .disable)
    }

    /// A migrated store on a new database, its client running until `body` returns.
    func withStore<T: Sendable>(database: String, _ body: (PostgresChatStore) async throws -> T) async throws -> T {
        try createDatabase(database)
        var logger = Logger(label: "roqua.chat.test.postgres")
        logger.logLevel = .error
        let store = PostgresChatStore(configuration: configuration(database: database), logger: logger)
        let client = Task { await store.client.run() }
        defer { client.cancel() }
        try await store.migrate()
        return try await body(store)
    }

    func stop() {
        try? pg("pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    func pg(_ tool: String, _ arguments: [String]) throws {
        if let runAs {
            try Self.run("/usr/sbin/runuser", ["-u", runAs, "--", binaries + "/" + tool] + arguments)
        } else {
            try Self.run(binaries + "/" + tool, arguments)
        }
    }

    /// Runs a tool to its end, its output in a file. Not through Foundation's `Process`: that
    /// waits until every inheritor of its bookkeeping descriptor exits, and `pg_ctl start`
    /// leaves a server running. `posix_spawn` with every descriptor above 2 closed, then `waitpid`.
    static func run(_ executable: String, _ arguments: [String]) throws {
        let outputPath = NSTemporaryDirectory() + "roqua-chat-pg-output-\(UUID().uuidString)"
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
        guard spawned == 0 else { throw TestFailure("cannot start \(executable): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let exited = status & 0x7F == 0, code = (status >> 8) & 0xFF
        guard exited && code == 0 else {
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            throw TestFailure("\(executable) \(arguments.joined(separator: " ")) failed (status \(status)): \(text.suffix(2000))")
        }
    }

    /// A port nothing listens on right now (bind to port 0, read it, close).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket() failed") }
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
        guard bound else { throw TestFailure("bind() failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
