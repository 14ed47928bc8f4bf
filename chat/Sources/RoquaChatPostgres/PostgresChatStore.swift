import Foundation
import Logging
import PostgresNIO
import RoquaChatCore
import RoquaChatServer

/// The store for deployments that outgrow one machine: PostgreSQL through postgres-nio, with
/// the same behaviour as the SQLite store. Read-then-write operations lock the rows they decide
/// on (`FOR UPDATE`; pushes lock their groups in id order), so several server instances can
/// share one database. `client` must run (it is a `Service`) while the store is used.
package final class PostgresChatStore: ChatStore {
    package let client: PostgresClient
    let logger: Logger

    package init(configuration: PostgresClient.Configuration, logger: Logger) {
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.logger = logger
    }

    /// Applies pending schema migrations, up to `version` (all by default); call once the client runs.
    /// - Throws: `ChatStoreError.migrationFailed`, or postgres-nio's error when the database is unreachable.
    package func migrate(upTo version: Int = .max) async throws {
        try await PostgresSchema.migrate(client, upTo: version, logger: logger)
    }

    /// Runs `body` in a transaction, unwrapping postgres-nio's transaction error to the one
    /// that caused it.
    func transaction<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        do {
            return try await client.withTransaction(logger: logger) { connection in try await body(connection) }
        } catch let error as PostgresTransactionError {
            throw error.closureError ?? error.commitError ?? error.beginError ?? error
        }
    }

    /// Whether `error` is a unique-constraint violation (two instances inserting the same key at once).
    static func isUniqueViolation(_ error: any Error) -> Bool {
        (error as? PSQLError)?.serverInfo?[.sqlState] == "23505"
    }

    // MARK: Users and devices

    package func user(id: String) async throws -> UserRecord? {
        try await PostgresRows.first(try await client.query("SELECT * FROM users WHERE id = \(id)", logger: logger), PostgresRows.user)
    }

    package func user(phone: PhoneNumber) async throws -> UserRecord? {
        try await PostgresRows.first(
            try await client.query("SELECT * FROM users WHERE phone = \(phone.e164)", logger: logger),
            PostgresRows.user)
    }

    func ensureUser(_ connection: PostgresConnection, phone: PhoneNumber, role: Role, now: Date) async throws -> UserRecord {
        try await connection.query(
            """
            INSERT INTO users (id, phone, role, created_at) VALUES (\(UUIDv7.make(at: now)), \(phone.e164), \(role.rawValue),
                \(PostgresRows.ms(now))) ON CONFLICT (phone) DO NOTHING
            """, logger: logger)
        guard
            let user = try await PostgresRows.first(
                try await connection.query("SELECT * FROM users WHERE phone = \(phone.e164) FOR UPDATE", logger: logger), PostgresRows.user)
        else { throw ChatStoreError.corruptRow(table: "users", reason: "the user just inserted is missing") }
        return user
    }

    package func signIn(phone: PhoneNumber, deviceID: String, publicKey: Data?, now: Date) async throws -> UserRecord {
        try await transaction { connection in
            let user = try await ensureUser(connection, phone: phone, role: .user, now: now)
            try await connection.query(
                """
                INSERT INTO devices (user_id, device_id, public_key, created_at, last_sign_in_at)
                VALUES (\(user.id), \(deviceID), \(publicKey), \(PostgresRows.ms(now)), \(PostgresRows.ms(now)))
                ON CONFLICT (user_id, device_id) DO UPDATE SET
                    public_key = COALESCE(EXCLUDED.public_key, devices.public_key), last_sign_in_at = EXCLUDED.last_sign_in_at
                """, logger: logger)
            return user
        }
    }

    package func setRole(phone: PhoneNumber, role: Role, now: Date) async throws -> UserRecord {
        try await transaction { connection in
            var user = try await ensureUser(connection, phone: phone, role: role, now: now)
            try await connection.query("UPDATE users SET role = \(role.rawValue) WHERE id = \(user.id)", logger: logger)
            user.role = role
            return user
        }
    }

    package func setRole(userID: String, role: Role) async throws -> UserRecord? {
        try await PostgresRows.first(
            try await client.query("UPDATE users SET role = \(role.rawValue) WHERE id = \(userID) RETURNING *", logger: logger),
            PostgresRows.user)
    }

    package func setDisplayName(userID: String, name: String?) async throws -> UserRecord? {
        try await PostgresRows.first(
            try await client.query("UPDATE users SET display_name = \(name) WHERE id = \(userID) RETURNING *", logger: logger),
            PostgresRows.user)
    }

    package func deviceKeys(_ devices: Set<DeviceRef>) async throws -> [DeviceRef: Data] {
        var keys: [DeviceRef: Data] = [:]
        for device in devices {
            let rows = try await client.query(
                """
                SELECT public_key FROM devices WHERE user_id = \(device.userID) AND device_id = \(device.deviceID)
                """, logger: logger)
            for try await key in rows.decode(Data?.self) { keys[device] = key }
        }
        return keys
    }

    // MARK: Sign-in codes

    package func updateOTP<Result: Sendable>(
        phone: PhoneNumber, _ body: @escaping @Sendable (inout OTPState) -> Result
    ) async throws -> Result {
        try await transaction { connection in
            try await connection.query(
                """
                INSERT INTO otp_states (phone, state) VALUES (\(phone.e164), '{"codes":[],"sends":[]}') ON CONFLICT (phone) DO NOTHING
                """, logger: logger)
            var state =
                try await PostgresRows.first(
                    try await connection.query("SELECT state FROM otp_states WHERE phone = \(phone.e164) FOR UPDATE", logger: logger)
                ) {
                    try PostgresRows.otpState(try $0["state"].decode(String.self))
                } ?? OTPState()
            let result = body(&state)
            try await connection.query("UPDATE otp_states SET state = \(try state.encoded()) WHERE phone = \(phone.e164)", logger: logger)
            return result
        }
    }

    // MARK: Refresh tokens

    package func createRefreshFamily(_ family: RefreshFamilyRecord, firstToken: RefreshTokenRecord) async throws {
        try await transaction { connection in
            try await connection.query(
                """
                INSERT INTO refresh_families (id, user_id, device_id, created_at)
                VALUES (\(family.id), \(family.userID), \(family.deviceID), \(PostgresRows.ms(family.createdAt)))
                """, logger: logger)
            try await insert(connection, token: firstToken)
        }
    }

    func insert(_ connection: PostgresConnection, token: RefreshTokenRecord) async throws {
        try await connection.query(
            """
            INSERT INTO refresh_tokens (token_hash, family_id, issued_at, expires_at)
            VALUES (\(token.tokenHash), \(token.familyID), \(PostgresRows.ms(token.issuedAt)), \(PostgresRows.ms(token.expiresAt)))
            """, logger: logger)
    }

    package func rotateRefreshToken(
        presentedHash: String, successorHash: String, now: Date,
        settings: ChatSettings
    ) async throws -> RefreshDecision {
        try await transaction { connection in
            func token(_ hash: String) async throws -> RefreshTokenRecord? {
                try await PostgresRows.first(
                    try await connection.query(
                        "SELECT * FROM refresh_tokens WHERE token_hash = \(hash) FOR UPDATE", logger: logger), PostgresRows.refreshToken)
            }
            let presented = try await token(presentedHash)
            var family: RefreshFamilyRecord?
            if let presented {
                family = try await PostgresRows.first(
                    try await connection.query(
                        "SELECT * FROM refresh_families WHERE id = \(presented.familyID) FOR UPDATE", logger: logger),
                    PostgresRows.refreshFamily)
            }
            let lookup = RefreshLookup(token: presented, family: family, successor: try await token(successorHash))
            let decision = RefreshRules.decide(lookup, now: now, settings: settings)
            switch decision {
            case .rotate(let family):
                try await connection.query(
                    "UPDATE refresh_tokens SET used_at = \(PostgresRows.ms(now)) WHERE token_hash = \(presentedHash)",
                    logger: logger)
                try await insert(
                    connection,
                    token: RefreshTokenRecord(
                        tokenHash: successorHash, familyID: family.id, issuedAt: now,
                        expiresAt: now.addingTimeInterval(settings.refreshTokenLifetime)))
            case .reused(let familyID):
                try await connection.query(
                    "UPDATE refresh_families SET revoked_at = \(PostgresRows.ms(now)) WHERE id = \(familyID)",
                    logger: logger)
            case .repeatWithinGrace, .superseded, .expired, .invalid:
                break
            }
            return decision
        }
    }

    package func refreshFamily(tokenHash: String) async throws -> RefreshFamilyRecord? {
        try await PostgresRows.first(
            try await client.query(
                """
                SELECT f.* FROM refresh_families f JOIN refresh_tokens t ON t.family_id = f.id WHERE t.token_hash = \(tokenHash)
                """, logger: logger), PostgresRows.refreshFamily)
    }

    package func refreshFamily(id: String) async throws -> RefreshFamilyRecord? {
        try await PostgresRows.first(
            try await client.query("SELECT * FROM refresh_families WHERE id = \(id)", logger: logger),
            PostgresRows.refreshFamily)
    }

    package func revokeRefreshFamily(tokenHash: String, now: Date) async throws -> RefreshFamilyRecord? {
        try await PostgresRows.first(
            try await client.query(
                """
                UPDATE refresh_families SET revoked_at = COALESCE(revoked_at, \(PostgresRows.ms(now)))
                WHERE id = (SELECT family_id FROM refresh_tokens WHERE token_hash = \(tokenHash)) RETURNING *
                """, logger: logger), PostgresRows.refreshFamily)
    }

    package func revokeRefreshFamilies(userID: String, now: Date) async throws -> [String] {
        let rows = try await client.query(
            """
            UPDATE refresh_families SET revoked_at = \(PostgresRows.ms(now)) WHERE user_id = \(userID) AND revoked_at IS NULL RETURNING id
            """, logger: logger)
        var ids: [String] = []
        for try await id in rows.decode(String.self) { ids.append(id) }
        return ids
    }
}
