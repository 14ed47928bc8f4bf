import ArgumentParser
import Foundation
import RoquaChatClient
import RoquaQR

/// `verify GROUP MEMBER [--qr] [--scan TEXT] [--confirm] [--json]`: the safety number of this user and a member.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Show the safety number of you and a member, to compare in person; --confirm once it matched.",
        discussion: """
            Both phones print the same 60 digits (and with --qr the same QR code) when each holds the other's \
            real identity key. If they differ, someone (the server, the network) put another key in between: \
            do not confirm, and tell the guide. --scan compares the text a QR reader got from the other phone's \
            code (exit 1 when it differs). The key comes from this device's verified log of the group (works offline).
            """)

    @OptionGroup var home: HomeOptions

    @Argument(help: "The group: its id or its name.")
    var group: String

    @Argument(help: "The member: user id, or phone number of a member.")
    var member: String

    @Flag(help: "Also print the number as a QR code, for the member's phone to scan.")
    var qr = false

    @Option(help: ArgumentHelp("Compare the text scanned from the member's QR code (or the number they read out).", valueName: "TEXT"))
    var scan: String?

    @Flag(help: "Record that you compared the number with the member and it matched.")
    var confirm = false

    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        let client = try home.client()
        let groupID = try client.groupID(group)
        var found = try await client.identity(groupID: groupID, member: member)
        // A scan that does not match stops before anything is confirmed.
        if let scan, try !found.matches(scanned: scan) { throw ChatClientError.safetyNumberMismatch(userID: found.userID) }
        if confirm { found = try await client.confirmIdentity(groupID: groupID, member: found.userID) }
        if json {
            return print(
                try ChatOutput.json(
                    VerifyAnswer(
                        userID: found.userID, identityKey: found.identityKey, safetyNumber: found.safetyNumber,
                        scanText: found.scanText, confirmed: found.confirmed, changed: found.changed)))
        }
        if qr {
            for line in try QRCode(found.scanText).terminalLines() { print(line) }
        }
        if scan != nil { print("the scanned code matches your safety number with user \(found.userID)") }
        print("safety number with user \(found.userID):")
        let groups = found.safetyNumber.split(separator: " ")
        for row in stride(from: 0, to: groups.count, by: 4) {
            print("  " + groups[row..<min(row + 4, groups.count)].joined(separator: " "))
        }
        if found.changed { print("their identity key changed since they were first added to this group") }
        print(
            found.confirmed
                ? "confirmed: you compared this number with them"
                : "not confirmed: compare in person; once it matched, run: \(ChatHint.command("verify", group, member, "--confirm"))")
    }
}

/// `verify --json`: the flags as JSON booleans.
private struct VerifyAnswer: Encodable {
    var userID: String
    var identityKey: String
    var safetyNumber: String
    /// What the number's QR code holds.
    var scanText: String
    var confirmed: Bool
    var changed: Bool

    enum CodingKeys: String, CodingKey {
        case userID = "user_id", identityKey = "identity_key", safetyNumber = "safety_number", scanText = "scan_text", confirmed, changed
    }
}
