import Foundation
import GRDB
import RoquaIO
import RoquaRegions
import RoquaTestSupport
import Testing

/// Positions posted live by the tracker apps (`IngestRoutes`), with payloads shaped as each app
/// sends them (from their public docs), against a server that has a token of its own.
@Suite struct LiveIngestTests {
    static let serverToken = "server-token-0123456789"

    /// Five places in İstanbul, each in its own district, well apart.
    static let places: [(lat: Double, lon: Double, district: String)] = [
        (40.9879, 29.0281, "Kadıköy"), (41.0430, 29.0070, "Beşiktaş"), (41.0082, 28.9784, "Fatih"),
        (41.0255, 28.9744, "Beyoğlu"), (41.0227, 29.0152, "Üsküdar"),
    ]

    static func iso(_ date: Date) -> String { TimeText.iso8601Milliseconds(date) ?? "" }

    static func ownTracks(_ place: Int, at time: Date, battery: Int = 80) -> [UInt8] {
        let p = places[place]
        return Array(
            """
            {"_type":"location","acc":12,"alt":42,"batt":\(battery),"bs":1,"conn":"w","created_at":\(Int(time.timeIntervalSince1970) + 2),\
            "lat":\(p.lat),"lon":\(p.lon),"tid":"ph","tst":\(Int(time.timeIntervalSince1970)),"vac":3,"vel":4,"topic":"owntracks/me/phone"}
            """.utf8)
    }

    static func overland(_ indexes: [Int], at time: Date) -> [UInt8] {
        let features = indexes.enumerated().map { offset, index in
            let p = places[index]
            return """
                {"type":"Feature","geometry":{"type":"Point","coordinates":[\(p.lon),\(p.lat)]},"properties":{"timestamp":"\(iso(time + Double(offset) * 600))",\
                "altitude":40,"speed":1.2,"horizontal_accuracy":8,"vertical_accuracy":4,"motion":["walking"],"battery_state":"unplugged",\
                "battery_level":0.8,"wifi":""}}
                """
        }
        return Array("{\"locations\":[\(features.joined(separator: ","))],\"current\":null,\"trip\":null}".utf8)
    }

    struct Phone {
        let server: TestServer
        let name: String
        let token: String
        var basic: String { "Basic " + Data("\(name):\(token)".utf8).base64EncodedString() }

        func districts() throws -> [String] {
            try RegionStore(path: server.store).allRegions().compactMap(\.district).sorted()
        }

        func imports() throws -> Int {
            try RegionStore(path: server.store).read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM imports") ?? 0 }
        }
    }

    static func phone(_ server: TestServer, _ name: String = "phone") throws -> Phone {
        Phone(server: server, name: name, token: try RegionStore(path: server.store).addDevice(name))
    }

    @Test func everyAppsPayloadIsStoredAndAnsweredAsItExpects() async throws {
        try await TestServer.with(token: Self.serverToken) { server in
            let phone = try Self.phone(server)
            let auth = ["Authorization": "Bearer \(Self.serverToken)"]
            let before = try await server.get("/api/changes", headers: auth).object()["mark"] as? String
            let now = Date().addingTimeInterval(-600)
            let owntracks = try await server.post(
                "/api/ingest/owntracks", body: Self.ownTracks(0, at: now),
                headers: ["Authorization": phone.basic, "Content-Type": "application/json"], asPage: false)
            #expect(owntracks.status == 200 && owntracks.text == "[]", "\(owntracks.text)")
            let overland = try await server.post(
                "/api/ingest/overland?token=\(phone.token)", body: Self.overland([1], at: now + 60),
                headers: ["Content-Type": "application/json"], asPage: false)
            #expect(overland.status == 200 && overland.text == #"{"result":"ok"}"#, "\(overland.text)")
            let p = Self.places[2]
            let traccar = try await server.post(
                "/api/ingest/traccar",
                body: Array(
                    """
                    {"location":{"timestamp":"\(Self.iso(now + 120))","coords":{"latitude":\(p.lat),"longitude":\(p.lon),"accuracy":5,\
                    "speed":0.5,"heading":90,"altitude":30},"is_moving":true,"odometer":0,"event":"motionchange","battery":{"level":0.7,\
                    "is_charging":false},"activity":{"type":"walking"}},"device_id":"\(phone.token)"}
                    """.utf8), headers: ["Content-Type": "application/json"], asPage: false)
            #expect(traccar.status == 200, "\(traccar.text)")
            let q = Self.places[3]
            let osmand = try await server.get(
                "/api/ingest/osmand?id=\(phone.token)&lat=\(q.lat)&lon=\(q.lon)"
                    + "&timestamp=\(Int(now.timeIntervalSince1970) + 180)&speed=2&bearing=0&altitude=20&accuracy=6&batt=70")
            #expect(osmand.status == 200, "\(osmand.text)")
            let r = Self.places[4]
            let gpslogger = try await server.post(
                "/api/ingest/gpslogger",
                body: Array("token=\(phone.token)&lat=\(r.lat)&lon=\(r.lon)&time=\(Self.iso(now + 240))&acc=7&spd=1.1&alt=10".utf8),
                headers: ["Content-Type": "application/x-www-form-urlencoded"], asPage: false)
            #expect(gpslogger.status == 200, "\(gpslogger.text)")
            #expect(try phone.districts() == Self.places.map(\.district).sorted())
            // The page sees the change without a reload.
            let after = try await server.get("/api/changes", headers: auth).object()["mark"] as? String
            #expect(before != nil && after != nil && before != after)
            let listed = try RegionStore(path: server.store).devices()
            #expect(listed.count == 1 && listed[0].lastSeen != nil)
        }
    }

    @Test func retriesAndReorderedBatchesAreStoredOnce() async throws {
        try await TestServer.with { server in
            let phone = try Self.phone(server)
            let now = Date().addingTimeInterval(-600)
            for _ in 0..<3 {
                let reply = try await server.post(
                    "/api/ingest/owntracks", body: Self.ownTracks(0, at: now),
                    headers: ["Authorization": phone.basic], asPage: false)
                #expect(reply.status == 200)
            }
            // The same position resent with another battery level and created_at: still the same fix.
            _ = try await server.post(
                "/api/ingest/owntracks", body: Self.ownTracks(0, at: now, battery: 79),
                headers: ["Authorization": phone.basic], asPage: false)
            #expect(try phone.imports() == 1)
            let batch = Self.overland([1, 2], at: now + 60)
            _ = try await server.post("/api/ingest/overland?token=\(phone.token)", body: batch, asPage: false)
            _ = try await server.post("/api/ingest/overland?token=\(phone.token)", body: batch, asPage: false)
            #expect(try phone.imports() == 2)
            #expect(try RegionStore(path: server.store).allRegions().map(\.visitCount).reduce(0, +) == 3)
        }
    }

    @Test func aBadFixCostsOnlyItselfAndABadBatchIsRefused() async throws {
        try await TestServer.with { server in
            let phone = try Self.phone(server)
            let now = Date().addingTimeInterval(-600)
            var body = String(decoding: Self.overland([0, 1], at: now), as: UTF8.self)
            body = body.replacingOccurrences(of: "[\(Self.places[1].lon),\(Self.places[1].lat)]", with: "[29.0,141.0]")
            let mixed = try await server.post("/api/ingest/overland?token=\(phone.token)", body: Array(body.utf8), asPage: false)
            #expect(mixed.status == 200 && mixed.text == #"{"result":"ok"}"#)
            #expect(try phone.districts() == ["Kadıköy"])
            let device = try #require(try RegionStore(path: server.store).devices().first)
            #expect(device.fixesPosted == 1 && device.fixesSkipped == 1, "\(device)")
            for (target, payload, reason) in [
                ("/api/ingest/overland?token=\(phone.token)", "{\"locations\": 3}", "locations"),
                ("/api/ingest/overland?token=\(phone.token)", "{\"locations\": [", "not JSON"),
                ("/api/ingest/owntracks", "\"hello\"", "JSON object"),
                ("/api/ingest/gpslogger?token=\(phone.token)&lon=29", "", "lat parameter is missing"),
                ("/api/ingest/osmand?id=\(phone.token)&lat=north&lon=29", "", "is not a number"),
            ] {
                let reply = try await server.post(target, body: Array(payload.utf8), headers: ["Authorization": phone.basic], asPage: false)
                #expect(reply.status == 400 && reply.text.contains(reason), "\(target): \(reply.status) \(reply.text)")
            }
            #expect(try phone.imports() == 1)
        }
    }

    /// Attack tests: every rule of the ingestion routes, tried as a stranger would.
    @Test func onlyALiveDevicesOwnCredentialsWriteAndTheyReadNothing() async throws {
        try await TestServer.with(token: Self.serverToken) { server in
            let phone = try Self.phone(server)
            let other = try Self.phone(server, "tablet")
            let now = Date().addingTimeInterval(-600)
            let fix = Self.ownTracks(0, at: now)
            // No credentials, a wrong token, the server's own token, another device's name with this token.
            for headers in [
                [:], ["Authorization": "Bearer wrong-token"], ["Authorization": "Bearer \(Self.serverToken)"],
                ["Authorization": "Basic " + Data("tablet:\(phone.token)".utf8).base64EncodedString()],
            ] {
                let reply = try await server.post("/api/ingest/owntracks", body: fix, headers: headers, asPage: false)
                #expect(reply.status == 401, "\(headers): \(reply.status)")
            }
            #expect(try await server.get("/api/ingest/osmand?id=nope&lat=41&lon=29&timestamp=1700000000").status == 401)
            #expect(
                try await server.post(
                    "/api/ingest/traccar", body: Array(#"{"location":{"coords":{}},"device_id":"x"}"#.utf8),
                    asPage: false
                ).status == 401)
            #expect(try phone.imports() == 0)
            // A device's token reads nothing: not the regions, the fog, the export, the stats or /reverse.
            for target in [
                "/api/regions", "/api/fog?zoom=10&bbox=28,40,30,42", "/api/export?format=json", "/api/stats",
                "/reverse?lat=41&lon=29", "/api/changes", "/",
            ] {
                let reply = try await server.get(target, headers: ["Authorization": "Bearer \(phone.token)"])
                #expect(reply.status == 401 || reply.status == 303, "\(target): \(reply.status)")
                #expect(!reply.text.contains("Kadıköy") && !reply.text.contains("circles"))
            }
            // Another site's page cannot post for the phone even knowing the URL.
            let foreign = try await server.post(
                "/api/ingest/overland?token=\(phone.token)", body: Self.overland([0], at: now),
                headers: ["Origin": "https://evil.example"], asPage: false)
            #expect(foreign.status == 403)
            // Bodies are bounded: refused on the declared length, before a byte of it is read.
            let client = try LoopbackHTTP(port: server.port)
            try client.send(
                "POST /api/ingest/overland?token=\(phone.token) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n"
                    + "Content-Length: \(9 << 20)\r\nConnection: close\r\n\r\n")
            #expect(try LoopbackHTTP.parse(try await client.readAll()).status == 413)
            // A revoked device is refused at once; the other keeps working.
            try RegionStore(path: server.store).revokeDevice("phone")
            let revoked = try await server.post("/api/ingest/owntracks", body: fix, headers: ["Authorization": phone.basic], asPage: false)
            #expect(revoked.status == 401)
            let tablet = try await server.post("/api/ingest/owntracks", body: fix, headers: ["Authorization": other.basic], asPage: false)
            #expect(tablet.status == 200)
            #expect(try phone.imports() == 1)
        }
    }

    @Test func aDevicePostingTooFastIsSlowedDown() async throws {
        try await TestServer.with { server in
            let phone = try Self.phone(server)
            let ignored = Array(#"{"_type":"transition","event":"enter"}"#.utf8)
            // A burst of 200, then 20 a second: the first 429 comes after at least 200 answers (a
            // loaded machine only delays it; 1,000 requests would need 50 s to never meet it).
            var answered = 0
            var limited: LoopbackHTTP.Reply?
            while answered < 1000 {
                let reply = try await server.post(
                    "/api/ingest/owntracks", body: ignored, headers: ["Authorization": phone.basic], asPage: false)
                if reply.status == 429 {
                    limited = reply
                    break
                }
                #expect(reply.status == 200)
                answered += 1
            }
            #expect(answered >= 200 && limited?.headers["retry-after"] == "1", "\(answered)")
        }
    }

    @Test func deviceNamesAndTokensAreChecked() throws {
        let directory = try TempDirectory()
        let store = try RegionStore(path: directory.file("regions.sqlite"))
        let token = try store.addDevice("pixel-8")
        #expect(token.count == 32 && token.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        #expect(try store.device(forToken: token) == "pixel-8")
        #expect(throws: DeviceError.self) { try store.addDevice("pixel-8") }
        for bad in ["", "two words", "a/b", String(repeating: "x", count: 41), "tëst"] {
            #expect(throws: DeviceError.self) { try store.addDevice(bad) }
        }
        // Only the token's hash is kept.
        let stored = try store.read { db in try String.fetchAll(db, sql: "SELECT token_sha256 FROM devices") }
        #expect(stored.count == 1 && stored[0] != token && stored[0].count == 64)
        try store.revokeDevice("pixel-8")
        #expect(try store.device(forToken: token) == nil)
        #expect(throws: DeviceError.self) { try store.revokeDevice("pixel-8") }
        let again = try store.addDevice("pixel-8")
        #expect(try again != token && store.device(forToken: again) == "pixel-8")
    }
}
