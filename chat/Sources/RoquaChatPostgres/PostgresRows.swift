import Foundation
import PostgresNIO
import RoquaChatCore
import RoquaChatServer

/// Rows to records, mirroring the SQLite mappers; unreadable values are typed errors naming the table.
enum PostgresRows: StoreRowMapping {
    /// Every row of a query, mapped.
    static func all<T>(_ rows: PostgresRowSequence, _ map: (PostgresRandomAccessRow) throws -> T) async throws -> [T] {
        var result: [T] = []
        for try await row in rows { result.append(try map(row.makeRandomAccess())) }
        return result
    }

    static func first<T>(_ rows: PostgresRowSequence, _ map: (PostgresRandomAccessRow) throws -> T) async throws -> T? {
        var result: T?
        for try await row in rows where result == nil { result = try map(row.makeRandomAccess()) }
        return result
    }

    static func user(_ row: PostgresRandomAccessRow) throws -> UserRecord {
        UserRecord(
            id: try row["id"].decode(String.self), phone: try phone(try row["phone"].decode(String.self), table: "users"),
            role: try enumValue(try row["role"].decode(String.self), table: "users"),
            createdAt: date(try row["created_at"].decode(Int64.self)),
            displayName: try row["display_name"].decode(String?.self))
    }

    static func group(_ row: PostgresRandomAccessRow) throws -> GroupRecord {
        GroupRecord(
            id: try row["id"].decode(String.self), name: try row["name"].decode(String.self),
            guideID: try row["guide_id"].decode(String.self),
            startDate: try day(try row["start_date"].decode(String?.self)),
            endDate: try day(try row["end_date"].decode(String?.self)),
            createdAt: date(try row["created_at"].decode(Int64.self)), lastSeq: try row["last_seq"].decode(Int64.self))
    }

    static func membership(_ row: PostgresRandomAccessRow) throws -> MembershipRecord {
        MembershipRecord(
            groupID: try row["group_id"].decode(String.self), userID: try row["user_id"].decode(String.self),
            role: try enumValue(try row["role"].decode(String.self), table: "memberships"),
            joinedAt: date(try row["joined_at"].decode(Int64.self)),
            visibleAfterSeq: try row["visible_after_seq"].decode(Int64.self),
            removedAt: date(try row["removed_at"].decode(Int64?.self)),
            removedAtSeq: try row["removed_at_seq"].decode(Int64?.self))
    }

    static func invite(_ row: PostgresRandomAccessRow) throws -> InviteRecord {
        InviteRecord(
            codeHash: try row["code_hash"].decode(String.self), groupID: try row["group_id"].decode(String.self),
            phone: try phone(try row["phone"].decode(String.self), table: "invites"),
            createdBy: try row["created_by"].decode(String.self), createdAt: date(try row["created_at"].decode(Int64.self)),
            expiresAt: date(try row["expires_at"].decode(Int64.self)),
            acceptedAt: date(try row["accepted_at"].decode(Int64?.self)), acceptedBy: try row["accepted_by"].decode(String?.self))
    }

    static func refreshToken(_ row: PostgresRandomAccessRow) throws -> RefreshTokenRecord {
        RefreshTokenRecord(
            tokenHash: try row["token_hash"].decode(String.self), familyID: try row["family_id"].decode(String.self),
            issuedAt: date(try row["issued_at"].decode(Int64.self)), expiresAt: date(try row["expires_at"].decode(Int64.self)),
            usedAt: date(try row["used_at"].decode(Int64?.self)))
    }

    static func refreshFamily(_ row: PostgresRandomAccessRow) throws -> RefreshFamilyRecord {
        RefreshFamilyRecord(
            id: try row["id"].decode(String.self), userID: try row["user_id"].decode(String.self),
            deviceID: try row["device_id"].decode(String.self), createdAt: date(try row["created_at"].decode(Int64.self)),
            revokedAt: date(try row["revoked_at"].decode(Int64?.self)))
    }

    static func message(_ row: PostgresRandomAccessRow) throws -> ChatMessage {
        let serverID = try row["server_id"].decode(String.self)
        let metadata = try metadata(try row["metadata"].decode(String?.self), serverID: serverID)
        return ChatMessage(
            serverID: serverID, seq: try row["seq"].decode(Int64.self), groupID: try row["group_id"].decode(String.self),
            senderID: try row["sender_id"].decode(String.self), deviceID: try row["device_id"].decode(String?.self),
            localID: try row["local_id"].decode(String.self),
            type: try enumValue(try row["type"].decode(String.self), table: "messages"),
            content: try row["content"].decode(String.self), metadata: metadata,
            sentAt: date(try row["sent_at"].decode(Int64.self)), orderAt: date(try row["order_at"].decode(Int64.self)),
            receivedAt: date(try row["received_at"].decode(Int64.self)),
            keyEpoch: try row["key_epoch"].decode(Int64?.self).map(Int.init),
            signature: try row["signature"].decode(String?.self))
    }

    static func receipt(_ row: PostgresRandomAccessRow) throws -> ReceiptMark {
        ReceiptMark(
            groupID: try row["group_id"].decode(String.self), userID: try row["user_id"].decode(String.self),
            deliveredUpTo: try row["delivered_up_to"].decode(Int64.self), readUpTo: try row["read_up_to"].decode(Int64.self),
            updatedAt: date(try row["updated_at"].decode(Int64.self)))
    }
}
