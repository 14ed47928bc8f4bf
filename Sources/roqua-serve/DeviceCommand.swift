import ArgumentParser
import Foundation
import RoquaBoundaries
import RoquaCommandLine
import RoquaCommandOptions
import RoquaQR
import RoquaRegions
import RoquaServeInput

/// `roqua serve device add|list|revoke`: the phones allowed to post positions live. Works on the
/// store whether or not the server runs (a running server reads devices per request).
struct DeviceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "Phones that post positions live (OwnTracks, Overland, Traccar Client, OsmAnd, GPSLogger).",
        subcommands: [Add.self, List.self, Revoke.self]
    )

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

        @Option(
            help: ArgumentHelp(
                "Also print a QR code the app scans to set itself up (owntracks or overland).",
                valueName: "APP"))
        var qr: SetupApp?

        @OptionGroup var store: StoreOptions

        enum SetupApp: String, ExpressibleByArgument, CaseIterable { case owntracks, overland }

        func validate() throws {
            // Checked before the device is stored: a bad address must not leave a device behind.
            _ = try setup(token: "check")
        }

        func setup(token: String) throws -> DeviceSetup {
            do { return try DeviceSetup(name: name, token: token, base: url) } catch let error as BadRequest {
                throw ValidationError("--url: " + error.message)
            }
        }

        func run() throws {
            let setup = try setup(token: try store.open().addDevice(name))
            if json { return try RoquaProgram.printJSON(Added(setup)) }
            print(
                """
                Device \(name) added. Its token (shown only now; it can post positions and read nothing):
                  \(setup.token)

                \(setup.instructions)
                """)
            if let qr {
                let link = qr == .owntracks ? setup.ownTracksLink : setup.overlandLink
                print("\nScan with the phone's camera to set up \(qr == .owntracks ? "OwnTracks" : "Overland"):")
                try QRCode(link).terminalLines().forEach { print($0) }
            }
        }
    }

    /// `device add --json`: `{"name","token","owntracks":{"user","password"},"urls":{…},"links":{"owntracks","overland"}}`.
    struct Added: Encodable {
        struct OwnTracksLogin: Encodable {
            var user: String
            var password: String
        }

        struct Links: Encodable {
            var owntracks: String
            var overland: String
        }

        var name: String
        var token: String
        var owntracks: OwnTracksLogin
        var urls: [String: String]
        var links: Links

        init(_ setup: DeviceSetup) {
            (name, token) = (setup.name, setup.token)
            owntracks = OwnTracksLogin(user: setup.name, password: setup.token)
            urls = setup.urls
            links = Links(owntracks: setup.ownTracksLink, overland: setup.overlandLink)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the devices.")

        @Flag(help: "Print one JSON document.")
        var json = false

        @OptionGroup var store: StoreOptions

        func run() throws {
            let devices = try store.open().devices()
            if json { return try RoquaProgram.printJSON(devices) }
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

        @OptionGroup var store: StoreOptions

        func run() throws {
            try store.open().revokeDevice(name)
            print("Device \(name) revoked.")
        }
    }
}
