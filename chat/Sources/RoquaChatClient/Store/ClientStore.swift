import Foundation
import GRDB
import RoquaChatCore
import RoquaIO

/// The outgoing or incoming wire form of a message plus what this device knows about it.
struct StoredRecord: Sendable {
    var wire: PushMessage
    var senderID: String
    var body: String?
    var hlc: HLCTimestamp
    var status: MessageStatus
    var serverID: String?
    var seq: Int64?
    var syncedAt: Date?
    var hops = 0

    /// The author device's counter in the group, from the signed metadata.
    var counter: Int64? { wire.metadata?["n"]?.doubleValue.map { Int64($0) } }
}

/// The device's local store: one SQLite file in WAL mode through GRDB. Every change is one
/// transaction, so a message is on disk (message row and outbox row together) once `send`
/// returns, and a pull page is stored with its cursor or not at all.
final class ClientStore: Sendable {
    let path: String
    let pool: DatabasePool

    /// - Throws: `ChatClientError.store` naming the path.
    init(path: String) throws {
        self.path = path
        var config = Configuration()
        config.busyMode = .timeout(10)
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA foreign_keys = ON")
            // Deleted key material is overwritten, not left in free pages.
            try db.execute(sql: "PRAGMA secure_delete = ON")
        }
        do {
            try PrivateFiles.createIfMissing(path)  // its -wal and -shm take its 0600
            pool = try DatabasePool(path: path, configuration: config)
            try ClientSchema.migrator.migrate(pool)
        } catch let error as DatabaseError {
            throw ChatClientError.store(path: path, reason: error.message ?? "\(error.resultCode)")
        } catch {
            throw ChatClientError.store(path: path, reason: "\(error)")
        }
    }

    func write<T: Sendable>(_ work: @Sendable (Database) throws -> T) throws -> T {
        do { return try pool.write(work) } catch let error as DatabaseError {
            throw ChatClientError.store(path: path, reason: error.message ?? "\(error.resultCode)")
        }
    }

    func read<T: Sendable>(_ work: @Sendable (Database) throws -> T) throws -> T {
        do { return try pool.read(work) } catch let error as DatabaseError {
            throw ChatClientError.store(path: path, reason: error.message ?? "\(error.resultCode)")
        }
    }

    // MARK: Messages

    static func insert(_ record: StoredRecord, into db: Database) throws -> Bool {
        let wire = record.wire
        let metadata = try wire.metadata.map { String(decoding: try $0.canonicalData(), as: UTF8.self) }
        try db.execute(
            sql: """
                INSERT INTO messages (sender_id, local_id, device_id, group_id, type, body, content, metadata, signature,
                                      sent_at, hlc, key_epoch, status, status_rank, server_id, seq, synced_at, counter, hops)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (sender_id, local_id) DO NOTHING
                """,
            arguments: [
                record.senderID, wire.localID, wire.deviceID ?? "", wire.groupID, wire.type.rawValue,
                record.body, wire.content, metadata, wire.signature ?? "", ChatTime.milliseconds(wire.sentAt),
                record.hlc.description, wire.keyEpoch ?? 0, record.status.rawValue, record.status.rank,
                record.serverID, record.seq, record.syncedAt.map(ChatTime.milliseconds), record.counter, record.hops,
            ])
        return db.changesCount > 0
    }

    /// Stores a message and queues it for the server, in one transaction: this device's own
    /// messages, and messages peers relayed (any member may upload them). False when it was
    /// held already (nothing changes then).
    @discardableResult
    func insertOutgoing(_ record: StoredRecord, now: Date) throws -> Bool {
        try write { db in
            guard try Self.insert(record, into: db) else { return false }
            try Self.enqueue(record, in: db, now: now)
            return true
        }
    }

    /// Queues a stored message for the server.
    static func enqueue(_ record: StoredRecord, in db: Database, now: Date = Date()) throws {
        try db.execute(
            sql: "INSERT INTO outbox (sender_id, local_id, enqueued_at) VALUES (?, ?, ?)",
            arguments: [record.senderID, record.wire.localID, ChatTime.milliseconds(now)])
    }

    /// The next counter of this device in the group, inside a transaction.
    static func nextCounter(groupID: String, senderID: String, deviceID: String, in db: Database) throws -> Int64 {
        (try Int64.fetchOne(
            db, sql: "SELECT MAX(counter) FROM messages WHERE group_id = ? AND sender_id = ? AND device_id = ?",
            arguments: [groupID, senderID, deviceID]) ?? 0) + 1
    }

    /// The next counter of this device in the group (1 for its first message there).
    func nextCounter(groupID: String, senderID: String, deviceID: String) throws -> Int64 {
        try read { db in try Self.nextCounter(groupID: groupID, senderID: senderID, deviceID: deviceID, in: db) }
    }

    /// Up to `limit` queued messages, oldest first, as they go on the wire.
    func pendingBatch(limit: Int) throws -> [PushMessage] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT m.* FROM outbox o JOIN messages m ON m.sender_id = o.sender_id AND m.local_id = o.local_id
                    ORDER BY o.enqueued_at, m.hlc LIMIT ?
                    """, arguments: [limit]
            ).map(Self.wire)
        }
    }

    func pendingCount() throws -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox") ?? 0 }
    }

    /// Applies a push result: held messages leave the outbox as `sent`; refused ones as `failed`.
    func applyPush(_ result: PushResult, pushed: [PushMessage]) throws {
        try write { db in
            let senders = Dictionary(pushed.map { ($0.localID, $0.senderID ?? "") }, uniquingKeysWith: { first, _ in first })
            for synced in result.synced {
                let sender = senders[synced.localID] ?? ""
                try db.execute(
                    sql: """
                        UPDATE messages SET server_id = ?, seq = ?, synced_at = ?,
                            status = CASE WHEN status_rank < 1 THEN 'sent' ELSE status END, status_rank = MAX(status_rank, 1)
                        WHERE sender_id = ? AND local_id = ?
                        """, arguments: [synced.serverID, synced.seq, ChatTime.milliseconds(result.syncTime), sender, synced.localID])
                try db.execute(sql: "DELETE FROM outbox WHERE sender_id = ? AND local_id = ?", arguments: [sender, synced.localID])
            }
            for rejected in result.rejected {
                let sender = senders[rejected.localID] ?? ""
                try db.execute(
                    sql: "UPDATE messages SET status = 'failed', failure = ? WHERE sender_id = ? AND local_id = ? AND status = 'pending'",
                    arguments: [rejected.reason.rawValue, sender, rejected.localID])
                try db.execute(sql: "DELETE FROM outbox WHERE sender_id = ? AND local_id = ?", arguments: [sender, rejected.localID])
            }
        }
    }

    /// Counts a failed attempt on every queued message (they stay queued).
    func notePushFailure(_ reason: String) throws {
        try write { db in try db.execute(sql: "UPDATE outbox SET attempts = attempts + 1, last_error = ?", arguments: [reason]) }
    }

    /// Puts a `failed` message back in the outbox.
    /// - Returns: whether there was such a message.
    func retry(senderID: String, localID: String, now: Date) throws -> Bool {
        try write { db in
            try db.execute(
                sql: "UPDATE messages SET status = 'pending', failure = NULL WHERE sender_id = ? AND local_id = ? AND status = 'failed'",
                arguments: [senderID, localID])
            guard db.changesCount > 0 else { return false }
            try db.execute(
                sql: "INSERT INTO outbox (sender_id, local_id, enqueued_at) VALUES (?, ?, ?)",
                arguments: [senderID, localID, ChatTime.milliseconds(now)])
            return true
        }
    }

    /// A group's messages in hybrid-logical-clock order (ties: author, then id).
    func messages(groupID: String) throws -> [ClientMessage] {
        try read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM messages WHERE group_id = ? AND type != 'control' ORDER BY hlc, sender_id, local_id",
                arguments: [groupID]
            ).map(Self.message)
        }
    }

    /// One message of a group by its `local_id`.
    func message(groupID: String, localID: String) throws -> ClientMessage? {
        try read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM messages WHERE group_id = ? AND local_id = ? AND type != 'control' ORDER BY hlc, sender_id LIMIT 1",
                arguments: [groupID, localID]
            ).map(Self.message)
        }
    }

    static func wire(_ row: Row) throws -> PushMessage {
        let metadataText: String? = row["metadata"]
        let metadata = try metadataText.map { try CheckedJSONDecoder().decode(JSONValue.self, from: Data($0.utf8)) }
        let deviceID: String = row["device_id"]
        return PushMessage(
            localID: row["local_id"], groupID: row["group_id"],
            type: MessageType(rawValue: row["type"]) ?? .text, content: row["content"],
            sentAt: ChatTime.date(milliseconds: row["sent_at"]), metadata: metadata, senderID: row["sender_id"],
            deviceID: deviceID, keyEpoch: epoch(row), signature: row["signature"])
    }

    /// A control message has no epoch; the column stores it as 0 (epochs start at 1).
    static func epoch(_ row: Row) -> Int? {
        let epoch: Int = row["key_epoch"]
        return epoch == 0 ? nil : epoch
    }

    static func message(_ row: Row) -> ClientMessage {
        let synced: Int64? = row["synced_at"]
        return ClientMessage(
            localID: row["local_id"], groupID: row["group_id"], senderID: row["sender_id"], deviceID: row["device_id"],
            type: MessageType(rawValue: row["type"]) ?? .text, body: row["body"],
            sentAt: ChatTime.date(milliseconds: row["sent_at"]), hlc: row["hlc"], keyEpoch: row["key_epoch"],
            status: MessageStatus(rawValue: row["status"]) ?? .pending, seq: row["seq"],
            syncedAt: synced.map { ChatTime.date(milliseconds: $0) }, failure: row["failure"])
    }
}
