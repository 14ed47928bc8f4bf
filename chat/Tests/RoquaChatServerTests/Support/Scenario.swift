import Foundation
import Testing

@testable import RoquaChatServer

/// A behaviour checked over HTTP against a fresh server; every scenario runs against SQLite
/// (one test case each) and, when PostgreSQL is installed, against PostgreSQL.
struct Scenario: Sendable, CustomTestStringConvertible {
    let name: String
    let settings: ChatSettings
    let body: @Sendable (ChatHarness) async throws -> Void

    init(_ name: String, settings: ChatSettings = ChatSettings(), _ body: @escaping @Sendable (ChatHarness) async throws -> Void) {
        self.name = name
        self.settings = settings
        self.body = body
    }

    var testDescription: String { name }

    /// Every scenario of every area.
    static var all: [Scenario] {
        AuthScenarios.all + SignInAbuseScenarios.all + TokenScenarios.all + GroupScenarios.all + AuthorizationScenarios.all
            + SyncScenarios.all + ReceiptScenarios.all + BlobScenarios.all + RequestScenarios.all
            + ServerIdentityScenarios.all + ProfileScenarios.all
    }

    /// Runs the scenario on a server over `store`, then stops the server.
    func run(on store: any ChatStore) async throws {
        let server = try await TestServer.start(store: store, settings: settings)
        do {
            try await body(ChatHarness(server: server))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
