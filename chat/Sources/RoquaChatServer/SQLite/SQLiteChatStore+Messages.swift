import Foundation
import GRDB
import RoquaChatCore

extension SQLiteChatStore {
    package func push(_ items: [PreparedPush], uploader: Actor, now: Date) async throws -> PushResult {
        try await pool.write { db in
            let snapshot = try Self.pushSnapshot(db, items: items, uploader: uploader)
            let plan = PushPlanner.plan(items, uploader: uploader, snapshot: snapshot, now: now)
            var lastSeqBefore: [String: Int64] = [:]
            for groupID in plan.groupsToAdvance {
                let count = plan.inserts[groupID]?.count ?? 0
                let after =
                    try Int64.fetchOne(
                        db.cachedStatement(sql: "UPDATE tour_groups SET last_seq = last_seq + ? WHERE id = ? RETURNING last_seq"),
                        arguments: [count, groupID]) ?? Int64(count)
                lastSeqBefore[groupID] = after - Int64(count)
            }
            let (rows, result) = plan.assign(lastSeqBefore: lastSeqBefore, syncTime: now)
            for row in rows { try Self.insert(db, row) }
            return result
        }
    }

    static func pushSnapshot(_ db: Database, items: [PreparedPush], uploader: Actor) throws -> PushSnapshot {
        var existing: [AuthorLocalID: ExistingMessage] = [:]
        for (authorID, localIDs) in Dictionary(grouping: items.map(\.key), by: \.authorID) {
            let ids = Array(Set(localIDs.map(\.localID)))
            let rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT local_id, group_id, server_id, seq, digest FROM messages
                        WHERE sender_id = ? AND local_id IN (\(databaseQuestionMarks(count: ids.count)))
                        """), arguments: StatementArguments([authorID] + ids))
            for row in rows {
                existing[AuthorLocalID(authorID: authorID, localID: row["local_id"])] =
                    ExistingMessage(groupID: row["group_id"], serverID: row["server_id"], seq: row["seq"], digest: row["digest"])
            }
        }
        let groupIDs = Array(Set(items.map(\.message.groupID)))
        var groups: [String: GroupRecord] = [:]
        var memberships: [MembershipKey: MembershipRecord] = [:]
        let userIDs = Array(Set(items.map(\.authorID) + [uploader.userID]))
        for groupID in groupIDs {
            guard let group = try group(db, id: groupID) else { continue }
            groups[groupID] = group
            let rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM memberships WHERE group_id = ? AND user_id IN (\(databaseQuestionMarks(count: userIDs.count)))
                        """), arguments: StatementArguments([groupID] + userIDs))
            for row in rows {
                let membership = try SQLiteRows.membership(row)
                memberships[MembershipKey(groupID: groupID, userID: membership.userID)] = membership
            }
        }
        return PushSnapshot(existing: existing, groups: groups, memberships: memberships)
    }

    static func insert(_ db: Database, _ row: StoredMessage) throws {
        let message = row.message
        try db.cachedStatement(
            sql: """
                INSERT INTO messages (server_id, group_id, seq, sender_id, device_id, local_id, type, content, metadata,
                                      sent_at, order_at, received_at, key_epoch, signature, digest)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            message.serverID, message.groupID, message.seq, message.senderID, message.deviceID,
            message.localID, message.type.rawValue, message.content, try SQLiteRows.metadataText(message.metadata),
            SQLiteRows.ms(message.sentAt), SQLiteRows.ms(message.orderAt), SQLiteRows.ms(message.receivedAt),
            message.keyEpoch, message.signature, row.digest,
        ])
    }

    package func messages(groupID: String, since: Int64, visibleAfter: Int64, upTo: Int64?, limit: Int) async throws -> [ChatMessage] {
        try await pool.read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM messages WHERE group_id = ? AND seq > ? AND seq <= ? AND (seq > ? OR type = 'control') ORDER BY seq LIMIT ?
                        """), arguments: [groupID, since, upTo ?? Int64.max, visibleAfter, limit]
            ).map(SQLiteRows.message)
        }
    }

    package func receipts(groupID: String) async throws -> [ReceiptMark] {
        try await pool.read { db in
            try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM receipts WHERE group_id = ? ORDER BY user_id"), arguments: [groupID])
                .map(SQLiteRows.receipt)
        }
    }

    package func mergeReceipt(groupID: String, userID: String, deliveredUpTo: Int64, readUpTo: Int64, now: Date) async throws -> ReceiptMark
    {
        try await pool.write { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO receipts (group_id, user_id, delivered_up_to, read_up_to, updated_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (group_id, user_id) DO UPDATE SET
                        updated_at = CASE WHEN excluded.delivered_up_to > receipts.delivered_up_to
                                            OR excluded.read_up_to > receipts.read_up_to
                                          THEN excluded.updated_at ELSE receipts.updated_at END,
                        delivered_up_to = MAX(receipts.delivered_up_to, excluded.delivered_up_to),
                        read_up_to = MAX(receipts.read_up_to, excluded.read_up_to)
                    """
            ).execute(arguments: [groupID, userID, deliveredUpTo, readUpTo, SQLiteRows.ms(now)])
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM receipts WHERE group_id = ? AND user_id = ?"), arguments: [groupID, userID])
            guard let row else { throw ChatStoreError.corruptRow(table: "receipts", reason: "the merged mark vanished") }
            return SQLiteRows.receipt(row)
        }
    }

    package func putBlob(sha256: String, data: Data, uploadedBy: String, quota: Int64, now: Date) async throws -> BlobPutOutcome {
        try await pool.write { db in
            if try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM blobs WHERE sha256 = ?)"), arguments: [sha256])
                == true
            {
                return .existed
            }
            let used =
                try Int64.fetchOne(
                    db.cachedStatement(sql: "SELECT COALESCE(SUM(size), 0) FROM blobs WHERE uploaded_by = ?"),
                    arguments: [uploadedBy]) ?? 0
            guard used + Int64(data.count) <= quota else { return .overQuota(used: used) }
            try db.cachedStatement(
                sql: """
                    INSERT INTO blobs (sha256, size, data, uploaded_by, created_at) VALUES (?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [sha256, data.count, data, uploadedBy, SQLiteRows.ms(now)])
            return .created
        }
    }

    package func groupBlobBytes(groupID: String, adding digests: Set<String>) async throws -> (used: Int64, added: Int64) {
        try await pool.read { db in
            let used =
                try Int64.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT COALESCE(SUM(b.size), 0) FROM group_blobs g JOIN blobs b ON b.sha256 = g.sha256 WHERE g.group_id = ?
                            """), arguments: [groupID]) ?? 0
            var added: Int64 = 0
            for digest in digests {
                added +=
                    try Int64.fetchOne(
                        db.cachedStatement(
                            sql: """
                                SELECT size FROM blobs WHERE sha256 = ?1
                                    AND NOT EXISTS (SELECT 1 FROM group_blobs WHERE group_id = ?2 AND sha256 = ?1)
                                """), arguments: [digest, groupID]) ?? 0
            }
            return (used, added)
        }
    }

    package func recordGroupBlobs(groupID: String, digests: Set<String>) async throws {
        try await pool.write { db in
            for digest in digests {
                try db.cachedStatement(sql: "INSERT OR IGNORE INTO group_blobs (group_id, sha256) VALUES (?, ?)").execute(
                    arguments: [groupID, digest])
            }
        }
    }

    package func blobReadable(sha256: String, userID: String) async throws -> Bool {
        try await pool.read { db in
            try Bool.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT EXISTS (SELECT 1 FROM blobs WHERE sha256 = ?1 AND uploaded_by = ?2)
                            OR EXISTS (SELECT 1 FROM memberships s JOIN messages m ON m.group_id = s.group_id
                                       WHERE s.user_id = ?2 AND s.removed_at IS NULL AND m.seq > s.visible_after_seq
                                         AND m.type IN ('image', 'file') AND instr(m.metadata, ?1) > 0)
                        """), arguments: [sha256, userID]) ?? false
        }
    }

    package func blob(sha256: String) async throws -> Data? {
        try await pool.read { db in
            try Data.fetchOne(db.cachedStatement(sql: "SELECT data FROM blobs WHERE sha256 = ?"), arguments: [sha256])
        }
    }
}
