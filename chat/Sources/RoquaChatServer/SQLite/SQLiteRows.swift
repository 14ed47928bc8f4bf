import Foundation
import GRDB
import RoquaChatCore

/// Rows to records. A value that does not parse (a hand-edited database) is a typed error that
/// names the table, never a crash.
enum SQLiteRows: StoreRowMapping {
    static func user(_ row: Row) throws -> UserRecord {
        UserRecord(
            id: row["id"], phone: try phone(row["phone"], table: "users"),
            role: try enumValue(row["role"], table: "users"), createdAt: date(row["created_at"] as Int64),
            displayName: row["display_name"])
    }

    static func group(_ row: Row) throws -> GroupRecord {
        GroupRecord(
            id: row["id"], name: row["name"], guideID: row["guide_id"],
            startDate: try day(row["start_date"]), endDate: try day(row["end_date"]),
            createdAt: date(row["created_at"] as Int64), lastSeq: row["last_seq"])
    }

    static func membership(_ row: Row) throws -> MembershipRecord {
        MembershipRecord(
            groupID: row["group_id"], userID: row["user_id"],
            role: try enumValue(row["role"], table: "memberships"),
            joinedAt: date(row["joined_at"] as Int64), visibleAfterSeq: row["visible_after_seq"],
            removedAt: date(row["removed_at"] as Int64?), removedAtSeq: row["removed_at_seq"])
    }

    static func invite(_ row: Row) throws -> InviteRecord {
        InviteRecord(
            codeHash: row["code_hash"], groupID: row["group_id"], phone: try phone(row["phone"], table: "invites"),
            createdBy: row["created_by"], createdAt: date(row["created_at"] as Int64),
            expiresAt: date(row["expires_at"] as Int64), acceptedAt: date(row["accepted_at"] as Int64?),
            acceptedBy: row["accepted_by"])
    }

    static func refreshToken(_ row: Row) -> RefreshTokenRecord {
        RefreshTokenRecord(
            tokenHash: row["token_hash"], familyID: row["family_id"], issuedAt: date(row["issued_at"] as Int64),
            expiresAt: date(row["expires_at"] as Int64), usedAt: date(row["used_at"] as Int64?))
    }

    static func refreshFamily(_ row: Row) -> RefreshFamilyRecord {
        RefreshFamilyRecord(
            id: row["id"], userID: row["user_id"], deviceID: row["device_id"],
            createdAt: date(row["created_at"] as Int64), revokedAt: date(row["revoked_at"] as Int64?))
    }

    static func message(_ row: Row) throws -> ChatMessage {
        let metadata = try metadata(row["metadata"], serverID: row["server_id"])
        return ChatMessage(
            serverID: row["server_id"], seq: row["seq"], groupID: row["group_id"], senderID: row["sender_id"],
            deviceID: row["device_id"], localID: row["local_id"],
            type: try enumValue(row["type"], table: "messages"), content: row["content"], metadata: metadata,
            sentAt: date(row["sent_at"] as Int64), orderAt: date(row["order_at"] as Int64),
            receivedAt: date(row["received_at"] as Int64), keyEpoch: row["key_epoch"], signature: row["signature"])
    }

    static func receipt(_ row: Row) -> ReceiptMark {
        ReceiptMark(
            groupID: row["group_id"], userID: row["user_id"], deliveredUpTo: row["delivered_up_to"],
            readUpTo: row["read_up_to"], updatedAt: date(row["updated_at"] as Int64))
    }
}
