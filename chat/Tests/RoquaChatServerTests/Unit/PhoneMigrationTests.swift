import Foundation
import GRDB
import RoquaChatCore
import Testing

@testable import RoquaChatServer

@Suite("Accounts stored under a number with a trunk 0 after the country code")
struct PhoneMigrationTests {
    @Test("the plan renames to the normalized number unless that account exists already")
    func plan() {
        let plan = PhoneRenormalization.plan([
            (id: "a", phone: "+9005551234567"), (id: "b", phone: "+905559876543"),
            (id: "c", phone: "+9005552223344"), (id: "d", phone: "+905552223344"),
            (id: "e", phone: "+390612345678"),
        ])
        #expect(plan.renames == [PhoneRenormalization.Rename(userID: "a", from: "+9005551234567", to: "+905551234567")])
        #expect(plan.left == 1, "c collides with d and is left")
    }

    @Test("upgrading a store: the old account answers to the normalized number, with its invites; a collision is left")
    func upgrade() async throws {
        let directory = NSTemporaryDirectory() + "roqua-chat-phones-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/chat.sqlite"
        do {
            let pool = try DatabasePool(path: path)
            try SQLiteSchema.migrator.migrate(pool, upTo: "v4: sign-in codes bound to their request; attachments per group")
            try await pool.write { db in
                for (id, phone) in [("old", "+9005551234567"), ("twin-old", "+9005552223344"), ("twin", "+905552223344")] {
                    try db.execute(sql: "INSERT INTO users (id, phone, role, created_at) VALUES (?, ?, 'user', 0)", arguments: [id, phone])
                }
                try db.execute(sql: "INSERT INTO tour_groups (id, name, guide_id, created_at, last_seq) VALUES ('g', 'Efes', 'twin', 0, 0)")
                try db.execute(
                    sql: """
                        INSERT INTO invites (code_hash, group_id, phone, created_by, created_at, expires_at)
                        VALUES ('h', 'g', '+9005551234567', 'twin', 0, 9999999999999)
                        """)
            }
        }
        let store = try SQLiteChatStore(path: path)
        #expect(try await store.user(phone: try PhoneNumber("+90 555 123 45 67"))?.id == "old")
        #expect(try await store.user(phone: try PhoneNumber("+905552223344"))?.id == "twin")
        let invited = try await store.signIn(phone: try PhoneNumber("+90 0555 123 45 67"), deviceID: "phone", publicKey: nil, now: Date())
        #expect(invited.id == "old", "signing in with either form reaches the same account")
        let invitePhone = try await DatabasePool(path: path).read { try String.fetchOne($0, sql: "SELECT phone FROM invites") }
        #expect(invitePhone == "+905551234567", "the pending invite follows its number")
        // v6 on the same old store: users stay, without a display name until they set one.
        #expect(try await store.user(id: "twin")?.displayName == nil)
        #expect(try await store.setDisplayName(userID: "twin", name: "Ayşe")?.displayName == "Ayşe")
        #expect(try await store.members(groupID: "g").isEmpty)
        #expect(try await store.user(phone: try PhoneNumber("+905552223344"))?.displayName == "Ayşe")
        #expect(try await store.setDisplayName(userID: "nobody", name: "x") == nil)
    }
}
