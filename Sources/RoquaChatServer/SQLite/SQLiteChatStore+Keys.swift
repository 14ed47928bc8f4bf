import Foundation
import GRDB
import RoquaChatCore

extension SQLiteChatStore {
    package func setAgreementKey(userID: String, deviceID: String, key: Data, now: Date) async throws {
        try await pool.write { db in
            try db.execute(sql: """
                INSERT INTO device_agreement_keys (user_id, device_id, agreement_key, updated_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (user_id, device_id) DO UPDATE SET agreement_key = excluded.agreement_key, updated_at = excluded.updated_at
                """, arguments: [userID, deviceID, key, SQLiteRows.ms(now)])
        }
    }

    package func groupDevices(groupID: String) async throws -> [GroupDevice] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT k.user_id, k.device_id, k.agreement_key,
                       (SELECT MAX(g.epoch) FROM group_keys g
                        WHERE g.group_id = m.group_id AND g.user_id = k.user_id AND g.device_id = k.device_id) AS key_epoch
                FROM memberships m JOIN device_agreement_keys k ON k.user_id = m.user_id
                WHERE m.group_id = ? AND m.removed_at IS NULL ORDER BY k.user_id, k.device_id
                """, arguments: [groupID]).map { row in
                GroupDevice(userID: row["user_id"], deviceID: row["device_id"],
                            agreementKey: (row["agreement_key"] as Data).base64EncodedString(), keyEpoch: row["key_epoch"])
            }
        }
    }

    package func currentKeyEpoch(groupID: String) async throws -> Int {
        try await pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COALESCE(MAX(epoch), 0) FROM group_keys WHERE group_id = ?", arguments: [groupID]) ?? 0
        }
    }

    package func putGroupKeys(groupID: String, epoch: Int, entries: [WrappedKeyEntry], createdBy: String, now: Date) async throws -> Bool {
        try await pool.write { db in
            let current = try Int.fetchOne(db, sql: "SELECT COALESCE(MAX(epoch), 0) FROM group_keys WHERE group_id = ?",
                                           arguments: [groupID]) ?? 0
            guard epoch >= current else { return false }
            for entry in entries {
                try db.cachedStatement(sql: """
                    INSERT INTO group_keys (group_id, epoch, user_id, device_id, sealed, created_by, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                    """).execute(arguments: [groupID, epoch, entry.userID, entry.deviceID, entry.sealed, createdBy, SQLiteRows.ms(now)])
            }
            return true
        }
    }

    package func groupKeys(groupID: String, userID: String, deviceID: String) async throws -> [WrappedKeyEntry] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT epoch, sealed FROM group_keys WHERE group_id = ? AND user_id = ? AND device_id = ? ORDER BY epoch
                """, arguments: [groupID, userID, deviceID]).map { row in
                WrappedKeyEntry(userID: userID, deviceID: deviceID, epoch: row["epoch"], sealed: row["sealed"])
            }
        }
    }
}
