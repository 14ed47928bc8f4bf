import Foundation
import GRDB
import RoquaChatCore

extension ClientStore {
    // MARK: Pull

    func cursor(groupID: String) throws -> Int64 {
        try read { db in try Int64.fetchOne(db, sql: "SELECT since FROM cursors WHERE group_id = ?", arguments: [groupID]) ?? 0 }
    }

    /// Stores one pull page with its cursor in one transaction: new messages are added, this
    /// device's own messages are confirmed, and receipt marks of other members move own
    /// messages to `delivered` / `read`.
    /// - Returns: how many messages were new here (log entries and join requests are counted in the intake).
    /// Every new message passes `MessageIntake` (verified against the group log, or dropped).
    func applyPull(
        groupID: String, records: [StoredRecord], receipts: [ReceiptMark], nextSince: Int64, selfID: String,
        identity: DeviceIdentity
    ) throws -> (added: Int, intake: IntakeContext) {
        try write { db in
            var added = 0
            var intake = IntakeContext(identity: identity)
            for record in records {
                let outcome = try MessageIntake.take(record, queue: false, context: &intake, in: db)
                if outcome == .stored {
                    if record.wire.type == .control { intake.logEntries += 1 } else { added += 1 }
                } else if outcome == .duplicate {
                    try db.execute(
                        sql: """
                            UPDATE messages SET server_id = ?, seq = ?, synced_at = COALESCE(synced_at, ?),
                                status = CASE WHEN status_rank < 1 THEN 'sent' ELSE status END, status_rank = MAX(status_rank, 1)
                            WHERE sender_id = ? AND local_id = ? AND signature = ?
                            """,
                        arguments: [
                            record.serverID, record.seq, record.syncedAt.map(ChatTime.milliseconds),
                            record.senderID, record.wire.localID, record.wire.signature ?? "",
                        ])
                    // Only the message held here, byte for byte signed, is confirmed by the server.
                    if db.changesCount > 0 {
                        try db.execute(
                            sql: "DELETE FROM outbox WHERE sender_id = ? AND local_id = ?",
                            arguments: [record.senderID, record.wire.localID])
                    }
                }
            }
            for mark in receipts {
                try db.execute(
                    sql: """
                        INSERT INTO receipts (group_id, user_id, delivered_up_to, read_up_to, updated_at) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT (group_id, user_id) DO UPDATE SET
                            delivered_up_to = MAX(delivered_up_to, excluded.delivered_up_to),
                            read_up_to = MAX(read_up_to, excluded.read_up_to), updated_at = excluded.updated_at
                        """,
                    arguments: [mark.groupID, mark.userID, mark.deliveredUpTo, mark.readUpTo, ChatTime.milliseconds(mark.updatedAt)])
                guard mark.userID != selfID else { continue }
                for (status, upTo) in [(MessageStatus.delivered, mark.deliveredUpTo), (.read, mark.readUpTo)] {
                    try db.execute(
                        sql: """
                            UPDATE messages SET status = ?, status_rank = ?
                            WHERE group_id = ? AND sender_id = ? AND seq IS NOT NULL AND seq <= ? AND status_rank < ?
                            """, arguments: [status.rawValue, status.rank, groupID, selfID, upTo, status.rank])
                }
            }
            try db.execute(
                sql: """
                    INSERT INTO cursors (group_id, since) VALUES (?, ?)
                    ON CONFLICT (group_id) DO UPDATE SET since = MAX(since, excluded.since)
                    """, arguments: [groupID, nextSince])
            return (added, intake)
        }
    }

    // MARK: Groups

    func saveGroups(_ groups: [GroupInfo]) throws {
        try write { db in
            for group in groups {
                try db.execute(
                    sql: """
                        INSERT INTO groups (id, name, guide_id) VALUES (?, ?, ?)
                        ON CONFLICT (id) DO UPDATE SET name = excluded.name, guide_id = excluded.guide_id
                        """, arguments: [group.id, group.name, group.guideID])
            }
        }
    }

    func groupIDs() throws -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT id FROM groups ORDER BY id") }
    }
}

extension ClientStore {
    /// The ids of the groups known here whose name is `name` (names need not be unique).
    func groupIDs(named name: String) throws -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT id FROM groups WHERE name = ? ORDER BY id", arguments: [name]) }
    }
}

/// A group made before group logs (by a client of then): no log entry here, yet messages that
/// are not log entries — impossible for a group made since, whose `create` comes before any
/// message anyone can send.
public struct GroupBeforeLog: Sendable, Equatable {
    public var id: String
    public var name: String
}

extension ClientStore {
    /// The groups held here that were made before group logs; they can never be read or written
    /// end to end, only re-created.
    func groupsBeforeLog() throws -> [GroupBeforeLog] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, name FROM groups g
                    WHERE NOT EXISTS (SELECT 1 FROM group_log l WHERE l.group_id = g.id)
                      AND EXISTS (SELECT 1 FROM messages m WHERE m.group_id = g.id AND m.type <> 'control')
                    ORDER BY name, id
                    """
            ).map { GroupBeforeLog(id: $0["id"], name: $0["name"]) }
        }
    }
}
