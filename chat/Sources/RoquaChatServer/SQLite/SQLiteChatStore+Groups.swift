import Foundation
import GRDB
import RoquaChatCore

extension SQLiteChatStore {
    package func createGroup(_ group: GroupRecord, guideMembership: MembershipRecord) async throws {
        try await pool.write { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO tour_groups (id, name, guide_id, start_date, end_date, created_at, last_seq)
                    VALUES (?, ?, ?, ?, ?, ?, 0)
                    """
            ).execute(arguments: [
                group.id, group.name, group.guideID, group.startDate?.description, group.endDate?.description,
                SQLiteRows.ms(group.createdAt),
            ])
            try Self.upsert(db, membership: guideMembership)
        }
    }

    static func upsert(_ db: Database, membership: MembershipRecord) throws {
        try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO memberships
                    (group_id, user_id, role, joined_at, visible_after_seq, removed_at, removed_at_seq)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            membership.groupID, membership.userID, membership.role.rawValue, SQLiteRows.ms(membership.joinedAt),
            membership.visibleAfterSeq, SQLiteRows.ms(membership.removedAt), membership.removedAtSeq,
        ])
    }

    static func group(_ db: Database, id: String) throws -> GroupRecord? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM tour_groups WHERE id = ?"), arguments: [id]).map(SQLiteRows.group)
    }

    static func membership(_ db: Database, groupID: String, userID: String) throws -> MembershipRecord? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT * FROM memberships WHERE group_id = ? AND user_id = ?"),
            arguments: [groupID, userID]
        ).map(SQLiteRows.membership)
    }

    package func group(id: String) async throws -> GroupRecord? {
        try await pool.read { db in try Self.group(db, id: id) }
    }

    package func membership(groupID: String, userID: String) async throws -> MembershipRecord? {
        try await pool.read { db in try Self.membership(db, groupID: groupID, userID: userID) }
    }

    package func members(groupID: String) async throws -> [MemberRow] {
        try await pool.read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT memberships.*, users.phone, users.display_name FROM memberships JOIN users ON users.id = memberships.user_id
                        WHERE group_id = ? ORDER BY joined_at, user_id
                        """), arguments: [groupID]
            ).map { row in
                MemberRow(
                    membership: try SQLiteRows.membership(row), phone: try SQLiteRows.phone(row["phone"], table: "users"),
                    displayName: row["display_name"])
            }
        }
    }

    package func groups(memberID userID: String?) async throws -> [GroupRecord] {
        try await pool.read { db in
            if let userID {
                return try Row.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT tour_groups.* FROM tour_groups JOIN memberships ON memberships.group_id = tour_groups.id
                            WHERE memberships.user_id = ? AND memberships.removed_at IS NULL ORDER BY tour_groups.created_at, tour_groups.id
                            """), arguments: [userID]
                ).map(SQLiteRows.group)
            }
            return try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM tour_groups ORDER BY created_at, id")).map(SQLiteRows.group)
        }
    }

    package func createInvite(_ invite: InviteRecord) async throws {
        try await pool.write { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO invites (code_hash, group_id, phone, created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                invite.codeHash, invite.groupID, invite.phone.e164, invite.createdBy,
                SQLiteRows.ms(invite.createdAt), SQLiteRows.ms(invite.expiresAt),
            ])
        }
    }

    package func acceptInvite(codeHash: String, user: UserRecord, now: Date) async throws -> InviteDecision {
        try await pool.write { db in
            let invite = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM invites WHERE code_hash = ?"), arguments: [codeHash])
                .map(SQLiteRows.invite)
            let group = try invite.flatMap { try Self.group(db, id: $0.groupID) }
            let membership = try group.flatMap { try Self.membership(db, groupID: $0.id, userID: user.id) }
            let decision = InviteRules.decide(invite: invite, group: group, user: user, membership: membership, now: now)
            switch decision {
            case .join(let membership):
                try Self.upsert(db, membership: membership)
                fallthrough
            case .alreadyMember:
                try db.cachedStatement(sql: "UPDATE invites SET accepted_at = ?, accepted_by = ? WHERE code_hash = ?").execute(
                    arguments: [SQLiteRows.ms(now), user.id, codeHash])
            case .failed:
                break
            }
            return decision
        }
    }

    package func removeMember(groupID: String, userID: String, now: Date) async throws -> Bool {
        try await pool.write { db in
            try db.cachedStatement(
                sql: """
                    UPDATE memberships SET removed_at = ?,
                        removed_at_seq = (SELECT last_seq FROM tour_groups WHERE id = memberships.group_id)
                    WHERE group_id = ? AND user_id = ? AND removed_at IS NULL
                    """
            ).execute(arguments: [SQLiteRows.ms(now), groupID, userID])
            return db.changesCount > 0
        }
    }
}
