import Foundation
import Logging
import RoquaChatCore
import RoquaChatPostgres
import Testing

@testable import RoquaChatServer

/// The same scenarios against a real, throwaway PostgreSQL, plus what only a shared database
/// allows: several server instances at once. Skipped with a reason when PostgreSQL is not installed.
@Suite(
    "Chat server over HTTP, PostgreSQL store",
    .enabled(
        if: PostgresFixture.isInstalled,
        "PostgreSQL is not installed (no initdb/pg_ctl under /usr/lib/postgresql/*/bin or $ROQUA_PG_BIN): apt-get install postgresql"))
struct PostgresScenarioTests {
    @Test("every scenario, each on a fresh database; two instances sharing one database")
    func everything() async throws {
        let fixture = try PostgresFixture.start(label: "roqua-chat-pg")
        defer { fixture.stop() }
        for (index, scenario) in Scenario.all.enumerated() {
            do {
                try await fixture.withStore(database: "scenario_\(index)") { store in try await scenario.run(on: store) }
            } catch {
                Issue.record("\(scenario.name): \(error)")
            }
        }
        try await twoInstances(fixture)
        try await upgradeKeepsUsersAndAddsNames(fixture)
    }

    /// A database of the previous version (5) migrates to display names: its users stay, with none.
    func upgradeKeepsUsersAndAddsNames(_ fixture: PostgresFixture) async throws {
        try fixture.createDatabase("upgrade")
        var logger = Logger(label: "roqua.chat.test.postgres")
        logger.logLevel = .error
        let store = PostgresChatStore(configuration: fixture.configuration(database: "upgrade"), logger: logger)
        let client = Task { await store.client.run() }
        defer { client.cancel() }
        try await store.migrate(upTo: 5)
        _ = try fixture.psql(
            database: "upgrade", ["-c", "INSERT INTO users (id, phone, role, created_at) VALUES ('old', '+905551234567', 'user', 0)"])
        try await store.migrate()
        let old = try await store.user(id: "old")
        #expect(old?.phone.e164 == "+905551234567" && old?.displayName == nil)
        #expect(try await store.setDisplayName(userID: "old", name: "Ayşe")?.displayName == "Ayşe")
        #expect(try await store.user(id: "old")?.displayName == "Ayşe")
        #expect(try await store.setDisplayName(userID: "nobody", name: "x") == nil)
    }

    /// Two servers on one database: pushes through both interleave without a lost or doubled
    /// message, and one (author, local_id) sent through both at once is stored once.
    func twoInstances(_ fixture: PostgresFixture) async throws {
        try await fixture.withStore(database: "two_instances") { store in
            let secret = ServerSecret.random()
            let first = try await TestServer.start(store: store, secret: secret)
            let second = try await TestServer.start(store: store, secret: secret)
            do {
                try await pushThroughBoth(first, second)
            } catch {
                await first.stop()
                await second.stop()
                throw error
            }
            await first.stop()
            await second.stop()
        }
    }

    func pushThroughBoth(_ first: TestServer, _ second: TestServer) async throws {
        let (guide, group, members) = try await ChatHarness(server: first).groupWithMembers(4)
        let through = [first, second].map { TestHTTP(baseURL: $0.baseURL) }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for (index, member) in members.enumerated() {
                let session = Session(http: through[index % 2], tokens: member.tokens, deviceID: member.deviceID)
                let other = Session(http: through[(index + 1) % 2], tokens: member.tokens, deviceID: member.deviceID)
                for chunk in 0..<5 {
                    let messages = (0..<20).map { textMessage("\(index)-\(chunk)-\($0)", group: group.id) }
                    tasks.addTask { _ = try await session.push(messages) }
                    tasks.addTask { _ = try await other.push(messages) }
                }
            }
            try await tasks.waitForAll()
        }
        let pulled = try await guide.pullAll(group.id)
        #expect(pulled.count == 400 && pulled.map(\.seq) == Array(1...400) && Set(pulled.map(\.localID)).count == 400)
        // The same id into two groups through both instances at once: exactly one is stored.
        let otherGroup = try await guide.createGroup("Second")
        _ = try await members[0].accept(try await guide.invite("+905551000000", to: otherGroup.id))
        let localID = UUIDv7.make()
        let viaSecond = Session(http: through[1], tokens: members[0].tokens, deviceID: "d")
        async let a = members[0].push([textMessage("x", group: group.id, localID: localID)])
        async let b = viaSecond.push([textMessage("x", group: otherGroup.id, localID: localID)])
        let results = try await [a, b]
        #expect(results.map(\.synced.count).sorted() == [0, 1])
        #expect(results.flatMap(\.rejected).map(\.reason) == [.conflict])
    }
}

@Suite("PostgreSQL URLs")
struct PostgresURLTests {
    @Test("URLs: user, password, port, database, sslmode, Unix sockets; passwords never shown")
    func urls() throws {
        _ = try PostgresURL.configuration("postgres://chat:s3cret@db.example:6543/roqua?sslmode=require")
        _ = try PostgresURL.configuration("postgresql:///roqua?host=/var/run/postgresql")
        #expect(throws: PostgresURLError.self) { try PostgresURL.configuration("mysql://x@y/z") }
        do {
            _ = try PostgresURL.configuration("postgres://chat:s3cret@db/roqua?sslmode=maybe")
            Issue.record("sslmode=maybe must be refused")
        } catch {
            #expect(!"\(error)".contains("s3cret") && "\(error)".contains("maybe"))
        }
    }
}
