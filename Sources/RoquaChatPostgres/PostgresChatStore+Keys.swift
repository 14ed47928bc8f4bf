import Foundation
import PostgresNIO
import RoquaChatCore
import RoquaChatServer

extension PostgresChatStore {
    package func setAgreementKey(userID: String, deviceID: String, key: Data, now: Date) async throws {
        try await client.query("""
            INSERT INTO device_agreement_keys (user_id, device_id, agreement_key, updated_at)
            VALUES (\(userID), \(deviceID), \(key), \(PostgresRows.ms(now)))
            ON CONFLICT (user_id, device_id) DO UPDATE SET agreement_key = EXCLUDED.agreement_key, updated_at = EXCLUDED.updated_at
            """, logger: logger)
    }

    package func groupDevices(groupID: String) async throws -> [GroupDevice] {
        try await PostgresRows.all(try await client.query("""
            SELECT k.user_id, k.device_id, k.agreement_key,
                   (SELECT MAX(g.epoch) FROM group_keys g
                    WHERE g.group_id = m.group_id AND g.user_id = k.user_id AND g.device_id = k.device_id) AS key_epoch
            FROM memberships m JOIN device_agreement_keys k ON k.user_id = m.user_id
            WHERE m.group_id = \(groupID) AND m.removed_at IS NULL ORDER BY k.user_id, k.device_id
            """, logger: logger)) { row in
            GroupDevice(userID: try row["user_id"].decode(String.self), deviceID: try row["device_id"].decode(String.self),
                        agreementKey: try row["agreement_key"].decode(Data.self).base64EncodedString(),
                        keyEpoch: try row["key_epoch"].decode(Int64?.self).map(Int.init))
        }
    }

    package func currentKeyEpoch(groupID: String) async throws -> Int {
        try await PostgresRows.first(try await client.query(
            "SELECT COALESCE(MAX(epoch), 0) AS epoch FROM group_keys WHERE group_id = \(groupID)", logger: logger)) { row in
            Int(try row["epoch"].decode(Int64.self))
        } ?? 0
    }

    package func putGroupKeys(groupID: String, epoch: Int, entries: [WrappedKeyEntry], createdBy: String, now: Date) async throws -> Bool {
        try await transaction { connection in
            // The group row lock orders concurrent rotations of one group.
            _ = try await group(connection, id: groupID, lock: true)
            let current = try await PostgresRows.first(try await connection.query(
                "SELECT COALESCE(MAX(epoch), 0) AS epoch FROM group_keys WHERE group_id = \(groupID)", logger: logger)) { row in
                Int(try row["epoch"].decode(Int64.self))
            } ?? 0
            guard epoch >= current else { return false }
            for entry in entries {
                try await connection.query("""
                    INSERT INTO group_keys (group_id, epoch, user_id, device_id, sealed, created_by, created_at)
                    VALUES (\(groupID), \(Int64(epoch)), \(entry.userID), \(entry.deviceID), \(entry.sealed), \(createdBy), \(PostgresRows.ms(now)))
                    ON CONFLICT DO NOTHING
                    """, logger: logger)
            }
            return true
        }
    }

    package func groupKeys(groupID: String, userID: String, deviceID: String) async throws -> [WrappedKeyEntry] {
        try await PostgresRows.all(try await client.query("""
            SELECT epoch, sealed FROM group_keys WHERE group_id = \(groupID) AND user_id = \(userID) AND device_id = \(deviceID)
            ORDER BY epoch
            """, logger: logger)) { row in
            WrappedKeyEntry(userID: userID, deviceID: deviceID, epoch: Int(try row["epoch"].decode(Int64.self)),
                            sealed: try row["sealed"].decode(String.self))
        }
    }
}
