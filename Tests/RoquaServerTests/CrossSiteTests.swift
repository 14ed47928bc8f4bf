import Foundation
import RoquaRegions
import RoquaServer
import RoquaTestSupport
import Testing

/// Attacks from other web sites through the user's browser: forged writes (CSRF) and DNS
/// rebinding. Each is refused before anything is read or written, and the store stays
/// byte-identical.
@Suite struct CrossSiteTests {
    static let gpx = Repository.path("scripts/examples/istanbul-day.gpx")
    /// A track that would add a region in Paris if it were imported.
    static let paris = Array("lat,lon,time\n48.8566,2.3522,2024-05-01T07:00:00Z\n48.8570,2.3530,2024-05-01T07:05:00Z\n".utf8)

    /// The store's files (database, write-ahead log) as bytes.
    static func storeBytes(_ server: TestServer) -> [String: Data] {
        var files: [String: Data] = [:]
        for suffix in ["", "-wal"] { files[suffix] = FileManager.default.contents(atPath: server.store + suffix) }
        return files
    }

    /// A page on another site posting a track (a "simple" text/plain request the browser sends
    /// without asking) or a wiping restore, in every form a browser or a script could give it.
    @Test func writesFromAnythingButThePageAreRefusedAndChangeNothing() async throws {
        let emptyExport = try await SharedServer.get().get("/api/export?format=json").body
        try await TestServer.with { server in
            let imported = try await server.post(
                "/api/tracks?name=day.gpx", body: Array(try Data(contentsOf: URL(fileURLWithPath: Self.gpx))))
            #expect(imported.status == 200, "\(imported.text)")
            let before = Self.storeBytes(server)
            let attempts: [(String, [String: String], String)] = [
                ("another site, text/plain", ["Origin": "http://evil.example", "Content-Type": "text/plain"], "cross-site"),
                ("another site that somehow has the token", ["Origin": "http://evil.example", "X-Roqua-CSRF": server.csrf], "cross-site"),
                (
                    "another port of this machine",
                    ["Origin": "http://127.0.0.1:\(server.port == 1 ? 2 : 1)", "X-Roqua-CSRF": server.csrf],
                    "cross-site"
                ),
                (
                    "a look-alike name", ["Origin": "http://127.0.0.1:\(server.port).evil.example", "X-Roqua-CSRF": server.csrf],
                    "cross-site"
                ),
                ("an opaque origin (sandboxed frame, file://)", ["Origin": "null", "X-Roqua-CSRF": server.csrf], "cross-site"),
                (
                    "a foreign Referer and no Origin", ["Referer": "http://evil.example/page.html", "X-Roqua-CSRF": server.csrf],
                    "cross-site"
                ),
                ("no Origin, no Referer, no token (curl)", [:], "Origin or Referer"),
                ("the right origin without the page token", ["Origin": server.origin], "X-Roqua-CSRF"),
                (
                    "the right origin with a wrong token", ["Origin": server.origin, "X-Roqua-CSRF": String(server.csrf.reversed())],
                    "X-Roqua-CSRF"
                ),
                ("the token in a cookie only", ["Origin": server.origin, "Cookie": "X-Roqua-CSRF=\(server.csrf)"], "X-Roqua-CSRF"),
            ]
            for (what, headers, reason) in attempts {
                for (target, body) in [("/api/tracks?name=paris.csv", Self.paris), ("/api/restore?replace=1", emptyExport)] {
                    let reply = try await server.post(target, body: body, headers: headers, asPage: false)
                    #expect(reply.status == 403, "\(what) → \(target): \(reply.status) \(reply.text)")
                    let message = (try? reply.object()["error"] as? [String: Any])?["message"] as? String ?? ""
                    #expect(message.contains(reason), "\(what): \(message)")
                }
            }
            #expect(Self.storeBytes(server) == before)
            #expect(try RegionStore(path: server.store).regionCount() == 8)
            // Refused on the head alone: the answer comes though not one byte of the declared body was sent.
            let client = try LoopbackHTTP(port: server.port)
            try client.send(
                "POST /api/restore?replace=1 HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nOrigin: http://evil.example\r\n"
                    + "Content-Length: 50000000\r\nConnection: close\r\n\r\n")
            #expect(try await LoopbackHTTP.parse(client.readAll()).status == 403)
            // The page's own requests work, with the Referer standing in for a missing Origin.
            let viaReferer = try await server.post(
                "/api/tracks?name=paris.csv", body: Self.paris,
                headers: ["Referer": server.origin + "/", "X-Roqua-CSRF": server.csrf], asPage: false)
            #expect(viaReferer.status == 200, "\(viaReferer.text)")
        }
    }

    /// A rebinding page reaches 127.0.0.1 under its own name: every route refuses it (421), the
    /// fast `/reverse` path too, and the answer holds nothing of the user's.
    @Test(arguments: [true, false]) func foreignHostsAreRefusedOnEveryRoute(fastPath: Bool) async throws {
        try await TestServer.with(fastPath: fastPath) { server in
            _ = try await server.post("/api/tracks?name=day.gpx", body: Array(try Data(contentsOf: URL(fileURLWithPath: Self.gpx))))
            let port = server.port
            let targets = [
                "/", "/app.js", "/status", "/reverse?lat=40.9879&lon=29.0281", "/reverse?lat=40.9879&lon=29.0281&format=json",
                "/api/export?format=json", "/api/export?format=gpx", "/api/regions", "/api/stats", "/api/profile",
                "/api/visited", "/api/achievements", "/api/tracks/progress", "/api/fog?zoom=10&bbox=28,40,30,42",
            ]
            let hosts: [String?] = [
                "evil.example:\(port)", "evil.example", "127.0.0.1.nip.example:\(port)", "localhost.evil.example:\(port)",
                "127.0.0.1:\(port == 65535 ? 1 : port + 1)", "localhost", "[::1]:1", "127.0.0.1:\(port)@evil.example",
                "", nil,
            ]
            for target in targets {
                for host in hosts {
                    let reply = try await LoopbackHTTP.request(port, "GET", target, host: .some(host))
                    #expect(
                        reply.status == 421 || (host == "" && reply.status == 400), "\(target) Host \(host ?? "(none)"): \(reply.status)")
                    #expect(
                        !reply.text.contains("Kadıköy") && !reply.text.contains("visit_count") && !reply.text.contains("<gpx")
                            && !reply.text.contains("circles"))
                }
            }
            for host in ["127.0.0.1:\(port)", "localhost:\(port)", "LocalHost:\(port)", "[::1]:\(port)", "127.0.0.2:\(port)"] {
                let reply = try await LoopbackHTTP.request(port, "GET", "/reverse?lat=40.9879&lon=29.0281", host: .some(host))
                #expect(reply.status == 200 && reply.text.contains("Kadıköy"), "\(host): \(reply.status)")
            }
        }
    }

    /// Behind a reverse proxy (`--allow-host`): its name is answered and its https origin may
    /// write; other names and origins still may not.
    @Test func aReverseProxysNameIsAllowedWhenGiven() async throws {
        try await TestServer.with(allowHosts: ["roqua.example"]) { server in
            #expect(try await LoopbackHTTP.request(server.port, "GET", "/status", host: "roqua.example").status == 200)
            #expect(try await LoopbackHTTP.request(server.port, "GET", "/status", host: "other.example").status == 421)
            let write = try await LoopbackHTTP.request(
                server.port, "POST", "/api/tracks?name=paris.csv",
                headers: ["Origin": "https://roqua.example", "X-Roqua-CSRF": server.csrf],
                body: Self.paris, host: "roqua.example")
            #expect(write.status == 200, "\(write.text)")
            let foreign = try await LoopbackHTTP.request(
                server.port, "POST", "/api/tracks?name=paris.csv",
                headers: ["Origin": "https://evil.example", "X-Roqua-CSRF": server.csrf],
                body: Self.paris, host: "roqua.example")
            #expect(foreign.status == 403)
        }
    }

    /// With `--token`: a script's bearer header needs no page token, but names no foreign origin;
    /// a browser signed in by cookie gets the same-origin rule and needs the page token.
    @Test func withATokenScriptsUseTheBearerAndBrowsersTheSameOriginRule() async throws {
        let token = "cross-site-token-0123456789"
        try await TestServer.with(token: token) { server in
            let bearer = ["Authorization": "Bearer \(token)"]
            #expect(try await server.post("/api/tracks?name=paris.csv", body: Self.paris, headers: bearer, asPage: false).status == 200)
            let foreign = bearer.merging(["Origin": "http://evil.example"]) { $1 }
            #expect(try await server.post("/api/tracks?name=paris.csv", body: Self.paris, headers: foreign, asPage: false).status == 403)
            let login = try await server.post(
                "/login", body: Array("token=\(token)".utf8),
                headers: ["Content-Type": "application/x-www-form-urlencoded", "Origin": server.origin],
                asPage: false)
            let cookie = String((login.headers["set-cookie"] ?? "").split(separator: ";")[0])
            #expect(login.status == 303 && cookie.hasPrefix("roqua_session=") && !cookie.contains(token))
            // A cross-site form posting the token guess, or a cookie-carrying forged write: refused.
            #expect(
                try await server.post(
                    "/login", body: Array("token=\(token)".utf8),
                    headers: ["Origin": "http://evil.example"], asPage: false
                ).status == 403)
            let forged = try await server.post(
                "/api/restore?replace=1", body: Array("{}".utf8),
                headers: ["Cookie": cookie, "Origin": "http://evil.example"], asPage: false)
            #expect(forged.status == 403)
            let noToken = try await server.post(
                "/api/restore?replace=1", body: Array("{}".utf8),
                headers: ["Cookie": cookie, "Origin": server.origin], asPage: false)
            #expect(noToken.status == 403)
            #expect(try await server.post("/api/tracks?name=again.csv", body: Self.paris, headers: ["Cookie": cookie]).status == 200)
        }
    }
}
