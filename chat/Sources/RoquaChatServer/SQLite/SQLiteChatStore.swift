import Foundation
import GRDB
import RoquaChatCore
import RoquaIO

/// The default store: one SQLite file in WAL mode through GRDB (readers never wait for the
/// writer; writes are serialized, which also serializes each group's sequence numbers).
package final class SQLiteChatStore: ChatStore {
    package let path: String
    let pool: DatabasePool

    /// Opens (creating if needed) and migrates the store at `path`.
    /// - Throws: `ChatStoreError.cannotOpen` naming the path.
    package init(path: String) throws {
        self.path = path
        var config = Configuration()
        config.busyMode = .timeout(10)
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
        do {
            // The accounts, phone numbers and messages: the owner's only.
            try PrivateFiles.makeDirectory((path as NSString).deletingLastPathComponent)
            try PrivateFiles.createIfMissing(path)
            pool = try DatabasePool(path: path, configuration: config)
            try SQLiteSchema.migrator.migrate(pool)
        } catch let error as DatabaseError {
            throw ChatStoreError.cannotOpen(location: path, reason: error.message ?? "\(error.resultCode)")
        } catch {
            throw ChatStoreError.cannotOpen(location: path, reason: "\(error)")
        }
    }

    // MARK: Users and devices

    package func user(id: String) async throws -> UserRecord? {
        try await pool.read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM users WHERE id = ?"), arguments: [id]).map(SQLiteRows.user)
        }
    }

    package func user(phone: PhoneNumber) async throws -> UserRecord? {
        try await pool.read { db in try Self.user(db, phone: phone) }
    }

    static func user(_ db: Database, phone: PhoneNumber) throws -> UserRecord? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM users WHERE phone = ?"), arguments: [phone.e164]).map(SQLiteRows.user)
    }

    /// The user with `phone`, created with `role` when missing.
    static func ensureUser(_ db: Database, phone: PhoneNumber, role: Role, now: Date) throws -> UserRecord {
        if let user = try user(db, phone: phone) { return user }
        let user = UserRecord(id: UUIDv7.make(at: now), phone: phone, role: role, createdAt: now)
        try db.cachedStatement(sql: "INSERT INTO users (id, phone, role, created_at) VALUES (?, ?, ?, ?)").execute(
            arguments: [user.id, phone.e164, role.rawValue, SQLiteRows.ms(now)])
        return user
    }

    package func signIn(phone: PhoneNumber, deviceID: String, publicKey: Data?, now: Date) async throws -> UserRecord {
        try await pool.write { db in
            let user = try Self.ensureUser(db, phone: phone, role: .user, now: now)
            try db.cachedStatement(
                sql: """
                    INSERT INTO devices (user_id, device_id, public_key, created_at, last_sign_in_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (user_id, device_id) DO UPDATE SET
                        public_key = COALESCE(excluded.public_key, devices.public_key),
                        last_sign_in_at = excluded.last_sign_in_at
                    """
            ).execute(arguments: [user.id, deviceID, publicKey, SQLiteRows.ms(now), SQLiteRows.ms(now)])
            return user
        }
    }

    package func setRole(phone: PhoneNumber, role: Role, now: Date) async throws -> UserRecord {
        try await pool.write { db in
            var user = try Self.ensureUser(db, phone: phone, role: role, now: now)
            try db.cachedStatement(sql: "UPDATE users SET role = ? WHERE id = ?").execute(arguments: [role.rawValue, user.id])
            user.role = role
            return user
        }
    }

    package func setRole(userID: String, role: Role) async throws -> UserRecord? {
        try await pool.write { db in
            try db.cachedStatement(sql: "UPDATE users SET role = ? WHERE id = ?").execute(arguments: [role.rawValue, userID])
            return try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM users WHERE id = ?"), arguments: [userID]).map(SQLiteRows.user)
        }
    }

    package func setDisplayName(userID: String, name: String?) async throws -> UserRecord? {
        try await pool.write { db in
            try db.cachedStatement(sql: "UPDATE users SET display_name = ? WHERE id = ?").execute(arguments: [name, userID])
            return try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM users WHERE id = ?"), arguments: [userID]).map(SQLiteRows.user)
        }
    }

    package func deviceKeys(_ devices: Set<DeviceRef>) async throws -> [DeviceRef: Data] {
        guard !devices.isEmpty else { return [:] }
        return try await pool.read { db in
            var keys: [DeviceRef: Data] = [:]
            for device in devices {
                if let key = try Data.fetchOne(
                    db.cachedStatement(sql: "SELECT public_key FROM devices WHERE user_id = ? AND device_id = ?"),
                    arguments: [device.userID, device.deviceID])
                {
                    keys[device] = key
                }
            }
            return keys
        }
    }

    // MARK: Sign-in codes

    package func updateOTP<Result: Sendable>(
        phone: PhoneNumber, _ body: @escaping @Sendable (inout OTPState) -> Result
    ) async throws -> Result {
        try await pool.write { db in
            var state =
                try String.fetchOne(db.cachedStatement(sql: "SELECT state FROM otp_states WHERE phone = ?"), arguments: [phone.e164])
                .map(SQLiteRows.otpState) ?? OTPState()
            let result = body(&state)
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO otp_states (phone, state) VALUES (?, ?)").execute(
                arguments: [phone.e164, try state.encoded()])
            return result
        }
    }

    // MARK: Refresh tokens

    package func createRefreshFamily(_ family: RefreshFamilyRecord, firstToken: RefreshTokenRecord) async throws {
        try await pool.write { db in
            try db.cachedStatement(sql: "INSERT INTO refresh_families (id, user_id, device_id, created_at) VALUES (?, ?, ?, ?)").execute(
                arguments: [family.id, family.userID, family.deviceID, SQLiteRows.ms(family.createdAt)])
            try Self.insert(db, token: firstToken)
        }
    }

    static func insert(_ db: Database, token: RefreshTokenRecord) throws {
        try db.cachedStatement(sql: "INSERT INTO refresh_tokens (token_hash, family_id, issued_at, expires_at) VALUES (?, ?, ?, ?)")
            .execute(
                arguments: [token.tokenHash, token.familyID, SQLiteRows.ms(token.issuedAt), SQLiteRows.ms(token.expiresAt)])
    }

    package func rotateRefreshToken(
        presentedHash: String, successorHash: String, now: Date,
        settings: ChatSettings
    ) async throws -> RefreshDecision {
        try await pool.write { db in
            func token(_ hash: String) throws -> RefreshTokenRecord? {
                try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM refresh_tokens WHERE token_hash = ?"), arguments: [hash])
                    .map(SQLiteRows.refreshToken)
            }
            let presented = try token(presentedHash)
            let family = try presented.flatMap { presented in
                try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM refresh_families WHERE id = ?"), arguments: [presented.familyID])
                    .map(SQLiteRows.refreshFamily)
            }
            let lookup = RefreshLookup(token: presented, family: family, successor: try token(successorHash))
            let decision = RefreshRules.decide(lookup, now: now, settings: settings)
            switch decision {
            case .rotate(let family):
                try db.cachedStatement(sql: "UPDATE refresh_tokens SET used_at = ? WHERE token_hash = ?").execute(
                    arguments: [SQLiteRows.ms(now), presentedHash])
                try Self.insert(
                    db,
                    token: RefreshTokenRecord(
                        tokenHash: successorHash, familyID: family.id, issuedAt: now,
                        expiresAt: now.addingTimeInterval(settings.refreshTokenLifetime)))
            case .reused(let familyID):
                try db.cachedStatement(sql: "UPDATE refresh_families SET revoked_at = ? WHERE id = ?").execute(
                    arguments: [SQLiteRows.ms(now), familyID])
            case .repeatWithinGrace, .superseded, .expired, .invalid:
                break
            }
            return decision
        }
    }

    package func refreshFamily(tokenHash: String) async throws -> RefreshFamilyRecord? {
        try await pool.read { db in
            try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT f.* FROM refresh_families f JOIN refresh_tokens t ON t.family_id = f.id WHERE t.token_hash = ?
                        """), arguments: [tokenHash]
            ).map(SQLiteRows.refreshFamily)
        }
    }

    package func refreshFamily(id: String) async throws -> RefreshFamilyRecord? {
        try await pool.read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM refresh_families WHERE id = ?"), arguments: [id])
                .map(SQLiteRows.refreshFamily)
        }
    }

    package func revokeRefreshFamily(tokenHash: String, now: Date) async throws -> RefreshFamilyRecord? {
        try await pool.write { db in
            try db.cachedStatement(
                sql: """
                    UPDATE refresh_families SET revoked_at = COALESCE(revoked_at, ?)
                    WHERE id = (SELECT family_id FROM refresh_tokens WHERE token_hash = ?)
                    """
            ).execute(arguments: [SQLiteRows.ms(now), tokenHash])
            return try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT f.* FROM refresh_families f JOIN refresh_tokens t ON t.family_id = f.id WHERE t.token_hash = ?
                        """), arguments: [tokenHash]
            ).map(SQLiteRows.refreshFamily)
        }
    }

    package func revokeRefreshFamilies(userID: String, now: Date) async throws -> [String] {
        try await pool.write { db in
            let ids = try String.fetchAll(
                db.cachedStatement(sql: "SELECT id FROM refresh_families WHERE user_id = ? AND revoked_at IS NULL"),
                arguments: [userID])
            try db.cachedStatement(sql: "UPDATE refresh_families SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL").execute(
                arguments: [SQLiteRows.ms(now), userID])
            return ids
        }
    }
}
