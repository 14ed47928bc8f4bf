import Foundation
import GRDB
import RoquaIO
import RoquaRegions
import RoquaServeInput
import RoquaTestSupport
import Testing

/// The second round of attacks on live ingestion (`IngestRoutes`, `LiveFixes`, `OriginPolicy`):
/// each rule refused as a stranger or a misbehaving device would try it, with the store unchanged.
@Suite struct LiveIngestAttackTests {
    typealias Live = LiveIngestTests

    static func unlocks(_ server: TestServer) throws -> Int {
        try RegionStore(path: server.store).read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM achievement_unlocks") ?? 0 }
    }

    /// An unauthenticated 8 MiB `[{},{},…]` cost 3.1 s of CPU and 670 MB: now credentials are
    /// checked before the body is read, and a body that carries its own (Traccar's `device_id`)
    /// is read only up to a small limit.
    @Test func noBodyIsReadBeforeItsSenderIsKnown() async throws {
        try await TestServer.with { server in
            let phone = try Live.phone(server)
            let flood = Array(("[" + Array(repeating: "{}", count: (8 << 20) / 3).joined(separator: ",") + "]").utf8)
            // Refused on the head alone: the answer comes though not a byte of the declared body was sent.
            for (target, expected) in [
                ("/api/ingest/owntracks", 401), ("/api/ingest/overland?token=wrong", 401),
                ("/api/ingest/traccar?token=wrong", 401), ("/api/ingest/traccar", 413),
            ] {
                let client = try LoopbackHTTP(port: server.port)
                try client.send(
                    "POST \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nContent-Length: \(8 << 20)\r\n"
                        + "Connection: close\r\n\r\n")
                let reply = try LoopbackHTTP.parse(try await client.readAll())
                #expect(reply.status == expected, "\(target): \(reply.status) \(reply.text)")
            }
            // Streamed without a length and without a token: refused once 64 kB have come, the rest unread.
            let client = try LoopbackHTTP(port: server.port)
            try client.send(
                "POST /api/ingest/traccar HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nTransfer-Encoding: chunked\r\n"
                    + "Connection: close\r\n\r\n")
            let chunk = Array(flood.prefix(16 << 10))
            for _ in 0..<5 { try client.send(Array((String(chunk.count, radix: 16) + "\r\n").utf8) + chunk + Array("\r\n".utf8)) }
            let traccar = try LoopbackHTTP.parse(try await client.readAll())
            #expect(traccar.status == 413 && traccar.text.contains("token in the URL"), "\(traccar.status) \(traccar.text)")
            // With the token in the URL (as `device add` prints it), a large catch-up is read.
            let now = Date().addingTimeInterval(-600)
            let p = Live.places[0]
            let position =
                #"{"location":{"timestamp":"\#(Live.iso(now))","coords":{"latitude":\#(p.lat),"longitude":\#(p.lon),"accuracy":5}}}"#
            let catchUp = "[" + Array(repeating: position, count: 800).joined(separator: ",") + "]"
            #expect(catchUp.utf8.count > 64 << 10)
            let ok = try await server.post("/api/ingest/traccar?token=\(phone.token)", body: Array(catchUp.utf8), asPage: false)
            #expect(ok.status == 200, "\(ok.text)")
            #expect(try phone.districts() == ["Kadıköy"])
        }
    }

    /// At most `IngestLimits.maximumBodies` bodies are read at once; the next waits its turn (503).
    @Test func concurrentBodiesAreCapped() async throws {
        try await TestServer.with { server in
            let phone = try Live.phone(server)
            var held: [LoopbackHTTP] = []
            for _ in 0..<4 {
                let client = try LoopbackHTTP(port: server.port)
                try client.send(
                    "POST /api/ingest/owntracks HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nAuthorization: \(phone.basic)\r\n"
                        + "Content-Length: 1000\r\nConnection: close\r\n\r\n[")
                held.append(client)
            }
            // The four are inside their slots once their heads are read; give the server a moment.
            var status = 0
            for _ in 0..<50 where status != 503 {
                try await Task.sleep(for: .milliseconds(100))
                let body = Array(#"{"_type":"transition"}"#.utf8)
                status = try await server.post("/api/ingest/owntracks", body: body, headers: ["Authorization": phone.basic], asPage: false)
                    .status
            }
            #expect(status == 503)
            for client in held { try client.send(String(repeating: " ", count: 998) + "]") }
            for client in held {
                let reply = try LoopbackHTTP.parse(try await client.readAll())
                #expect(reply.status == 200)
            }
            let after = try await server.post(
                "/api/ingest/owntracks", body: Array(#"{"_type":"transition"}"#.utf8),
                headers: ["Authorization": phone.basic], asPage: false)
            #expect(after.status == 200)
        }
    }

    /// One Overland batch dated July, posted in November, unlocked the closed-window "Summer
    /// Explorer" and six more; `tst: 1` made a 1970 streak. Live fixes must lie in the window.
    @Test func fixesOutsideTheLiveWindowAreSkippedAndUnlockNothing() async throws {
        try await TestServer.with { server in
            let phone = try Live.phone(server)
            let now = Date()
            for (offset, label) in [(-120.0 * 86_400, "four months ago"), (-8.0 * 86_400, "eight days ago"), (3600.0, "an hour ahead")] {
                let reply = try await server.post(
                    "/api/ingest/overland?token=\(phone.token)", body: Live.overland([0, 1, 2, 3, 4], at: now + offset),
                    asPage: false)
                #expect(reply.status == 200, "\(label): \(reply.text)")
            }
            let epoch = #"{"_type":"location","lat":41.0082,"lon":28.9784,"tst":1,"acc":5}"#
            #expect(
                try await server.post(
                    "/api/ingest/owntracks", body: Array(epoch.utf8), headers: ["Authorization": phone.basic],
                    asPage: false
                ).status == 200)
            #expect(try phone.districts().isEmpty)
            #expect(try Self.unlocks(server) == 0)
            let skipped = try RegionStore(path: server.store).devices().first?.fixesSkipped
            #expect(skipped == 16)
            // Six days back (a phone that was offline) and two minutes ahead (a fast clock) are kept.
            _ = try await server.post(
                "/api/ingest/overland?token=\(phone.token)", body: Live.overland([0], at: now - 6 * 86_400), asPage: false)
            _ = try await server.post("/api/ingest/overland?token=\(phone.token)", body: Live.overland([1], at: now + 120), asPage: false)
            #expect(try phone.districts() == ["Beşiktaş", "Kadıköy"])
        }
    }

    /// `"lat": true` was read as 1.0 (a region in the Congo) and `"0x1.4p5"` as 40.0.
    @Test func onlyNumbersAreNumbers() async throws {
        try await TestServer.with { server in
            let phone = try Live.phone(server)
            let tst = Int(Date().timeIntervalSince1970) - 600
            for (lat, lon) in [
                ("true", "true"), (#""0x1.4p5""#, "29.0"), ("41.0", #""0x1d""#), (#""inf""#, "29.0"), (#""nan""#, "29.0"),
                ("[41]", "29.0"), (#"" 41.0082 x""#, "28.9784"), ("41.0082", "28.9784, \"acc\": true"),
            ] {
                let body = #"{"_type":"location","lat":\#(lat),"lon":\#(lon),"tst":\#(tst)}"#
                let reply = try await server.post(
                    "/api/ingest/owntracks", body: Array(body.utf8), headers: ["Authorization": phone.basic],
                    asPage: false)
                #expect(reply.status == 200, "\(body): \(reply.text)")
            }
            #expect(try RegionStore(path: server.store).regionCount() == 0)
            for query in ["lat=0x1.4p5&lon=29", "lat=41&lon=inf", "lat=41&lon=1e400", "lat=true&lon=29"] {
                let reply = try await server.get("/api/ingest/osmand?id=\(phone.token)&\(query)&timestamp=\(tst)")
                #expect(reply.status == 400 && reply.text.contains("is not a number"), "\(query): \(reply.status) \(reply.text)")
            }
            // Decimal text where an app quotes its numbers is still read.
            let quoted = #"{"_type":"location","lat":"41.0082","lon":"28.9784","tst":"\#(tst)","acc":"5"}"#
            #expect(
                try await server.post(
                    "/api/ingest/owntracks", body: Array(quoted.utf8), headers: ["Authorization": phone.basic],
                    asPage: false
                ).status == 200)
            #expect(try phone.districts() == ["Fatih"])
        }
    }

    /// With a leaked URL, any web page wrote into the server through a GET (`<img src>`): a
    /// browser's cross-site request is refused on every ingestion route and method.
    @Test func pagesOfOtherSitesCannotPostThroughGETs() async throws {
        try await TestServer.with { server in
            let phone = try Live.phone(server)
            let p = Live.places[2]
            let time = Int(Date().timeIntervalSince1970) - 600
            let url = "/api/ingest/osmand?id=\(phone.token)&lat=\(p.lat)&lon=\(p.lon)&timestamp=\(time)"
            let gps = "/api/ingest/gpslogger?token=\(phone.token)&lat=\(p.lat)&lon=\(p.lon)&time=\(time)"
            for headers in [
                ["Sec-Fetch-Site": "cross-site"], ["Sec-Fetch-Site": "same-site"], ["Origin": "https://evil.example"],
                ["Referer": "https://evil.example/page.html"], ["Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"],
            ] {
                for target in [url, gps] {
                    let reply = try await server.get(target, headers: headers)
                    #expect(reply.status == 403 && reply.text.contains("cross-site"), "\(headers) \(target): \(reply.status)")
                }
            }
            #expect(try phone.districts().isEmpty)
            // The phone's own GET (no browser headers), and a user opening the URL by hand, work.
            #expect(try await server.get(url).status == 200)
            #expect(try await server.get(gps, headers: ["Sec-Fetch-Site": "none"]).status == 200)
            #expect(try phone.districts() == ["Fatih"])
        }
    }

    /// `--allow-host roqua.example.org` accepted an Origin of `http://roqua.example.org:9999`;
    /// now the origin's port must be the request's, and a pinned origin's scheme too.
    @Test func anAllowedNameOnAnotherPortOrSchemeIsAnotherSite() async throws {
        for allowed in ["roqua.example", "https://roqua.example"] {
            try await TestServer.with(allowHosts: [allowed]) { server in
                func write(_ origin: String) async throws -> Int {
                    try await LoopbackHTTP.request(
                        server.port, "POST", "/api/tracks?name=paris.csv",
                        headers: ["Origin": origin, "X-Roqua-CSRF": server.csrf], body: CrossSiteTests.paris,
                        host: "roqua.example"
                    ).status
                }
                for origin in ["http://roqua.example:9999", "https://roqua.example:8443", "http://roqua.example:443"] {
                    let status = try await write(origin)
                    #expect(status == 403, "\(allowed): \(origin)")
                }
                let plain = try await write("http://roqua.example"), secure = try await write("https://roqua.example")
                #expect(plain == (allowed.hasPrefix("https") ? 403 : 200), "\(allowed)")
                #expect(secure == 200, "\(allowed)")
            }
        }
    }

    /// A live post is judged against the device's earlier fixes: one fix in the air (no speed
    /// field), posted alone, lit the district it flew over; now it waits for the next post, and
    /// the landing makes it part of a flight that lights nothing.
    @Test func aFixInTheAirLightsNothingWhileItWaitsForTheNext() async throws {
        try await TestServer.with { server in
            let phone = try Live.phone(server)
            let t0 = Int(Date().timeIntervalSince1970) - 3 * 3600
            func post(_ lat: Double, _ lon: Double, _ tst: Int) async throws {
                let body = #"{"_type":"location","lat":\#(lat),"lon":\#(lon),"tst":\#(tst),"acc":10}"#
                let reply = try await server.post(
                    "/api/ingest/owntracks", body: Array(body.utf8), headers: ["Authorization": phone.basic],
                    asPage: false)
                #expect(reply.status == 200, "\(reply.text)")
            }
            func provinces() throws -> Set<String> { Set(try RegionStore(path: server.store).allRegions().compactMap(\.province)) }
            try await post(40.9879, 29.0281, t0)  // Kadıköy, on the ground
            try await post(40.7306, 31.6089, t0 + 35 * 60)  // over Bolu, 225 km in 35 min
            let first = try provinces()
            #expect(first == ["İstanbul"], "the fix in the air lit \(first)")
            try await post(39.9208, 32.8541, t0 + 60 * 60)  // still fast: over Ankara
            try await post(39.9225, 32.8560, t0 + 62 * 60)  // landed: slow from the last
            try await post(39.9226, 32.8561, t0 + 63 * 60)
            let landed = try provinces()
            #expect(landed == ["Ankara", "İstanbul"], "\(landed)")
            let flights = try RegionStore(path: server.store).read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM flights") ?? 0 }
            #expect(flights == 1)
        }
    }

    /// GPSLogger's POST mode sends the URL Roqua printed (token in the query) and a form body:
    /// the token came from the query and the fields from the body, yet the query was thrown away.
    @Test func gpsLoggersPostKeepsTheTokenOfItsURL() async throws {
        try await TestServer.with { server in
            let phone = try Live.phone(server)
            let now = Date().addingTimeInterval(-600)
            let setup = try DeviceSetup(name: "phone", token: phone.token, base: server.origin)
            let p = Live.places[3], q = Live.places[4]
            // The app fills in its placeholders, in the URL as in the body.
            let printed = String(setup.gpsLoggerURL.dropFirst(server.origin.count)).replacingOccurrences(of: "%LAT", with: "\(p.lat)")
                .replacingOccurrences(of: "%LON", with: "\(p.lon)").replacingOccurrences(of: "%TIME", with: Live.iso(now))
                .replacingOccurrences(of: "%ACC", with: "7").replacingOccurrences(of: "%SPD", with: "1.1")
            let form = "lat=\(p.lat)&lon=\(p.lon)&time=\(Live.iso(now))&acc=7&spd=1.1"
            let reply = try await server.post(
                printed, body: Array(form.utf8), headers: ["Content-Type": "application/x-www-form-urlencoded"],
                asPage: false)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(try phone.districts() == ["Beyoğlu"])
            // The token only in the body, and the body's field winning over the query's.
            let both = try await server.post(
                "/api/ingest/gpslogger?lat=1&lon=1",
                body: Array("token=\(phone.token)&lat=\(q.lat)&lon=\(q.lon)&time=\(Live.iso(now + 60))".utf8),
                asPage: false)
            #expect(both.status == 200, "\(both.text)")
            #expect(try phone.districts() == ["Beyoğlu", "Üsküdar"])
        }
    }
}
