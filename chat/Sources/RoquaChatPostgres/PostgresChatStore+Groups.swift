import Foundation
import PostgresNIO
import RoquaChatCore
import RoquaChatServer

extension PostgresChatStore {
    package func createGroup(_ group: GroupRecord, guideMembership: MembershipRecord) async throws {
        try await transaction { connection in
            try await connection.query(
                """
                INSERT INTO tour_groups (id, name, guide_id, start_date, end_date, created_at, last_seq)
                VALUES (\(group.id), \(group.name), \(group.guideID), \(group.startDate?.description), \(group.endDate?.description),
                        \(PostgresRows.ms(group.createdAt)), 0)
                """, logger: logger)
            try await upsert(connection, membership: guideMembership)
        }
    }

    func upsert(_ connection: PostgresConnection, membership: MembershipRecord) async throws {
        try await connection.query(
            """
            INSERT INTO memberships (group_id, user_id, role, joined_at, visible_after_seq, removed_at, removed_at_seq)
            VALUES (\(membership.groupID), \(membership.userID), \(membership.role.rawValue), \(PostgresRows.ms(membership.joinedAt)),
                    \(membership.visibleAfterSeq), \(PostgresRows.ms(membership.removedAt)), \(membership.removedAtSeq))
            ON CONFLICT (group_id, user_id) DO UPDATE SET role = EXCLUDED.role, joined_at = EXCLUDED.joined_at,
                visible_after_seq = EXCLUDED.visible_after_seq, removed_at = EXCLUDED.removed_at, removed_at_seq = EXCLUDED.removed_at_seq
            """, logger: logger)
    }

    /// The group row, locked for the rest of the transaction when `lock` (pushes, removals and
    /// joins of one group then happen one after another).
    func group(_ connection: PostgresConnection, id: String, lock: Bool) async throws -> GroupRecord? {
        let query: PostgresQuery =
            lock ? "SELECT * FROM tour_groups WHERE id = \(id) FOR UPDATE" : "SELECT * FROM tour_groups WHERE id = \(id)"
        return try await PostgresRows.first(try await connection.query(query, logger: logger), PostgresRows.group)
    }

    func membership(_ connection: PostgresConnection, groupID: String, userID: String) async throws -> MembershipRecord? {
        try await PostgresRows.first(
            try await connection.query(
                "SELECT * FROM memberships WHERE group_id = \(groupID) AND user_id = \(userID)", logger: logger), PostgresRows.membership)
    }

    package func group(id: String) async throws -> GroupRecord? {
        try await PostgresRows.first(
            try await client.query("SELECT * FROM tour_groups WHERE id = \(id)", logger: logger), PostgresRows.group)
    }

    package func membership(groupID: String, userID: String) async throws -> MembershipRecord? {
        try await PostgresRows.first(
            try await client.query(
                "SELECT * FROM memberships WHERE group_id = \(groupID) AND user_id = \(userID)", logger: logger), PostgresRows.membership)
    }

    package func members(groupID: String) async throws -> [MemberRow] {
        try await PostgresRows.all(
            try await client.query(
                """
                SELECT memberships.*, users.phone, users.display_name FROM memberships JOIN users ON users.id = memberships.user_id
                WHERE group_id = \(groupID) ORDER BY joined_at, user_id
                """, logger: logger)
        ) { row in
            MemberRow(
                membership: try PostgresRows.membership(row),
                phone: try PostgresRows.phone(try row["phone"].decode(String.self), table: "users"),
                displayName: try row["display_name"].decode(String?.self))
        }
    }

    package func groups(memberID userID: String?) async throws -> [GroupRecord] {
        if let userID {
            return try await PostgresRows.all(
                try await client.query(
                    """
                    SELECT tour_groups.* FROM tour_groups JOIN memberships ON memberships.group_id = tour_groups.id
                    WHERE memberships.user_id = \(userID) AND memberships.removed_at IS NULL ORDER BY tour_groups.created_at, tour_groups.id
                    """, logger: logger), PostgresRows.group)
        }
        return try await PostgresRows.all(
            try await client.query("SELECT * FROM tour_groups ORDER BY created_at, id", logger: logger),
            PostgresRows.group)
    }

    package func createInvite(_ invite: InviteRecord) async throws {
        try await client.query(
            """
            INSERT INTO invites (code_hash, group_id, phone, created_by, created_at, expires_at)
            VALUES (\(invite.codeHash), \(invite.groupID), \(invite.phone.e164), \(invite.createdBy),
                    \(PostgresRows.ms(invite.createdAt)), \(PostgresRows.ms(invite.expiresAt)))
            """, logger: logger)
    }

    package func acceptInvite(codeHash: String, user: UserRecord, now: Date) async throws -> InviteDecision {
        try await transaction { connection in
            let invite = try await PostgresRows.first(
                try await connection.query(
                    "SELECT * FROM invites WHERE code_hash = \(codeHash) FOR UPDATE", logger: logger), PostgresRows.invite)
            var group: GroupRecord?
            var membership: MembershipRecord?
            if let invite {
                group = try await self.group(connection, id: invite.groupID, lock: true)
                membership = try await self.membership(connection, groupID: invite.groupID, userID: user.id)
            }
            let decision = InviteRules.decide(invite: invite, group: group, user: user, membership: membership, now: now)
            switch decision {
            case .join(let membership):
                try await upsert(connection, membership: membership)
                try await markAccepted(connection, codeHash: codeHash, by: user.id, now: now)
            case .alreadyMember:
                try await markAccepted(connection, codeHash: codeHash, by: user.id, now: now)
            case .failed:
                break
            }
            return decision
        }
    }

    func markAccepted(_ connection: PostgresConnection, codeHash: String, by userID: String, now: Date) async throws {
        try await connection.query(
            """
            UPDATE invites SET accepted_at = \(PostgresRows.ms(now)), accepted_by = \(userID) WHERE code_hash = \(codeHash)
            """, logger: logger)
    }

    package func removeMember(groupID: String, userID: String, now: Date) async throws -> Bool {
        try await transaction { connection in
            guard let group = try await group(connection, id: groupID, lock: true) else { return false }
            let rows = try await connection.query(
                """
                UPDATE memberships SET removed_at = \(PostgresRows.ms(now)), removed_at_seq = \(group.lastSeq)
                WHERE group_id = \(groupID) AND user_id = \(userID) AND removed_at IS NULL RETURNING user_id
                """, logger: logger)
            return try await PostgresRows.first(rows) { _ in true } ?? false
        }
    }
}
