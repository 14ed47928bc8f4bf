import GRDB

/// The device's store, changed only through migrations. Times are whole milliseconds since
/// 1970. `messages` keeps both the plaintext (for showing) and the signed wire form (for
/// pushing and relaying verbatim); `outbox` lists what still has to reach the server.
enum ClientSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: messages, outbox, cursors, receipts, groups, group keys") { db in
            try db.execute(
                sql: """
                    CREATE TABLE messages (
                        sender_id TEXT NOT NULL,
                        local_id TEXT NOT NULL,
                        device_id TEXT NOT NULL,
                        group_id TEXT NOT NULL,
                        type TEXT NOT NULL,
                        body TEXT,
                        content TEXT NOT NULL,
                        metadata TEXT,
                        signature TEXT NOT NULL,
                        sent_at INTEGER NOT NULL,
                        hlc TEXT NOT NULL,
                        key_epoch INTEGER NOT NULL,
                        status TEXT NOT NULL,
                        status_rank INTEGER NOT NULL,
                        server_id TEXT,
                        seq INTEGER,
                        synced_at INTEGER,
                        failure TEXT,
                        PRIMARY KEY (sender_id, local_id));
                    CREATE INDEX messages_order ON messages(group_id, hlc, sender_id, local_id);
                    CREATE TABLE outbox (
                        sender_id TEXT NOT NULL,
                        local_id TEXT NOT NULL,
                        enqueued_at INTEGER NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        last_error TEXT,
                        PRIMARY KEY (sender_id, local_id),
                        FOREIGN KEY (sender_id, local_id) REFERENCES messages(sender_id, local_id));
                    CREATE TABLE cursors (
                        group_id TEXT PRIMARY KEY,
                        since INTEGER NOT NULL);
                    CREATE TABLE receipts (
                        group_id TEXT NOT NULL,
                        user_id TEXT NOT NULL,
                        delivered_up_to INTEGER NOT NULL,
                        read_up_to INTEGER NOT NULL,
                        updated_at INTEGER NOT NULL,
                        PRIMARY KEY (group_id, user_id));
                    CREATE TABLE groups (
                        id TEXT PRIMARY KEY,
                        name TEXT NOT NULL,
                        guide_id TEXT NOT NULL);
                    CREATE TABLE group_keys (
                        group_id TEXT NOT NULL,
                        epoch INTEGER NOT NULL,
                        key BLOB NOT NULL,
                        created_at INTEGER NOT NULL,
                        PRIMARY KEY (group_id, epoch));
                    """)
        }
        // Peers compare per-device counters: `counter` is the author device's n-th message in
        // the group (signed, in metadata `n`); `hops` is how many peers relayed it here;
        // `peer_credentials` (dropped in v5) was to keep authors' server-signed credentials.
        migrator.registerMigration("v2: per-device counters and relay hops") { db in
            try db.execute(
                sql: """
                    ALTER TABLE messages ADD COLUMN counter INTEGER;
                    ALTER TABLE messages ADD COLUMN hops INTEGER NOT NULL DEFAULT 0;
                    CREATE INDEX messages_counter ON messages(group_id, sender_id, device_id, counter);
                    CREATE TABLE peer_credentials (
                        user_id TEXT NOT NULL,
                        device_id TEXT NOT NULL,
                        signed TEXT NOT NULL,
                        expires_at INTEGER NOT NULL,
                        PRIMARY KEY (user_id, device_id));
                    """)
        }
        // End-to-end groups: the verified group log, epochs (only their LAN keys; the secret
        // itself is never stored), sender chains and the message keys skipped ahead of
        // out-of-order messages, the invite secrets this device made or joined with, and the
        // identity keys the user confirmed. The old per-group AES keys are deleted: they were
        // decided by the server's member list and lay in the file in the clear.
        migrator.registerMigration("v3: group log, epochs, sender chains") { db in
            try db.execute(
                sql: """
                    CREATE TABLE group_log (
                        group_id TEXT NOT NULL,
                        seq INTEGER NOT NULL,
                        hash TEXT NOT NULL,
                        signed TEXT NOT NULL,
                        PRIMARY KEY (group_id, seq));
                    CREATE TABLE epochs (
                        group_id TEXT NOT NULL,
                        epoch INTEGER NOT NULL,
                        lan_key BLOB NOT NULL,
                        PRIMARY KEY (group_id, epoch));
                    CREATE TABLE chains (
                        group_id TEXT NOT NULL,
                        epoch INTEGER NOT NULL,
                        device_id TEXT NOT NULL,
                        next_index INTEGER NOT NULL,
                        chain_key BLOB NOT NULL,
                        PRIMARY KEY (group_id, epoch, device_id));
                    CREATE TABLE skipped_keys (
                        group_id TEXT NOT NULL,
                        epoch INTEGER NOT NULL,
                        device_id TEXT NOT NULL,
                        idx INTEGER NOT NULL,
                        message_key BLOB NOT NULL,
                        PRIMARY KEY (group_id, epoch, device_id, idx));
                    CREATE TABLE invites_made (
                        invite_id TEXT PRIMARY KEY,
                        group_id TEXT NOT NULL,
                        secret BLOB NOT NULL,
                        used_by TEXT);
                    CREATE TABLE invites_joined (
                        group_id TEXT PRIMARY KEY,
                        secret BLOB NOT NULL);
                    CREATE TABLE confirmed_identities (
                        user_id TEXT NOT NULL,
                        identity_key TEXT NOT NULL,
                        PRIMARY KEY (user_id, identity_key));
                    DELETE FROM group_keys;
                    DROP TABLE group_keys;
                    """)
        }
        // The display names the server relays for each group's members (checked against
        // `DisplayName`'s rules before they are kept); kept after a member leaves, for their messages.
        migrator.registerMigration("v4: member display names") { db in
            try db.execute(
                sql: """
                    CREATE TABLE member_names (
                        group_id TEXT NOT NULL,
                        user_id TEXT NOT NULL,
                        display_name TEXT,
                        PRIMARY KEY (group_id, user_id));
                    """)
        }
        // Peer credentials are gone: nothing read them (peers trust the group log, not the server).
        migrator.registerMigration("v5: no peer credentials") { db in
            try db.execute(sql: "DROP TABLE IF EXISTS peer_credentials")
        }
        return migrator
    }
}
