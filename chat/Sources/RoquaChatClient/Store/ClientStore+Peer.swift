import Foundation
import GRDB
import RoquaChatCore

extension ClientStore {
    /// Per author device, the highest counter up to which every message of the group is held.
    func summary(groupID: String) throws -> [String: Int64] {
        try read { db in
            var counters: [String: [Int64]] = [:]
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT sender_id, device_id, counter FROM messages WHERE group_id = ? AND counter IS NOT NULL
                    ORDER BY sender_id, device_id, counter
                    """, arguments: [groupID])
            {
                let key = (row["sender_id"] as String) + "/" + (row["device_id"] as String)
                counters[key, default: []].append(row["counter"])
            }
            return counters.mapValues { values in
                var unbroken: Int64 = 0
                for value in values where value == unbroken + 1 { unbroken = value }
                return unbroken
            }
        }
    }

    /// Messages of the group a peer with `unbroken` lacks (counter above its mark), that may
    /// still be relayed (`hops` below `maxHops`), oldest first.
    func messages(groupID: String, above unbroken: [String: Int64], maxHops: Int) throws -> [(wire: PushMessage, hops: Int)] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM messages WHERE group_id = ? AND counter IS NOT NULL AND hops < ? ORDER BY sender_id, device_id, counter
                    """, arguments: [groupID, maxHops]
            ).compactMap { row in
                let key = (row["sender_id"] as String) + "/" + (row["device_id"] as String)
                guard (row["counter"] as Int64) > (unbroken[key] ?? 0) else { return nil }
                return (try Self.wire(row), row["hops"])
            }
        }
    }

    func holds(senderID: String, localID: String) throws -> Bool {
        try read { db in
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM messages WHERE sender_id = ? AND local_id = ?)",
                arguments: [senderID, localID]) ?? false
        }
    }
}
