import Foundation
import Logging
import PostgresNIO
import RoquaChatPostgres
import RoquaTestKit

@testable import RoquaChatServer

/// The throwaway PostgreSQL server every suite shares (`RoquaTestSupport.PostgresServer`), with
/// what the chat store's tests add: a client configuration and a migrated store per database.
typealias PostgresFixture = PostgresServer

extension PostgresServer {
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
}
