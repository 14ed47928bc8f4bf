import ArgumentParser
import Foundation
import RoquaChatClient
import RoquaChatCore

/// `messages GROUP [--json]`: the group's messages as this device holds them (offline).
struct MessagesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "messages",
        abstract: "List a group's messages in order, with their status, sync time and, for locations, the address.")

    @OptionGroup var home: HomeOptions

    @Argument(help: "The group: its id or its name.")
    var group: String

    @Flag(help: "Print a JSON array, one object per message.")
    var json = false

    func run() async throws {
        let client = try home.client()
        let messages = try client.messages(groupID: try client.groupID(group))
        if json { return print(try ChatOutput.json(messages.map(MessageRow.init))) }
        let me = try await client.user().id
        for message in messages {
            // A UUIDv7 starts with its time, so the tail is what tells senders apart.
            let who = message.senderID == me ? "me" : "…" + message.senderID.suffix(6)
            let synced = message.syncedAt.map { " synced \(ChatTime.format($0))" } ?? ""
            print("\(ChatTime.format(message.sentAt))  \(who)  \(message.status.rawValue)\(synced)  \(MessageRow(message).summary)")
        }
    }
}

/// One message for scripts: the text, or the location with its address, beside the sync state.
struct MessageRow: Encodable {
    let localID: String
    let senderID: String
    let deviceID: String
    let type: MessageType
    let text: String?
    let location: LocationBody?
    let sentAt: Date
    let hlc: String
    let status: MessageStatus
    let seq: Int64?
    let syncedAt: Date?
    let failure: String?
    /// Whether the body could be read (false until the key of its epoch arrives).
    let readable: Bool

    init(_ message: ClientMessage) {
        localID = message.localID
        senderID = message.senderID
        deviceID = message.deviceID
        type = message.type
        location = message.location
        text = message.type == .location ? nil : message.body
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
        return text ?? ""
    }

    enum CodingKeys: String, CodingKey {
        case localID = "local_id"
        case senderID = "sender_id"
        case deviceID = "device_id"
        case type, text, location
        case sentAt = "sent_at"
        case hlc, status, seq
        case syncedAt = "synced_at"
        case failure, readable
    }
}
