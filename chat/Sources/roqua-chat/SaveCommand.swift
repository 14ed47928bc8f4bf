import ArgumentParser
import Foundation
import RoquaChatClient
import RoquaIO

/// `save GROUP LOCAL_ID --output PATH`: writes an image's or file's content, decrypted (offline).
struct SaveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "save",
        abstract: "Write the image or file of a message to a file (or - for standard output).")

    @OptionGroup var home: HomeOptions

    @Argument(help: "The group: its id or its name.")
    var group: String

    @Argument(help: ArgumentHelp("The message's local_id (see messages --json).", valueName: "LOCAL_ID"))
    var localID: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write it (a device or FIFO is written, never replaced).", valueName: "PATH"))
    var output: String

    func run() async throws {
        let client = try home.client()
        let (attachment, file) = try client.attachment(groupID: try client.groupID(group), localID: localID)
        guard let file else {
            throw ChatClientError.invalidInput(
                field: "message", value: localID,
                reason:
                    "its file \(attachment.name) has not reached this device yet: run `\(ChatHint.command("sync"))` (or peer) and try again"
            )
        }
        try OutputFile.write(file, to: output)
        if output != "-" {
            print("wrote \(attachment.name) (\(attachment.mime), \(file.count) bytes) to \(output)")
        }
    }
}
