import ArgumentParser
import Foundation
import RoquaChatClient
import RoquaChatCore
import RoquaCommandLine

/// `messages GROUP [--json]`: the group's messages as this device holds them (offline).
struct MessagesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "messages",
        abstract: "List a group's messages in order: status, sync time, sender, a location's address, an image's or file's name.",
        discussion: """
            A sender is shown as `me`, by the name they gave themselves, or as … and the end of their user id when they gave             none. A name that could be mistaken for another member's (or for `me`, or a short id) is shown with the end of             the user id, and a guide of the group's verified log with (guide). Names are fetched at sync.
            """)

    @OptionGroup var home: HomeOptions

    @Argument(help: "The group: its id or its name.")
    var group: String

    @Flag(help: "Print a JSON array, one object per message.")
    var json = false

    func run() async throws {
        let client = try home.client()
        let groupID = try client.groupID(group)
        for warning in try client.identityWarnings(groupID: groupID) {
            RoquaProgram.warn(ChatHint.rewrite(warning))
        }
        let messages = try client.messages(groupID: groupID)
        let labels = try await client.senderLabels(groupID: groupID, senders: Set(messages.map(\.senderID)))
        if json {
            return print(try ChatOutput.json(messages.map { MessageRow($0, client: client, senderName: labels.name(of: $0.senderID)) }))
        }
        for message in messages {
            let synced = message.syncedAt.map { " synced \(ChatTime.format($0))" } ?? ""
            print(
                "\(ChatTime.format(message.sentAt))  \(message.status.rawValue)\(synced)  "
                    + "\(labels.label(of: message.senderID)): \(MessageRow(message, client: client, senderName: nil).summary)")
        }
    }
}

/// One message for scripts: the text, or the location with its address, beside the sync state.
struct MessageRow: Encodable {
    let localID: String
    let senderID: String
    /// The sender's display name as last fetched (nil: none, or not a valid name).
    let senderName: String?
    let deviceID: String
    let type: MessageType
    let text: String?
    let location: LocationBody?
    let attachment: AttachmentRow?
    let sentAt: Date
    let hlc: String
    let status: MessageStatus
    let seq: Int64?
    let syncedAt: Date?
    let failure: String?
    /// Whether the body could be read (false until the key of its epoch arrives).
    let readable: Bool

    init(_ message: ClientMessage, client: ChatClient, senderName: String?) {
        localID = message.localID
        senderID = message.senderID
        self.senderName = senderName
        deviceID = message.deviceID
        type = message.type
        location = message.location
        text = message.type == .text ? message.body : nil
        attachment = message.attachment.map {
            AttachmentRow(name: $0.name, mime: $0.mime, size: $0.size, sha256: $0.sha256, here: client.holdsFile($0))
        }
        sentAt = message.sentAt
        hlc = message.hlc
        status = message.status
        seq = message.seq
        syncedAt = message.syncedAt
        failure = message.failure
        readable = message.body != nil
    }

    var summary: String {
        guard readable else { return "(\(type.rawValue), not readable yet: no key of its epoch here)" }
        if let location {
            return String(format: "location %.5f %.5f", location.latitude, location.longitude)
                + " — " + (location.address ?? "no address (outside every boundary)")
        }
        if let attachment {
            return "\(type.rawValue) \(attachment.name) (\(attachment.mime), \(attachment.size) bytes)"
                + (attachment.here ? "" : " — not on this device yet")
        }
        return text ?? ""
    }

    enum CodingKeys: String, CodingKey {
        case localID = "local_id"
        case senderID = "sender_id"
        case senderName = "sender_name"
        case deviceID = "device_id"
        case type, text, location, attachment
        case sentAt = "sent_at"
        case hlc, status, seq
        case syncedAt = "synced_at"
        case failure, readable
    }
}

/// An image's or file's description for scripts (its key stays in the store).
struct AttachmentRow: Encodable {
    let name: String
    let mime: String
    let size: Int
    let sha256: String
    /// Whether the file is on this device (`save` can write it).
    let here: Bool
}
