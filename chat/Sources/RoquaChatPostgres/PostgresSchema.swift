import Logging
import PostgresNIO
import RoquaChatServer

/// The PostgreSQL schema, the same tables as the SQLite one (times in whole milliseconds,
/// ids as text), applied by numbered migrations under an advisory lock so that several server
/// instances starting together migrate once.
enum PostgresSchema {
    static let migrations: [(version: Int, statements: [String])] = [
        (
            1,
            [
                """
                CREATE TABLE users (
                    id TEXT PRIMARY KEY, phone TEXT NOT NULL UNIQUE, role TEXT NOT NULL, created_at BIGINT NOT NULL)
                """,
                """
                CREATE TABLE devices (
                    user_id TEXT NOT NULL REFERENCES users(id), device_id TEXT NOT NULL, public_key BYTEA,
                    created_at BIGINT NOT NULL, last_sign_in_at BIGINT NOT NULL, PRIMARY KEY (user_id, device_id))
                """,
                """
                CREATE TABLE otp_states (
                    phone TEXT PRIMARY KEY, code_mac BYTEA, code_expires_at BIGINT, attempts_left BIGINT NOT NULL,
                    send_times TEXT NOT NULL, failures BIGINT NOT NULL, last_failure_at BIGINT, blocked_until BIGINT)
                """,
                """
                CREATE TABLE refresh_families (
                    id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id), device_id TEXT NOT NULL,
                    created_at BIGINT NOT NULL, revoked_at BIGINT)
                """,
                """
                CREATE TABLE refresh_tokens (
                    token_hash TEXT PRIMARY KEY, family_id TEXT NOT NULL REFERENCES refresh_families(id),
                    issued_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, used_at BIGINT)
                """,
                "CREATE INDEX refresh_tokens_family ON refresh_tokens(family_id)",
                """
                CREATE TABLE tour_groups (
                    id TEXT PRIMARY KEY, name TEXT NOT NULL, guide_id TEXT NOT NULL REFERENCES users(id), start_date TEXT,
                    end_date TEXT, created_at BIGINT NOT NULL, last_seq BIGINT NOT NULL DEFAULT 0)
                """,
                """
                CREATE TABLE memberships (
                    group_id TEXT NOT NULL REFERENCES tour_groups(id), user_id TEXT NOT NULL REFERENCES users(id),
                    role TEXT NOT NULL, joined_at BIGINT NOT NULL, visible_after_seq BIGINT NOT NULL, removed_at BIGINT,
                    removed_at_seq BIGINT, PRIMARY KEY (group_id, user_id))
                """,
                "CREATE INDEX memberships_user ON memberships(user_id)",
                """
                CREATE TABLE invites (
                    code_hash TEXT PRIMARY KEY, group_id TEXT NOT NULL REFERENCES tour_groups(id), phone TEXT NOT NULL,
                    created_by TEXT NOT NULL REFERENCES users(id), created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL,
                    accepted_at BIGINT, accepted_by TEXT)
                """,
                """
                CREATE TABLE messages (
                    server_id TEXT PRIMARY KEY, group_id TEXT NOT NULL REFERENCES tour_groups(id), seq BIGINT NOT NULL,
                    sender_id TEXT NOT NULL, device_id TEXT, local_id TEXT NOT NULL, type TEXT NOT NULL, content TEXT NOT NULL,
                    metadata TEXT, sent_at BIGINT NOT NULL, order_at BIGINT NOT NULL, received_at BIGINT NOT NULL,
                    key_epoch BIGINT, signature TEXT, digest BYTEA NOT NULL,
                    UNIQUE (group_id, seq), UNIQUE (sender_id, local_id))
                """,
                """
                CREATE TABLE receipts (
                    group_id TEXT NOT NULL REFERENCES tour_groups(id), user_id TEXT NOT NULL REFERENCES users(id),
                    delivered_up_to BIGINT NOT NULL, read_up_to BIGINT NOT NULL, updated_at BIGINT NOT NULL,
                    PRIMARY KEY (group_id, user_id))
                """,
                """
                CREATE TABLE blobs (
                    sha256 TEXT PRIMARY KEY, size BIGINT NOT NULL, data BYTEA NOT NULL, uploaded_by TEXT NOT NULL,
                    created_at BIGINT NOT NULL)
                """,
            ]
        ),
        (
            2,
            [
                """
                CREATE TABLE device_agreement_keys (
                    user_id TEXT NOT NULL REFERENCES users(id), device_id TEXT NOT NULL, agreement_key BYTEA NOT NULL,
                    updated_at BIGINT NOT NULL, PRIMARY KEY (user_id, device_id))
                """,
                """
                CREATE TABLE group_keys (
                    group_id TEXT NOT NULL REFERENCES tour_groups(id), epoch BIGINT NOT NULL, user_id TEXT NOT NULL,
                    device_id TEXT NOT NULL, sealed TEXT NOT NULL, created_by TEXT NOT NULL, created_at BIGINT NOT NULL,
                    PRIMARY KEY (group_id, epoch, user_id, device_id))
                """,
            ]
        ),
        // Group keys are made and sealed by members' devices inside the group's signed log.
        (3, ["DROP TABLE group_keys", "DROP TABLE device_agreement_keys"]),
        // Sign-in codes bound to their request (`OTPState`, stored whole); codes in flight are dropped.
        // Which blobs each group's image and file messages name (the group's attachment quota).
        (
            4,
            [
                "DROP TABLE otp_states", "CREATE TABLE otp_states (phone TEXT PRIMARY KEY, state TEXT NOT NULL)",
                """
                CREATE TABLE group_blobs (group_id TEXT NOT NULL REFERENCES tour_groups(id), sha256 TEXT NOT NULL,
                                          PRIMARY KEY (group_id, sha256))
                """,
                """
                INSERT INTO group_blobs (group_id, sha256)
                SELECT DISTINCT m.group_id, b.sha256 FROM messages m JOIN blobs b ON strpos(m.metadata, b.sha256) > 0
                WHERE m.type IN ('image', 'file') ON CONFLICT DO NOTHING
                """,
                "CREATE INDEX blobs_uploader ON blobs(uploaded_by)",
            ]
        ),
        // Phone numbers in their normalized form: a step in Swift (`renormalizePhones`).
        (5, []),
        // The name each user gives themselves for their groups (`DisplayName`); none until set.
        (6, ["ALTER TABLE users ADD COLUMN display_name TEXT"]),
    ]

    /// Numbers stored with a trunk 0 after the country code become the normalized number
    /// (`PhoneRenormalization`); pending invites follow, code states are dropped.
    static func renormalizePhones(_ connection: PostgresConnection, logger: Logger) async throws {
        var users: [(id: String, phone: String)] = []
        for try await (id, phone) in try await connection.query("SELECT id, phone FROM users", logger: logger).decode((String, String).self)
        {
            users.append((id, phone))
        }
        let plan = PhoneRenormalization.plan(users)
        for rename in plan.renames {
            try await connection.query("UPDATE users SET phone = \(rename.to) WHERE id = \(rename.userID)", logger: logger)
            try await connection.query("UPDATE invites SET phone = \(rename.to) WHERE phone = \(rename.from)", logger: logger)
            try await connection.query("DELETE FROM otp_states WHERE phone = \(rename.from)", logger: logger)
        }
        if !plan.renames.isEmpty || plan.left > 0 {
            logger.warning("phone numbers normalized", metadata: ["renamed": "\(plan.renames.count)", "left": "\(plan.left)"])
        }
    }

    /// An arbitrary constant naming the migration lock.
    static let lockKey: Int64 = 0x726F_7175_6163_6874

    /// Applies the migrations not applied yet, up to `version` (all by default: tests stop earlier to build an old database).
    static func migrate(_ client: PostgresClient, upTo version: Int = .max, logger: Logger) async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS roqua_chat_migrations (version BIGINT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                """, logger: logger)
            var applied = Set<Int64>()
            for try await version in try await connection.query("SELECT version FROM roqua_chat_migrations", logger: logger)
                .decode(Int64.self)
            {
                applied.insert(version)
            }
            for migration in migrations where migration.version <= version && !applied.contains(Int64(migration.version)) {
                do {
                    for statement in migration.statements {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    if migration.version == 5 { try await renormalizePhones(connection, logger: logger) }
                    try await connection.query(
                        "INSERT INTO roqua_chat_migrations (version) VALUES (\(Int64(migration.version)))",
                        logger: logger)
                } catch {
                    throw ChatStoreError.migrationFailed(version: migration.version, reason: String(reflecting: error))
                }
                logger.info("schema migrated", metadata: ["version": "\(migration.version)"])
            }
        }
    }
}
