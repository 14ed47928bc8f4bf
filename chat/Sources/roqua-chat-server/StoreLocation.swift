import ArgumentParser
import Foundation
import Logging
import RoquaChatPostgres
import RoquaChatServer
import ServiceLifecycle

/// `--db PATH` or `--postgres URL`: exactly one.
struct StoreLocation: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The SQLite store (created when missing).", valueName: "PATH"))
    var db: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A PostgreSQL store instead: postgres://USER:PASSWORD@HOST:PORT/DB[?sslmode=disable|prefer|require].",
            valueName: "URL"))
    var postgres: String?

    func validate() throws {
        guard (db == nil) != (postgres == nil) else { throw ValidationError("Give exactly one of --db PATH and --postgres URL.") }
    }

    /// The store, the services it needs running (the PostgreSQL client) and what to do once
    /// they run (migrations).
    struct Opened {
        var store: any ChatStore
        var services: [any Service]
        var prepare: [@Sendable () async throws -> Void]
    }

    func open(logger: Logger) throws -> Opened {
        if let postgres {
            let store = PostgresChatStore(configuration: try PostgresURL.configuration(postgres), logger: logger)
            return Opened(store: store, services: [store.client], prepare: [{ try await store.migrate() }])
        }
        return Opened(store: try SQLiteChatStore(path: db ?? ""), services: [], prepare: [])
    }

    /// Opens the store, runs `body` with it, and shuts the store's services down.
    func withStore<T: Sendable>(logger: Logger, _ body: @escaping @Sendable (any ChatStore) async throws -> T) async throws -> T {
        let opened = try open(logger: logger)
        return try await withThrowingTaskGroup(of: T?.self) { tasks in
            for service in opened.services {
                tasks.addTask {
                    try await service.run()
                    return nil
                }
            }
            for step in opened.prepare { try await step() }
            let result = try await body(opened.store)
            tasks.cancelAll()
            return result
        }
    }
}
