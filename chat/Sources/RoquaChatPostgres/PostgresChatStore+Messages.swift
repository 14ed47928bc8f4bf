import Foundation
import PostgresNIO
import RoquaChatCore
import RoquaChatServer

extension PostgresChatStore {
    package func push(_ items: [PreparedPush], uploader: Actor, now: Date) async throws -> PushResult {
        // Two instances inserting the same (author, local_id) into different groups at once: the
        // loser retries and then sees the winner's row (a replay or a conflict).
        var attempt = 0
        while true {
            do {
                return try await transaction { connection in try await push(connection, items, uploader: uploader, now: now) }
            } catch  where Self.isUniqueViolation(error) && attempt < 3 {
                attempt += 1
            }
        }
    }

    func push(_ connection: PostgresConnection, _ items: [PreparedPush], uploader: Actor, now: Date) async throws -> PushResult {
        // Lock the groups first, in id order: pushes to one group are serialized, so the
        // idempotency lookup below cannot miss a concurrent insert into the same group.
        let groupIDs = Array(Set(items.map(\.message.groupID))).sorted()
        var groups: [String: GroupRecord] = [:]
        for group in try await PostgresRows.all(
            try await connection.query(
                "SELECT * FROM tour_groups WHERE id = ANY(\(groupIDs)) ORDER BY id FOR UPDATE", logger: logger), PostgresRows.group)
        {
            groups[group.id] = group
        }
        var existing: [AuthorLocalID: ExistingMessage] = [:]
        for (authorID, keys) in Dictionary(grouping: items.map(\.key), by: \.authorID) {
            let localIDs = Array(Set(keys.map(\.localID)))
            let rows = try await connection.query(
                """
                SELECT local_id, group_id, server_id, seq, digest FROM messages
                WHERE sender_id = \(authorID) AND local_id = ANY(\(localIDs))
                """, logger: logger)
            for try await (localID, groupID, serverID, seq, digest) in rows.decode((String, String, String, Int64, Data).self) {
                existing[AuthorLocalID(authorID: authorID, localID: localID)] =
                    ExistingMessage(groupID: groupID, serverID: serverID, seq: seq, digest: digest)
            }
        }
        let userIDs = Array(Set(items.map(\.authorID) + [uploader.userID]))
        var memberships: [MembershipKey: MembershipRecord] = [:]
        for membership in try await PostgresRows.all(
            try await connection.query(
                "SELECT * FROM memberships WHERE group_id = ANY(\(groupIDs)) AND user_id = ANY(\(userIDs))", logger: logger),
            PostgresRows.membership)
        {
            memberships[MembershipKey(groupID: membership.groupID, userID: membership.userID)] = membership
        }
        let plan = PushPlanner.plan(
            items, uploader: uploader,
            snapshot: PushSnapshot(existing: existing, groups: groups, memberships: memberships), now: now)
        var lastSeqBefore: [String: Int64] = [:]
        for groupID in plan.groupsToAdvance {
            let count = Int64(plan.inserts[groupID]?.count ?? 0)
            try await connection.query("UPDATE tour_groups SET last_seq = last_seq + \(count) WHERE id = \(groupID)", logger: logger)
            lastSeqBefore[groupID] = groups[groupID]?.lastSeq ?? 0
        }
        let (rows, result) = plan.assign(lastSeqBefore: lastSeqBefore, syncTime: now)
        for row in rows { try await insert(connection, row) }
        return result
    }

    func insert(_ connection: PostgresConnection, _ row: StoredMessage) async throws {
        let message = row.message
        try await connection.query(
            """
            INSERT INTO messages (server_id, group_id, seq, sender_id, device_id, local_id, type, content, metadata,
                                  sent_at, order_at, received_at, key_epoch, signature, digest)
            VALUES (\(message.serverID), \(message.groupID), \(message.seq), \(message.senderID), \(message.deviceID),
                    \(message.localID), \(message.type.rawValue), \(message.content), \(try PostgresRows.metadataText(message.metadata)),
                    \(PostgresRows.ms(message.sentAt)), \(PostgresRows.ms(message.orderAt)), \(PostgresRows.ms(message.receivedAt)),
                    \(message.keyEpoch.map(Int64.init)), \(message.signature), \(row.digest))
            """, logger: logger)
    }

    package func messages(groupID: String, since: Int64, visibleAfter: Int64, upTo: Int64?, limit: Int) async throws -> [ChatMessage] {
        try await PostgresRows.all(
            try await client.query(
                """
                SELECT * FROM messages WHERE group_id = \(groupID) AND seq > \(since) AND seq <= \(upTo ?? Int64.max)
                  AND (seq > \(visibleAfter) OR type = 'control')
                ORDER BY seq LIMIT \(Int64(limit))
                """, logger: logger), PostgresRows.message)
    }

    package func receipts(groupID: String) async throws -> [ReceiptMark] {
        try await PostgresRows.all(
            try await client.query(
                "SELECT * FROM receipts WHERE group_id = \(groupID) ORDER BY user_id", logger: logger), PostgresRows.receipt)
    }

    package func mergeReceipt(groupID: String, userID: String, deliveredUpTo: Int64, readUpTo: Int64, now: Date) async throws -> ReceiptMark
    {
        let rows = try await client.query(
            """
            INSERT INTO receipts (group_id, user_id, delivered_up_to, read_up_to, updated_at)
            VALUES (\(groupID), \(userID), \(deliveredUpTo), \(readUpTo), \(PostgresRows.ms(now)))
            ON CONFLICT (group_id, user_id) DO UPDATE SET
                updated_at = CASE WHEN EXCLUDED.delivered_up_to > receipts.delivered_up_to OR EXCLUDED.read_up_to > receipts.read_up_to
                                  THEN EXCLUDED.updated_at ELSE receipts.updated_at END,
                delivered_up_to = GREATEST(receipts.delivered_up_to, EXCLUDED.delivered_up_to),
                read_up_to = GREATEST(receipts.read_up_to, EXCLUDED.read_up_to)
            RETURNING *
            """, logger: logger)
        guard let mark = try await PostgresRows.first(rows, PostgresRows.receipt) else {
            throw ChatStoreError.corruptRow(table: "receipts", reason: "the merged mark vanished")
        }
        return mark
    }

    package func putBlob(sha256: String, data: Data, uploadedBy: String, quota: Int64, now: Date) async throws -> BlobPutOutcome {
        try await transaction { connection in
            // One uploader's blobs are counted one upload at a time.
            try await connection.query("SELECT id FROM users WHERE id = \(uploadedBy) FOR UPDATE", logger: logger)
            let exists =
                try await PostgresRows.first(
                    try await connection.query(
                        "SELECT 1 FROM blobs WHERE sha256 = \(sha256)", logger: logger)
                ) { _ in true } ?? false
            if exists { return .existed }
            let used =
                try await PostgresRows.first(
                    try await connection.query(
                        "SELECT COALESCE(SUM(size), 0)::BIGINT FROM blobs WHERE uploaded_by = \(uploadedBy)", logger: logger)
                ) {
                    try $0[0].decode(Int64.self)
                } ?? 0
            guard used + Int64(data.count) <= quota else { return .overQuota(used: used) }
            try await connection.query(
                """
                INSERT INTO blobs (sha256, size, data, uploaded_by, created_at)
                VALUES (\(sha256), \(Int64(data.count)), \(data), \(uploadedBy), \(PostgresRows.ms(now)))
                ON CONFLICT (sha256) DO NOTHING
                """, logger: logger)
            return .created
        }
    }

    package func groupBlobBytes(groupID: String, adding digests: Set<String>) async throws -> (used: Int64, added: Int64) {
        let used =
            try await PostgresRows.first(
                try await client.query(
                    """
                    SELECT COALESCE(SUM(b.size), 0)::BIGINT FROM group_blobs g JOIN blobs b ON b.sha256 = g.sha256 WHERE g.group_id = \(groupID)
                    """, logger: logger)
            ) { try $0[0].decode(Int64.self) } ?? 0
        var added: Int64 = 0
        for digest in digests {
            added +=
                try await PostgresRows.first(
                    try await client.query(
                        """
                        SELECT size FROM blobs WHERE sha256 = \(digest)
                            AND NOT EXISTS (SELECT 1 FROM group_blobs WHERE group_id = \(groupID) AND sha256 = \(digest))
                        """, logger: logger)
                ) { try $0[0].decode(Int64.self) } ?? 0
        }
        return (used, added)
    }

    package func recordGroupBlobs(groupID: String, digests: Set<String>) async throws {
        for digest in digests {
            try await client.query(
                """
                INSERT INTO group_blobs (group_id, sha256) VALUES (\(groupID), \(digest)) ON CONFLICT DO NOTHING
                """, logger: logger)
        }
    }

    package func blobReadable(sha256: String, userID: String) async throws -> Bool {
        var readable = false
        for try await value in try await client.query(
            """
            SELECT EXISTS (SELECT 1 FROM blobs WHERE sha256 = \(sha256) AND uploaded_by = \(userID))
                OR EXISTS (SELECT 1 FROM memberships s JOIN messages m ON m.group_id = s.group_id
                           WHERE s.user_id = \(userID) AND s.removed_at IS NULL AND m.seq > s.visible_after_seq
                             AND m.type IN ('image', 'file') AND strpos(m.metadata, \(sha256)) > 0)
            """, logger: logger
        ).decode(Bool.self) {
            readable = value
        }
        return readable
    }

    package func blob(sha256: String) async throws -> Data? {
        var result: Data?
        for try await data in try await client.query("SELECT data FROM blobs WHERE sha256 = \(sha256)", logger: logger).decode(Data.self) {
            result = data
        }
        return result
    }
}
