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
    /// - Returns: how many messages were new here.
    func applyPull(groupID: String, records: [StoredRecord], receipts: [ReceiptMark], nextSince: Int64, selfID: String) throws -> Int {
        try write { db in
            var added = 0
            for record in records {
                if try Self.insert(record, into: db) {
                    added += 1
                } else {
                    try db.execute(sql: """
                        UPDATE messages SET server_id = ?, seq = ?, synced_at = COALESCE(synced_at, ?),
                            status = CASE WHEN status_rank < 1 THEN 'sent' ELSE status END, status_rank = MAX(status_rank, 1)
                        WHERE sender_id = ? AND local_id = ?
                        """, arguments: [record.serverID, record.seq, record.syncedAt.map(ChatTime.milliseconds),
                                         record.senderID, record.wire.localID])
                    try db.execute(sql: "DELETE FROM outbox WHERE sender_id = ? AND local_id = ?", arguments: [record.senderID, record.wire.localID])
                }
            }
            for mark in receipts {
                try db.execute(sql: """
                    INSERT INTO receipts (group_id, user_id, delivered_up_to, read_up_to, updated_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (group_id, user_id) DO UPDATE SET
                        delivered_up_to = MAX(delivered_up_to, excluded.delivered_up_to),
                        read_up_to = MAX(read_up_to, excluded.read_up_to), updated_at = excluded.updated_at
                    """, arguments: [mark.groupID, mark.userID, mark.deliveredUpTo, mark.readUpTo, ChatTime.milliseconds(mark.updatedAt)])
                guard mark.userID != selfID else { continue }
                for (status, upTo) in [(MessageStatus.delivered, mark.deliveredUpTo), (.read, mark.readUpTo)] {
                    try db.execute(sql: """
                        UPDATE messages SET status = ?, status_rank = ?
                        WHERE group_id = ? AND sender_id = ? AND seq IS NOT NULL AND seq <= ? AND status_rank < ?
                        """, arguments: [status.rawValue, status.rank, groupID, selfID, upTo, status.rank])
                }
            }
            try db.execute(sql: """
                INSERT INTO cursors (group_id, since) VALUES (?, ?)
                ON CONFLICT (group_id) DO UPDATE SET since = MAX(since, excluded.since)
                """, arguments: [groupID, nextSince])
            return added
        }
    }

    // MARK: Groups and keys

    func saveGroups(_ groups: [GroupInfo]) throws {
        try write { db in
            for group in groups {
                try db.execute(sql: """
                    INSERT INTO groups (id, name, guide_id) VALUES (?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET name = excluded.name, guide_id = excluded.guide_id
                    """, arguments: [group.id, group.name, group.guideID])
            }
        }
    }

    func groupIDs() throws -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT id FROM groups ORDER BY id") }
    }

    func saveGroupKey(_ key: GroupKey, now: Date) throws {
        try write { db in
            try db.execute(sql: "INSERT INTO group_keys (group_id, epoch, key, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                           arguments: [key.groupID, key.epoch, key.rawBytes, ChatTime.milliseconds(now)])
        }
    }

    /// The key of `epoch`, or the newest held when `epoch` is nil.
    func groupKey(groupID: String, epoch: Int?) throws -> GroupKey? {
        try read { db in
            let row = if let epoch {
                try Row.fetchOne(db, sql: "SELECT epoch, key FROM group_keys WHERE group_id = ? AND epoch = ?", arguments: [groupID, epoch])
            } else {
                try Row.fetchOne(db, sql: "SELECT epoch, key FROM group_keys WHERE group_id = ? ORDER BY epoch DESC LIMIT 1", arguments: [groupID])
            }
            return row.map { GroupKey(groupID: groupID, epoch: $0["epoch"], key: .init(data: $0["key"] as Data)) }
        }
    }
}

extension ClientStore {
    /// Decrypts stored bodies that arrived before their epoch's key; returns how many opened.
    func openWaitingBodies(groupID: String) throws -> Int {
        try write { db in
            var opened = 0
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM messages WHERE group_id = ? AND body IS NULL", arguments: [groupID])
            for row in rows {
                let wire = try Self.wire(row)
                guard let epoch = wire.keyEpoch,
                      let keyRow = try Row.fetchOne(db, sql: "SELECT key FROM group_keys WHERE group_id = ? AND epoch = ?",
                                                    arguments: [groupID, epoch]) else { continue }
                let key = GroupKey(groupID: groupID, epoch: epoch, key: .init(data: keyRow["key"] as Data))
                let sender: String = row["sender_id"]
                // A body that still does not open stays unreadable; it is kept as the server holds it.
                guard let plain = try? GroupCipher.open(wire.content, key: key, senderID: sender, localID: wire.localID, type: wire.type) else { continue }
                try db.execute(sql: "UPDATE messages SET body = ? WHERE sender_id = ? AND local_id = ?",
                               arguments: [String(decoding: plain, as: UTF8.self), sender, wire.localID])
                opened += 1
            }
            return opened
        }
    }
}

extension ClientStore {
    /// The ids of the groups known here whose name is `name` (names need not be unique).
    func groupIDs(named name: String) throws -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT id FROM groups WHERE name = ? ORDER BY id", arguments: [name]) }
    }
}
