import Foundation
import GRDB
import RoquaChatCore

extension ClientStore {
    /// Keeps the display names the server gave for these members of the group; a name that breaks
    /// `DisplayName`'s rules (a server sending control characters to a terminal) is kept as none.
    func saveMemberNames(groupID: String, _ members: [GroupMemberInfo]) throws {
        try write { db in
            for member in members {
                let name = member.displayName.flatMap { try? DisplayName($0) }?.text
                try db.execute(
                    sql: """
                        INSERT INTO member_names (group_id, user_id, display_name) VALUES (?, ?, ?)
                        ON CONFLICT (group_id, user_id) DO UPDATE SET display_name = excluded.display_name
                        """, arguments: [groupID, member.userID, name])
            }
        }
    }

    /// The display names known for the group's members (user id → name; members without one left out).
    func memberNames(groupID: String) throws -> [String: String] {
        try read { db in
            var names: [String: String] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT user_id, display_name FROM member_names WHERE group_id = ? AND display_name IS NOT NULL",
                arguments: [groupID])
            {
                names[row["user_id"]] = row["display_name"]
            }
            return names
        }
    }
}
