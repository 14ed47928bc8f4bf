import ArgumentParser
import Foundation
import RoquaBoundaries
import RoquaRegions

/// `roqua serve device add|list|revoke`: the phones allowed to post positions live. Works on the
/// store whether or not the server runs (a running server reads devices per request).
struct DeviceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "Phones that post positions live (OwnTracks, Overland, Traccar Client, OsmAnd, GPSLogger).",
        subcommands: [Add.self, List.self, Revoke.self]
    )

    struct StoreOption: ParsableArguments {
        @Option(help: ArgumentHelp("The region store (default: $ROQUA_STORE or the data home).", valueName: "PATH"))
        var store: String?

        func open() throws -> RegionStore { try RegionStore(path: store ?? RegionStore.defaultPath()) }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a device: prints its token once, and each app's settings.",
            discussion: """
                The token can post positions and nothing else: it reads no history. The URLs use --url, the address \
                the phone reaches the server at (default http://127.0.0.1:8080; for a phone on the LAN start the \
                server with --listen 0.0.0.0:8080 --token … --allow-host ADDRESS and pass --url http://ADDRESS:8080).
                """
        )

        @Argument(help: "The device's name: letters, digits, '-', '_', '.'.")
        var name: String

        @Option(help: ArgumentHelp("The server's address as the phone reaches it.", valueName: "URL"))
        var url = "http://127.0.0.1:8080"

        @Flag(help: "Print one JSON document.")
        var json = false

        @OptionGroup var store: StoreOption

        func run() throws {
            let base = url.hasSuffix("/") ? String(url.dropLast()) : url
            guard let parsed = URL(string: base), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil else {
                throw ValidationError("--url must be http://HOST:PORT or https://HOST")
            }
            let token = try store.open().addDevice(name)
            let encoded = token  // URL-safe base64: nothing to escape
            let urls: [(String, String)] = [
                ("owntracks", "\(base)/api/ingest/owntracks"),
                ("overland", "\(base)/api/ingest/overland?token=\(encoded)"),
                ("traccar", "\(base)/api/ingest/traccar"),
                ("osmand", "\(base)/api/ingest/osmand?id=\(encoded)"),
                ("gpslogger", "\(base)/api/ingest/gpslogger?token=\(encoded)&lat=%LAT&lon=%LON&time=%TIME&acc=%ACC&spd=%SPD"),
            ]
            if json {
                let document: [String: Any] = [
                    "name": name, "token": token, "owntracks": ["user": name, "password": token],
                    "urls": Dictionary(uniqueKeysWithValues: urls),
                ]
                let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
                print(String(decoding: data, as: UTF8.self))
                return
            }
            print("""
                Device \(name) added. Its token (shown only now; it can post positions and read nothing):
                  \(token)

                OwnTracks (Settings → Connection): Mode HTTP, URL \(urls[0].1)
                  Authentication on, User \(name), Password the token
                Overland (Settings → Receiver Endpoint): \(urls[1].1)
                Traccar Client: Server URL \(urls[2].1), Device identifier the token
                OsmAnd (Trip recording → Online tracking web address): \(urls[3].1)&lat={0}&lon={1}&timestamp={2}&speed={5}&accuracy={3}
                GPSLogger (Log to custom URL): \(urls[4].1)
                """)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the devices.")

        @Flag(help: "Print one JSON document.")
        var json = false

        @OptionGroup var store: StoreOption

        func run() throws {
            let devices = try store.open().devices()
            if json {
                let encoder = JSONEncoder()
                encoder.dateEncodingStrategy = .iso8601
                encoder.keyEncodingStrategy = .convertToSnakeCase
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try encoder.encode(devices), as: UTF8.self))
                return
            }
            guard !devices.isEmpty else { return print("No devices (roqua serve device add NAME adds one).") }
            let format = ISO8601DateFormatter()
            for device in devices {
                var line = "\(device.name): added \(format.string(from: device.createdAt))"
                line += device.lastSeen.map { ", last posted \(format.string(from: $0))" } ?? ", never posted"
                if device.fixesPosted + device.fixesSkipped > 0 {
                    line += "; \(device.fixesPosted) positions, \(device.fixesSkipped) skipped (impossible values)"
                }
                if let revoked = device.revokedAt { line += ", revoked \(format.string(from: revoked))" }
                print(line)
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a device: its token stops working at once.")

        @Argument(help: "The device's name.")
        var name: String

        @OptionGroup var store: StoreOption

        func run() throws {
            try store.open().revokeDevice(name)
            print("Device \(name) revoked.")
        }
    }
}
