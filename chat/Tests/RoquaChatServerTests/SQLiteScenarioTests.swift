import Foundation
import RoquaChatCore
import Testing

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

    @Test("the server's database (accounts, phone numbers, messages) and its new folder are the owner's only")
    func privateFiles() async throws {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let path = directory.file("server/data/chat.sqlite")
        let previous = umask(0o022)
        defer { umask(previous) }
        // Open while looking: closing the last connection folds the -wal and -shm away.
        let store = try SQLiteChatStore(path: path)
        _ = try await store.setRole(phone: .init("+905551112233"), role: .admin, now: ChatTime.rounded(Date()))
        var info = stat()
        for file in [path, path + "-wal", path + "-shm"] {
            #expect(stat(file, &info) == 0 && info.st_mode & 0o777 == 0o600, "\(file)")
        }
        withExtendedLifetime(store) {}
        #expect(stat(directory.file("server/data"), &info) == 0 && info.st_mode & 0o777 == 0o700)
    }

    @Test("an unusable path is a typed error naming it")
    func cannotOpen() throws {
        #expect(throws: ChatStoreError.self) { try SQLiteChatStore(path: "/proc/no/such/dir/chat.sqlite") }
    }
}
