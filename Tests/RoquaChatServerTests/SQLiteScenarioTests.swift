import Foundation
import Testing
import RoquaChatCore
@testable import RoquaChatServer

/// Every scenario against the embedded SQLite store, each on a fresh file.
@Suite("Chat server over HTTP, SQLite store")
struct SQLiteScenarioTests {
    @Test(arguments: Scenario.all)
    func scenario(_ scenario: Scenario) async throws {
        let directory = try TempDirectory()
        defer { directory.remove() }
        try await scenario.run(on: try SQLiteChatStore(path: directory.file("chat.sqlite")))
    }

    @Test("the store survives reopening: migrations run once, data stays")
    func reopen() async throws {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let path = directory.file("chat.sqlite")
        let user = try await SQLiteChatStore(path: path).setRole(phone: .init("+905551112233"), role: .admin, now: ChatTime.rounded(Date()))
        let reopened = try SQLiteChatStore(path: path)
        #expect(try await reopened.user(phone: .init("+905551112233")) == user)
    }

    @Test("an unusable path is a typed error naming it")
    func cannotOpen() throws {
        #expect(throws: ChatStoreError.self) { try SQLiteChatStore(path: "/proc/no/such/dir/chat.sqlite") }
    }
}
