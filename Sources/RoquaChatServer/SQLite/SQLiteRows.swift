import Foundation
import GRDB
import RoquaChatCore

/// Rows to records. A value that does not parse (a hand-edited database) is a typed error that
/// names the table, never a crash.
enum SQLiteRows {
    static func ms(_ date: Date) -> Int64 { ChatTime.milliseconds(date) }
    static func ms(_ date: Date?) -> Int64? { date.map(ChatTime.milliseconds) }
    static func date(_ value: Int64) -> Date { ChatTime.date(milliseconds: value) }
    static func date(_ value: Int64?) -> Date? { value.map(ChatTime.date(milliseconds:)) }

    static func user(_ row: Row) throws -> UserRecord {
        UserRecord(id: row["id"], phone: try phone(row["phone"], table: "users"),
                   role: try enumValue(row["role"], table: "users"), createdAt: date(row["created_at"] as Int64))
    }

    static func group(_ row: Row) throws -> GroupRecord {
        GroupRecord(id: row["id"], name: row["name"], guideID: row["guide_id"],
                    startDate: try day(row["start_date"]), endDate: try day(row["end_date"]),
                    createdAt: date(row["created_at"] as Int64), lastSeq: row["last_seq"])
    }

    static func membership(_ row: Row) throws -> MembershipRecord {
        MembershipRecord(groupID: row["group_id"], userID: row["user_id"],
                         role: try enumValue(row["role"], table: "memberships"),
                         joinedAt: date(row["joined_at"] as Int64), visibleAfterSeq: row["visible_after_seq"],
                         removedAt: date(row["removed_at"] as Int64?), removedAtSeq: row["removed_at_seq"])
    }

    static func invite(_ row: Row) throws -> InviteRecord {
        InviteRecord(codeHash: row["code_hash"], groupID: row["group_id"], phone: try phone(row["phone"], table: "invites"),
                     createdBy: row["created_by"], createdAt: date(row["created_at"] as Int64),
                     expiresAt: date(row["expires_at"] as Int64), acceptedAt: date(row["accepted_at"] as Int64?),
                     acceptedBy: row["accepted_by"])
    }

    static func refreshToken(_ row: Row) -> RefreshTokenRecord {
        RefreshTokenRecord(tokenHash: row["token_hash"], familyID: row["family_id"], issuedAt: date(row["issued_at"] as Int64),
                           expiresAt: date(row["expires_at"] as Int64), usedAt: date(row["used_at"] as Int64?))
    }

    static func refreshFamily(_ row: Row) -> RefreshFamilyRecord {
        RefreshFamilyRecord(id: row["id"], userID: row["user_id"], deviceID: row["device_id"],
                            createdAt: date(row["created_at"] as Int64), revokedAt: date(row["revoked_at"] as Int64?))
    }

    static func otpState(_ row: Row) throws -> OTPState {
        let sendTimes = try (row["send_times"] as String).split(separator: ",").map { text in
            guard let value = Int64(text) else { throw ChatStoreError.corruptRow(table: "otp_states", reason: "send time '\(text)'") }
            return date(value)
        }
        return OTPState(codeMAC: row["code_mac"], codeExpiresAt: date(row["code_expires_at"] as Int64?),
                        attemptsLeft: row["attempts_left"], sendTimes: sendTimes, failures: row["failures"],
                        lastFailureAt: date(row["last_failure_at"] as Int64?), blockedUntil: date(row["blocked_until"] as Int64?))
    }

    static func sendTimesText(_ state: OTPState) -> String {
        state.sendTimes.map { String(ms($0)) }.joined(separator: ",")
    }

    static func message(_ row: Row) throws -> ChatMessage {
        var metadata: JSONValue?
        if let text = row["metadata"] as String? {
            do {
                metadata = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
            } catch {
                throw ChatStoreError.corruptRow(table: "messages", reason: "metadata of \(row["server_id"] as String) is not JSON")
            }
        }
        return ChatMessage(serverID: row["server_id"], seq: row["seq"], groupID: row["group_id"], senderID: row["sender_id"],
                           deviceID: row["device_id"], localID: row["local_id"],
                           type: try enumValue(row["type"], table: "messages"), content: row["content"], metadata: metadata,
                           sentAt: date(row["sent_at"] as Int64), orderAt: date(row["order_at"] as Int64),
                           receivedAt: date(row["received_at"] as Int64), keyEpoch: row["key_epoch"], signature: row["signature"])
    }

    static func receipt(_ row: Row) -> ReceiptMark {
        ReceiptMark(groupID: row["group_id"], userID: row["user_id"], deliveredUpTo: row["delivered_up_to"],
                    readUpTo: row["read_up_to"], updatedAt: date(row["updated_at"] as Int64))
    }

    /// Canonical metadata text for storage.
    static func metadataText(_ metadata: JSONValue?) throws -> String? {
        try metadata.map { String(decoding: try $0.canonicalData(), as: UTF8.self) }
    }

    static func phone(_ text: String, table: String) throws -> PhoneNumber {
        do { return try PhoneNumber(text) } catch {
            throw ChatStoreError.corruptRow(table: table, reason: "phone is not in E.164 form")
        }
    }

    static func day(_ text: String?) throws -> CalendarDay? {
        guard let text else { return nil }
        do { return try CalendarDay(text) } catch {
            throw ChatStoreError.corruptRow(table: "tour_groups", reason: "\(error)")
        }
    }

    static func enumValue<T: RawRepresentable>(_ text: String, table: String) throws -> T where T.RawValue == String {
        guard let value = T(rawValue: text) else { throw ChatStoreError.corruptRow(table: table, reason: "unknown value '\(text)'") }
        return value
    }
}
