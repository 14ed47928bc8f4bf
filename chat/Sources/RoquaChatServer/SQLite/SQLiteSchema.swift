import GRDB

/// The embedded store's schema, changed only through migrations. Times are whole milliseconds
/// since 1970; ids are text (UUIDs); the PostgreSQL schema mirrors this one.
enum SQLiteSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: users, sign-in, groups, messages, receipts, blobs") { db in
            try db.execute(
                sql: """
                    CREATE TABLE users (
                        id TEXT PRIMARY KEY,
                        phone TEXT NOT NULL UNIQUE,
                        role TEXT NOT NULL,
                        created_at INTEGER NOT NULL);
                    CREATE TABLE devices (
                        user_id TEXT NOT NULL REFERENCES users(id),
                        device_id TEXT NOT NULL,
                        public_key BLOB,
                        created_at INTEGER NOT NULL,
                        last_sign_in_at INTEGER NOT NULL,
                        PRIMARY KEY (user_id, device_id));
                    CREATE TABLE otp_states (
                        phone TEXT PRIMARY KEY,
                        code_mac BLOB,
                        code_expires_at INTEGER,
                        attempts_left INTEGER NOT NULL,
                        send_times TEXT NOT NULL,
                        failures INTEGER NOT NULL,
                        last_failure_at INTEGER,
                        blocked_until INTEGER);
                    CREATE TABLE refresh_families (
                        id TEXT PRIMARY KEY,
                        user_id TEXT NOT NULL REFERENCES users(id),
                        device_id TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        revoked_at INTEGER);
                    CREATE TABLE refresh_tokens (
                        token_hash TEXT PRIMARY KEY,
                        family_id TEXT NOT NULL REFERENCES refresh_families(id),
                        issued_at INTEGER NOT NULL,
                        expires_at INTEGER NOT NULL,
                        used_at INTEGER);
                    CREATE INDEX refresh_tokens_family ON refresh_tokens(family_id);
                    CREATE TABLE tour_groups (
                        id TEXT PRIMARY KEY,
                        name TEXT NOT NULL,
                        guide_id TEXT NOT NULL REFERENCES users(id),
                        start_date TEXT,
                        end_date TEXT,
                        created_at INTEGER NOT NULL,
                        last_seq INTEGER NOT NULL DEFAULT 0);
                    CREATE TABLE memberships (
                        group_id TEXT NOT NULL REFERENCES tour_groups(id),
                        user_id TEXT NOT NULL REFERENCES users(id),
                        role TEXT NOT NULL,
                        joined_at INTEGER NOT NULL,
                        visible_after_seq INTEGER NOT NULL,
                        removed_at INTEGER,
                        removed_at_seq INTEGER,
                        PRIMARY KEY (group_id, user_id));
                    CREATE INDEX memberships_user ON memberships(user_id);
                    CREATE TABLE invites (
                        code_hash TEXT PRIMARY KEY,
                        group_id TEXT NOT NULL REFERENCES tour_groups(id),
                        phone TEXT NOT NULL,
                        created_by TEXT NOT NULL REFERENCES users(id),
                        created_at INTEGER NOT NULL,
                        expires_at INTEGER NOT NULL,
                        accepted_at INTEGER,
                        accepted_by TEXT);
                    CREATE TABLE messages (
                        server_id TEXT PRIMARY KEY,
                        group_id TEXT NOT NULL REFERENCES tour_groups(id),
                        seq INTEGER NOT NULL,
                        sender_id TEXT NOT NULL,
                        device_id TEXT,
                        local_id TEXT NOT NULL,
                        type TEXT NOT NULL,
                        content TEXT NOT NULL,
                        metadata TEXT,
                        sent_at INTEGER NOT NULL,
                        order_at INTEGER NOT NULL,
                        received_at INTEGER NOT NULL,
                        key_epoch INTEGER,
                        signature TEXT,
                        digest BLOB NOT NULL,
                        UNIQUE (group_id, seq),
                        UNIQUE (sender_id, local_id));
                    CREATE TABLE receipts (
                        group_id TEXT NOT NULL REFERENCES tour_groups(id),
                        user_id TEXT NOT NULL REFERENCES users(id),
                        delivered_up_to INTEGER NOT NULL,
                        read_up_to INTEGER NOT NULL,
                        updated_at INTEGER NOT NULL,
                        PRIMARY KEY (group_id, user_id));
                    CREATE TABLE blobs (
                        sha256 TEXT PRIMARY KEY,
                        size INTEGER NOT NULL,
                        data BLOB NOT NULL,
                        uploaded_by TEXT NOT NULL,
                        created_at INTEGER NOT NULL);
                    """)
        }
        migrator.registerMigration("v2: device agreement keys, sealed group keys") { db in
            try db.execute(
                sql: """
                    CREATE TABLE device_agreement_keys (
                        user_id TEXT NOT NULL REFERENCES users(id),
                        device_id TEXT NOT NULL,
                        agreement_key BLOB NOT NULL,
                        updated_at INTEGER NOT NULL,
                        PRIMARY KEY (user_id, device_id));
                    CREATE TABLE group_keys (
                        group_id TEXT NOT NULL REFERENCES tour_groups(id),
                        epoch INTEGER NOT NULL,
                        user_id TEXT NOT NULL,
                        device_id TEXT NOT NULL,
                        sealed TEXT NOT NULL,
                        created_by TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        PRIMARY KEY (group_id, epoch, user_id, device_id));
                    """)
        }
        // Group keys are made and sealed by members' devices inside the group's signed log
        // (end to end); the server no longer stores agreement keys or sealed keys.
        migrator.registerMigration("v3: drop server-side key distribution") { db in
            try db.execute(sql: "DROP TABLE group_keys; DROP TABLE device_agreement_keys;")
        }
        // A code belongs to the request that asked for it, and attempts and back-off to the code
        // (`OTPState`, stored whole). Codes in flight at the upgrade are dropped: they live 5 minutes.
        // Which blobs each group's image and file messages name (the group's attachment quota),
        // filled from the messages already stored.
        migrator.registerMigration("v4: sign-in codes bound to their request; attachments per group") { db in
            try db.execute(
                sql: """
                    DROP TABLE otp_states;
                    CREATE TABLE otp_states (phone TEXT PRIMARY KEY, state TEXT NOT NULL);
                    CREATE TABLE group_blobs (
                        group_id TEXT NOT NULL REFERENCES tour_groups(id),
                        sha256 TEXT NOT NULL,
                        PRIMARY KEY (group_id, sha256));
                    INSERT OR IGNORE INTO group_blobs (group_id, sha256)
                        SELECT m.group_id, b.sha256 FROM messages m JOIN blobs b ON instr(m.metadata, b.sha256) > 0
                        WHERE m.type IN ('image', 'file');
                    CREATE INDEX blobs_uploader ON blobs(uploaded_by);
                    """)
        }
        // Numbers stored with a trunk 0 after the country code become the normalized number
        // (`PhoneRenormalization`); pending invites follow, code states are dropped.
        migrator.registerMigration("v5: phone numbers in their normalized form") { db in
            let users = try Row.fetchAll(db, sql: "SELECT id, phone FROM users").map {
                (id: $0["id"] as String, phone: $0["phone"] as String)
            }
            for rename in PhoneRenormalization.plan(users).renames {
                try db.execute(sql: "UPDATE users SET phone = ? WHERE id = ?", arguments: [rename.to, rename.userID])
                try db.execute(sql: "UPDATE invites SET phone = ? WHERE phone = ?", arguments: [rename.to, rename.from])
                try db.execute(sql: "DELETE FROM otp_states WHERE phone = ?", arguments: [rename.from])
            }
        }
        // The name each user gives themselves for their groups (`DisplayName`); none until set.
        migrator.registerMigration("v6: display names") { db in
            try db.execute(sql: "ALTER TABLE users ADD COLUMN display_name TEXT")
        }
        return migrator
    }
}
