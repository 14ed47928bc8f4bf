import Foundation
import RoquaQR
import RoquaRegions
import RoquaServeInput
import RoquaTestSupport
import Testing

/// Setting a phone up: the links and QR codes (`DeviceSetup`, `QRCode`), and the browser app's
/// phones panel (`DeviceRoutes`) with its guard.
@Suite struct DeviceSetupTests {
    /// Reads a QR code the way a phone's camera does: the SVG drawn to PNG (librsvg), then
    /// decoded by ZBar — a reader independent of libqrencode.
    static func decode(svg: String) throws -> String {
        let tools = ["/usr/bin/rsvg-convert", "/usr/bin/zbarimg"]
        for tool in tools where !FileManager.default.isExecutableFile(atPath: tool) {
            Issue.record("\(tool) is missing: apt-get install librsvg2-bin zbar-tools (scripts/test.sh installs them)")
            return ""
        }
        let directory = try TempDirectory("roqua-qr")
        let svgFile = directory.path + "/qr.svg", pngFile = directory.path + "/qr.png"
        try Data(svg.utf8).write(to: URL(fileURLWithPath: svgFile))
        _ = try run(tools[0], ["-o", pngFile, svgFile])
        return try run(tools[1], ["--raw", "-q", pngFile]).trimmingCharacters(in: .newlines)
    }

    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process(), output = Pipe()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestFailure("\(tool) \(arguments) exited \(process.terminationStatus)") }
        return String(decoding: data, as: UTF8.self)
    }

    struct TestFailure: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    static let setup = try! DeviceSetup(name: "pixel-7", token: "AbC_dEf-0123456789abcdefghijklmn", base: "http://192.168.1.20:8080/")

    @Test func theQRCodesReadBackAsTheLinksAndTheLinksConfigureTheApps() throws {
        let setup = Self.setup
        #expect(setup.base == "http://192.168.1.20:8080")
        for link in [setup.ownTracksLink, setup.overlandLink] {
            #expect(try Self.decode(svg: QRCode(link).svg()) == link)
        }
        // OwnTracks: HTTP mode (3), this device's endpoint and Basic credentials.
        let inline = try #require(setup.ownTracksLink.components(separatedBy: "owntracks:///config?inline=").last)
        let decoded = try #require(Data(base64Encoded: inline))
        let configuration = try #require(try JSONSerialization.jsonObject(with: decoded) as? [String: Any])
        #expect(configuration["_type"] as? String == "configuration" && configuration["mode"] as? Int == 3)
        #expect(configuration["url"] as? String == "http://192.168.1.20:8080/api/ingest/owntracks")
        #expect(configuration["username"] as? String == "pixel-7" && configuration["password"] as? String == setup.token)
        #expect(configuration["auth"] as? Bool == true)
        // Overland: the endpoint percent-encoded, the token and the device's name.
        let overland = try #require(URLComponents(string: setup.overlandLink))
        #expect(overland.scheme == "overland" && overland.host == "setup")
        let items = Dictionary(uniqueKeysWithValues: (overland.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        #expect(items == ["url": "http://192.168.1.20:8080/api/ingest/overland", "token": setup.token, "device_id": "pixel-7"])
        #expect(setup.overlandLink.contains("url=http%3A%2F%2F192.168.1.20%3A8080%2Fapi%2Fingest%2Foverland&"))
    }

    /// The link OwnTracks scans is byte for byte what `JSONSerialization` made before the answer
    /// became a type (sorted keys, no escaped slashes): phones already set up keep their QR codes.
    @Test(arguments: ["pixel-7", "a", "tablet_2-x"]) func theOwnTracksLinkIsTheOneMadeBefore(name: String) throws {
        let setup = try DeviceSetup(name: name, token: "AbC_dEf-0123456789abcdefghijklmn", base: "https://roqua.example/sub/")
        let configuration: [String: Any] = [
            "_type": "configuration", "mode": 3, "url": setup.ownTracksURL, "auth": true,
            "username": name, "password": setup.token, "deviceId": name, "tid": String(name.prefix(2)),
        ]
        let before = try JSONSerialization.data(withJSONObject: configuration, options: [.sortedKeys, .withoutEscapingSlashes])
        #expect(setup.ownTracksLink == "owntracks:///config?inline=" + before.base64EncodedString())
    }

    @Test func theTerminalDrawingHoldsEveryModule() throws {
        let code = try QRCode(Self.setup.ownTracksLink)
        #expect(code.size >= 21 && (code.size - 17) % 4 == 0)
        let rows = code.terminalLines().map { line in
            Array(line.replacingOccurrences(of: "\u{1B}[30;47m", with: "").replacingOccurrences(of: "\u{1B}[0m", with: ""))
        }
        #expect(rows.count == (code.size + 9) / 2 && rows.allSatisfy { $0.count == code.size + 8 })
        for y in -4..<(code.size + 4) {
            for x in -4..<(code.size + 4) {
                let cell = rows[(y + 4) / 2][x + 4]
                let drawn = (y + 4) % 2 == 0 ? "█▀".contains(cell) : "█▄".contains(cell)
                #expect(drawn == code.isDark(x: x, y: y), "module \(x),\(y)")
            }
        }
    }

    @Test func badTextAndAddressesAreRefusedWithTheReason() throws {
        #expect(throws: QRCodeError.self) { try QRCode("") }
        #expect(throws: QRCodeError.self) { try QRCode(String(repeating: "x", count: 3000)) }
        for bad in ["ftp://host", "192.168.1.20:8080", "http://", "http://h/?a=1", "http://u:p@h/", ""] {
            #expect(throws: BadRequest.self, "\(bad)") { try DeviceSetup(name: "p", token: "t", base: bad) }
        }
        #expect(
            try DeviceSetup(name: "p", token: "t", base: "https://roqua.example.org/roqua").ownTracksURL
                == "https://roqua.example.org/roqua/api/ingest/owntracks")
    }

    static func json(_ object: [String: Any]) -> [UInt8] { Array((try? JSONSerialization.data(withJSONObject: object)) ?? Data()) }

    @Test func thePageAddsAPhoneWhoseSettingsWorkThenRevokesIt() async throws {
        try await TestServer.with { server in
            let added = try await server.post(
                "/api/devices", body: Self.json(["name": "pixel", "url": server.origin]),
                headers: ["Content-Type": "application/json"])
            #expect(added.status == 201, "\(added.text)")
            #expect(added.headers["cache-control"] == "no-store")
            let answer = try added.object()
            let token = try #require(answer["token"] as? String)
            let urls = try #require(answer["urls"] as? [String: String]), qr = try #require(answer["qr"] as? [String: String])
            let links = try #require(answer["links"] as? [String: String])
            for app in ["owntracks", "overland"] {
                let svg = try #require(qr[app])
                #expect(try Self.decode(svg: svg) == links[app])
            }
            // What the Overland QR code configures posts and is stored.
            let overlandAddress = try #require(urls["overland"])
            let overlandURL = overlandAddress.replacingOccurrences(of: server.origin, with: "")
            let posted = try await server.post(
                overlandURL, body: LiveIngestTests.overland([0], at: Date().addingTimeInterval(-300)),
                headers: ["Content-Type": "application/json"], asPage: false)
            #expect(posted.status == 200 && posted.text == #"{"result":"ok"}"#, "\(posted.text)")
            let listing = try await server.get("/api/devices")
            #expect(listing.status == 200 && !listing.text.contains(token), "the list never shows a token")
            let devices = try #require(try listing.object()["devices"] as? [[String: Any]])
            #expect(devices.count == 1 && devices[0]["name"] as? String == "pixel" && devices[0]["fixes_posted"] as? Int == 1)
            #expect(try listing.object()["reachable_from_network"] as? Bool == false)
            // Revoked from the page: the token stops at once.
            #expect(try await server.post("/api/devices/pixel/revoke", body: []).status == 200)
            let refused = try await server.post(
                overlandURL, body: LiveIngestTests.overland([1], at: Date().addingTimeInterval(-200)),
                headers: ["Content-Type": "application/json"], asPage: false)
            #expect(refused.status == 401)
            #expect(try await server.post("/api/devices/pixel/revoke", body: []).status == 404)
            #expect(try RegionStore(path: server.store).allRegions().count == 1)
        }
    }

    @Test func anotherSiteOrADeviceCannotAddListOrRevokePhones() async throws {
        try await TestServer.with { server in
            let body = Self.json(["name": "evil", "url": "http://203.0.113.9:8080"])
            // A page of another site, and a page of this origin without the launch token.
            for headers in [
                ["Origin": "http://evil.example", "Content-Type": "application/json"],
                ["Origin": server.origin, "Content-Type": "application/json"],
                ["Content-Type": "text/plain"],
            ] {
                let reply = try await server.post("/api/devices", body: body, headers: headers, asPage: false)
                #expect(reply.status == 403, "\(headers): \(reply.status) \(reply.text)")
            }
            #expect(try RegionStore(path: server.store).devices().isEmpty, "nothing added by a refused request")
            let token = try RegionStore(path: server.store).addDevice("phone")
            let revoke = try await server.post(
                "/api/devices/phone/revoke", body: [], headers: ["Origin": "http://evil.example"], asPage: false)
            #expect(revoke.status == 403)
            #expect(try RegionStore(path: server.store).device(forToken: token) == "phone", "still live")
        }
        try await TestServer.with(token: LiveIngestTests.serverToken) { server in
            let token = try RegionStore(path: server.store).addDevice("phone")
            // A device's token is no key to the page's routes.
            for target in ["/api/devices"] {
                #expect(try await server.get(target, headers: ["Authorization": "Bearer \(token)"]).status == 401)
            }
            // Writes: the origin guard runs first and sees neither the server's token nor the page's.
            let added = try await server.post(
                "/api/devices", body: Self.json(["name": "second", "url": "http://h:1"]),
                headers: ["Authorization": "Bearer \(token)"], asPage: false)
            #expect(added.status == 403)
            let revoke = try await server.post(
                "/api/devices/phone/revoke", body: [], headers: ["Authorization": "Bearer \(token)"], asPage: false)
            #expect(revoke.status == 403)
            #expect(try RegionStore(path: server.store).devices().map(\.name) == ["phone"])
        }
    }

    @Test func badRequestsNameTheFieldAndStoreNothing() async throws {
        try await TestServer.with { server in
            let cases: [([UInt8], Int, String)] = [
                (Self.json(["name": "a b", "url": server.origin]), 400, "device name"),
                (Self.json(["name": "ok", "url": "ftp://x"]), 400, "address"),
                (Self.json(["url": server.origin]), 400, "name\\\" must be a string"),
                (Self.json(["name": "ok"]), 400, "url\\\" must be a string"),
                (Array("not json".utf8), 400, "JSON object"),
                (Array(repeating: UInt8(ascii: " "), count: 5000), 413, "too large"),
            ]
            for (body, status, reason) in cases {
                let reply = try await server.post("/api/devices", body: body, headers: ["Content-Type": "application/json"])
                #expect(reply.status == status && reply.text.contains(reason), "\(reply.status) \(reply.text)")
            }
            #expect(try RegionStore(path: server.store).devices().isEmpty)
            #expect(try await server.post("/api/devices", body: Self.json(["name": "ok", "url": server.origin])).status == 201)
            let again = try await server.post("/api/devices", body: Self.json(["name": "ok", "url": server.origin]))
            #expect(again.status == 409 && again.text.contains("exists"), "\(again.text)")
        }
    }
}
