import ArgumentParser
import RoquaChatClient
import RoquaIO

/// `send GROUP TEXT`, `send GROUP --location LAT LON` or `send GROUP --file PATH`: stores the message (durable when this
/// returns, pending until `sync` pushes it); works without a connection.
struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send a text, a location, an image or a file to a group (queued here; `sync` pushes it).",
        discussion: """
            A location's address is resolved offline from Roqua's boundary database, and travels encrypted with the \
            coordinates. A file (up to 10 MiB; an image when its first bytes say PNG, JPEG, GIF, WebP or HEIC) is sealed \
            under a key of its own, which travels inside the encrypted message: the server and relays hold only ciphertext.
            """)

    @OptionGroup var home: HomeOptions

    @Argument(help: "The group: its id or its name.")
    var group: String

    @Argument(help: ArgumentHelp("The text; with --location, LAT LON.", valueName: "TEXT | LAT LON"))
    var values: [String] = []

    @Flag(help: "Send a location: LAT LON in degrees.")
    var location = false

    @Option(help: ArgumentHelp("Send this file (or image) instead of a text.", valueName: "PATH"))
    var file: String?

    @Option(help: ArgumentHelp("The boundary database for the address (default: $ROQUA_BOUNDARIES or the data home's).", valueName: "PATH"))
    var boundaries: String?

    func validate() throws {
        if let file {
            guard !location, values.isEmpty, boundaries == nil else {
                throw ValidationError("--file takes no text, --location or --boundaries")
            }
            guard !file.isEmpty else { throw ValidationError("--file needs a path") }
        } else if location {
            guard values.count == 2, Degrees(argument: values[0]) != nil, Degrees(argument: values[1]) != nil else {
                throw ValidationError("--location takes two numbers: LAT LON (e.g. 40.9903 29.0295)")
            }
        } else {
            guard values.count == 1, !values[0].isEmpty else {
                throw ValidationError("give the text as one argument (quote it), or --location LAT LON")
            }
            guard boundaries == nil else { throw ValidationError("--boundaries only applies with --location") }
        }
    }

    func run() async throws {
        let client = try home.client()
        let groupID = try client.groupID(group)
        let message: ClientMessage
        if let file {
            message = try await client.send(groupID: groupID, file: file)
            let attachment = message.attachment.map { " \($0.name) (\($0.mime), \($0.size) bytes)" } ?? ""
            print("queued \(message.type.rawValue) \(message.localID)\(attachment)")
        } else if location, let latitude = Degrees(argument: values[0])?.value, let longitude = Degrees(argument: values[1])?.value {
            let address = try LocationAddress.resolve(latitude: latitude, longitude: longitude, boundaries: boundaries)
            message = try await client.send(
                groupID: groupID, location: LocationBody(latitude: latitude, longitude: longitude, address: address))
            print("queued location \(message.localID)" + (address.map { " (\($0))" } ?? " (no address: outside every boundary)"))
        } else {
            message = try await client.send(groupID: groupID, text: values[0])
            print("queued text \(message.localID)")
        }
    }
}

/// A degree value; a negative one may arrive marked (see `RoquaChatCommand.main`).
struct Degrees {
    let value: Double

    init?(argument: String) {
        guard let value = Double(NegativeNumberMark.unmark(argument)) else { return nil }
        self.value = value
    }
}
