import Crypto
import Foundation
import GRDB
import RoquaChatCore

extension ClientStore {
    // MARK: Group log

    /// The group as its stored (verified) log says.
    func logState(groupID: String) throws -> GroupLogState {
        try read { db in try Self.logState(groupID: groupID, in: db) }
    }

    static func logState(groupID: String, in db: Database) throws -> GroupLogState {
        var state = GroupLogState(groupID: groupID)
        for text in try String.fetchAll(db, sql: "SELECT signed FROM group_log WHERE group_id = ? ORDER BY seq", arguments: [groupID]) {
            // Entries were verified before they were stored; a row that no longer applies means the file was edited.
            guard let signed = try? SignedStatement(content: text), (try? state.apply(signed, checkSignatures: false)) != nil else {
                throw ChatClientError.store(path: "group_log", reason: "entry \(state.seq + 1) of group \(groupID) no longer applies")
            }
        }
        return state
    }

    static func appendLog(_ signed: SignedStatement, seq: Int, hash: String, groupID: String, in db: Database) throws {
        try db.execute(
            sql: "INSERT INTO group_log (group_id, seq, hash, signed) VALUES (?, ?, ?, ?)",
            arguments: [groupID, seq, hash, try signed.content()])
    }

    // MARK: Epochs and sender chains

    /// Keeps what this device needs of an epoch: its LAN key and a sender chain per device the
    /// secret was sealed to. The secret itself is not stored.
    static func saveEpoch(_ secret: SymmetricKey, groupID: String, epoch: Int, devices: Set<String>, in db: Database) throws {
        try db.execute(
            sql: "INSERT OR IGNORE INTO epochs (group_id, epoch, lan_key) VALUES (?, ?, ?)",
            arguments: [groupID, epoch, EpochCrypto.lanKey(secret, group: groupID, epoch: epoch)])
        for device in devices {
            try db.execute(
                sql: "INSERT OR IGNORE INTO chains (group_id, epoch, device_id, next_index, chain_key) VALUES (?, ?, ?, 0, ?)",
                arguments: [groupID, epoch, device, EpochCrypto.senderChain(secret, group: groupID, epoch: epoch, device: device)])
        }
    }

    /// The newest epoch of the group this device holds keys of.
    func heldEpoch(groupID: String) throws -> Int? {
        try read { db in try Int.fetchOne(db, sql: "SELECT MAX(epoch) FROM epochs WHERE group_id = ?", arguments: [groupID]) }
    }

    /// The LAN keys of the newest two epochs of every group held here (a member one epoch
    /// behind can still be met, and learns the new epoch from the meeting).
    func lanKeys() throws -> [Data] {
        try read { db in
            try Data.fetchAll(
                db,
                sql: """
                    SELECT lan_key FROM epochs e WHERE epoch >= (SELECT MAX(epoch) FROM epochs WHERE group_id = e.group_id) - 1
                    ORDER BY group_id, epoch
                    """)
        }
    }

    /// Takes the next step of this device's own chain: the message key and its index.
    static func nextSendingKey(groupID: String, epoch: Int, deviceID: String, in db: Database) throws -> (index: Int64, key: Data)? {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT next_index, chain_key FROM chains WHERE group_id = ? AND epoch = ? AND device_id = ?",
                arguments: [groupID, epoch, deviceID])
        else { return nil }
        let index: Int64 = row["next_index"]
        let (message, next) = EpochCrypto.step(row["chain_key"])
        try db.execute(
            sql: "UPDATE chains SET next_index = ?, chain_key = ? WHERE group_id = ? AND epoch = ? AND device_id = ?",
            arguments: [index + 1, next, groupID, epoch, deviceID])
        return (index, message)
    }

    /// Skipped message keys kept per sender chain, at most.
    static let maxSkippedKeys: Int64 = 1000

    /// The key of message `index` of `deviceID`'s chain, consumed: a key kept for a message that
    /// arrived out of order, or the chain advanced to it (keeping the keys skipped on the way, up
    /// to `maxSkippedKeys`). Nil when the chain is not held (no secret yet), the index was used
    /// already (a replay) or lies too far ahead.
    static func takeReceivingKey(groupID: String, epoch: Int, deviceID: String, index: Int64, in db: Database) throws -> Data? {
        let keyArguments: StatementArguments = [groupID, epoch, deviceID, index]
        if let kept = try Data.fetchOne(
            db, sql: "SELECT message_key FROM skipped_keys WHERE group_id = ? AND epoch = ? AND device_id = ? AND idx = ?",
            arguments: keyArguments)
        {
            try db.execute(
                sql: "DELETE FROM skipped_keys WHERE group_id = ? AND epoch = ? AND device_id = ? AND idx = ?", arguments: keyArguments)
            return kept
        }
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT next_index, chain_key FROM chains WHERE group_id = ? AND epoch = ? AND device_id = ?",
                arguments: [groupID, epoch, deviceID])
        else { return nil }
        var at: Int64 = row["next_index"]
        var chain: Data = row["chain_key"]
        guard index >= at, index - at <= maxSkippedKeys else { return nil }
        while at < index {
            let (message, next) = EpochCrypto.step(chain)
            try db.execute(
                sql: "INSERT OR REPLACE INTO skipped_keys (group_id, epoch, device_id, idx, message_key) VALUES (?, ?, ?, ?, ?)",
                arguments: [groupID, epoch, deviceID, at, message])
            (chain, at) = (next, at + 1)
        }
        let (message, next) = EpochCrypto.step(chain)
        try db.execute(
            sql: "UPDATE chains SET next_index = ?, chain_key = ? WHERE group_id = ? AND epoch = ? AND device_id = ?",
            arguments: [index + 1, next, groupID, epoch, deviceID])
        // The oldest skipped keys go first when a chain keeps too many.
        try db.execute(
            sql: """
                DELETE FROM skipped_keys WHERE group_id = ? AND epoch = ? AND device_id = ? AND idx < (
                    SELECT idx FROM skipped_keys WHERE group_id = ? AND epoch = ? AND device_id = ? ORDER BY idx DESC LIMIT 1 OFFSET ?)
                """, arguments: [groupID, epoch, deviceID, groupID, epoch, deviceID, maxSkippedKeys - 1])
        return message
    }

    /// Key material of a group held here, for forward-secrecy checks: every chain key and kept message key.
    func keyMaterial(groupID: String) throws -> [Data] {
        try read { db in
            try Data.fetchAll(db, sql: "SELECT chain_key FROM chains WHERE group_id = ?", arguments: [groupID])
                + Data.fetchAll(db, sql: "SELECT message_key FROM skipped_keys WHERE group_id = ?", arguments: [groupID])
                + Data.fetchAll(db, sql: "SELECT lan_key FROM epochs WHERE group_id = ?", arguments: [groupID])
        }
    }

    // MARK: Invites

    func saveInviteMade(_ secret: InviteSecret, groupID: String) throws {
        try write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO invites_made (invite_id, group_id, secret) VALUES (?, ?, ?)",
                arguments: [secret.id, groupID, secret.bytes])
        }
    }

    static func inviteMade(id: String, groupID: String, in db: Database) throws -> (secret: InviteSecret, usedBy: String?)? {
        try Row.fetchOne(
            db, sql: "SELECT secret, used_by FROM invites_made WHERE invite_id = ? AND group_id = ?", arguments: [id, groupID]
        )
        .map { (InviteSecret(bytes: $0["secret"]), $0["used_by"]) }
    }

    static func saveInviteJoined(_ secret: InviteSecret, groupID: String, in db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO invites_joined (group_id, secret) VALUES (?, ?)", arguments: [groupID, secret.bytes])
    }

    static func inviteJoined(groupID: String, in db: Database) throws -> InviteSecret? {
        try Data.fetchOne(db, sql: "SELECT secret FROM invites_joined WHERE group_id = ?", arguments: [groupID]).map(
            InviteSecret.init(bytes:))
    }

    // MARK: Identities

    func confirmIdentity(userID: String, identityKey: String) throws {
        try write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO confirmed_identities (user_id, identity_key) VALUES (?, ?)", arguments: [userID, identityKey])
        }
    }

    func isConfirmed(userID: String, identityKey: String) throws -> Bool {
        try read { db in
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM confirmed_identities WHERE user_id = ? AND identity_key = ?)",
                arguments: [userID, identityKey]) ?? false
        }
    }

    /// Copies every change still in the write-ahead log into the database and empties the log, so
    /// deleted keys are gone from both files.
    func checkpoint() throws {
        do { _ = try pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) } } catch let error as DatabaseError {
            throw ChatClientError.store(path: path, reason: error.message ?? "\(error.resultCode)")
        }
    }
}
