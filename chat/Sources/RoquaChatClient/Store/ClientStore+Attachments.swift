import Foundation
import GRDB
import RoquaChatCore
import RoquaIO

/// An image or file message's body as held here, with where the message stands.
struct HeldAttachment: Sendable {
    var groupID: String
    var pending: Bool
    var body: AttachmentBody
}

extension ClientStore {
    /// The readable image and file messages' bodies (a body that is not an attachment's JSON —
    /// a sender's bug — is skipped: there is no file to fetch for it).
    func attachments() throws -> [HeldAttachment] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT group_id, status, body FROM messages WHERE type IN ('image', 'file') AND body IS NOT NULL
                    """
            ).compactMap { row in
                let text: String = row["body"]
                guard let body = try? CheckedJSONDecoder().decode(AttachmentBody.self, from: Data(text.utf8)) else { return nil }
                return HeldAttachment(
                    groupID: row["group_id"], pending: (row["status"] as String) == MessageStatus.pending.rawValue, body: body)
            }
        }
    }
}
