import Foundation
import RoquaServer
import RoquaTestSupport
import Testing

@Suite struct SecurityTests {
    @Test func everyAnswerCarriesTheSameOriginPolicy() async throws {
        let server = try await SharedServer.get()
        let page = try await server.get("/")
        #expect(page.status == 200 && page.text.contains("/leaflet/leaflet.js") && !page.text.contains("http"))
        for reply in [page, try await server.get("/reverse?lat=1&lon=1"), try await server.get("/nope")] {
            let policy = reply.headers["content-security-policy"] ?? ""
            #expect(policy.contains("default-src 'self'") && policy.contains("connect-src 'self'") && !policy.contains("unsafe"))
            #expect(reply.headers["x-content-type-options"] == "nosniff")
        }
        #expect(try await server.get("/leaflet/leaflet.js").text == "/* stand-in leaflet */")
        #expect(try await server.get("/app.js").headers["content-type"]?.hasPrefix("text/javascript") == true)
    }

    @Test(arguments: [
        "/leaflet/../../Package.swift", "/leaflet/%2e%2e/%2e%2e/etc/passwd", "/../etc/passwd",
        "/leaflet/images/../../../etc/passwd", "/%2e%2e%2fPackage.swift", "/leaflet//etc/passwd",
    ])
    func noPathTraversal(target: String) async throws {
        let server = try await SharedServer.get()
        let reply = try await server.get(target)
        #expect(reply.status == 404 || reply.status == 400)
        #expect(!reply.text.contains("root:") && !reply.text.contains("PackageDescription"))
        if reply.status == 404 { #expect((try reply.object()["error"] as? [String: Any])?["code"] as? String == "not_found") }
    }

    /// One error shape with the tour-group server (`{"error":{"code":"…","message":"…"}}`); only
    /// Nominatim's own routes keep its numeric code, which its clients read.
    @Test func errorShape() async throws {
        let server = try await SharedServer.get()
        let missing = try await server.get("/api/no-such-route")
        #expect(missing.status == 404)
        let error = try missing.object()["error"] as? [String: Any]
        #expect(error?["code"] as? String == "not_found" && (error?["message"] as? String)?.isEmpty == false)
        let units = try await server.get("/api/units/XX-NOPE/children")
        let unitsError = try units.object()["error"] as? [String: Any]
        #expect(units.status == 404 && unitsError?["code"] as? String == "not_found")
        let nominatim = try await server.get("/reverse?lat=91&lon=0")
        let nominatimError = try nominatim.object()["error"] as? [String: Any]
        #expect(nominatim.status == 400 && nominatimError?["code"] as? Int == 400)
    }

    @Test func headersAndBodiesAreBounded() async throws {
        let server = try await SharedServer.get()
        let huge = try await LoopbackHTTP.request(
            server.port, "GET", "/status", headers: ["X-Filler": String(repeating: "a", count: 40_000)])
        #expect(huge.status == 431 || huge.status == 400)
        let longQuery = try await server.get("/reverse?lat=1&lon=1&pad=" + String(repeating: "x", count: 5000))
        #expect(longQuery.status == 400)
        let form = try await server.post("/login", body: Array(repeating: UInt8(ascii: "a"), count: 10_000))
        #expect(form.status == 303 || form.status == 413)  // no token: the form just goes home
        // The server still answers after all that.
        #expect(try await server.get("/status").text == "OK")
    }

    @Test func tokenViaBearerOrLoginCookie() async throws {
        let token = "s3cret-token-0123456789"
        try await TestServer.with(token: token) { server in
            let refused = try await server.get("/reverse?lat=40.9879&lon=29.0281")
            #expect(refused.status == 401 && refused.headers["www-authenticate"] == "Bearer")
            #expect((try refused.object()["error"] as? [String: Any])?["code"] as? Int == 401)
            #expect(try await server.get("/reverse?lat=1&lon=1", headers: ["Authorization": "Bearer wrong-token-0123456789"]).status == 401)
            #expect(try await server.get("/reverse?lat=40.9879&lon=29.0281", headers: ["Authorization": "Bearer \(token)"]).status == 200)
            #expect(try await server.get("/").headers["location"] == "/login")
            #expect(try await server.get("/login").status == 200)
            let wrong = try await server.post(
                "/login", body: Array("token=nope".utf8), headers: ["Content-Type": "application/x-www-form-urlencoded"])
            #expect(wrong.status == 303 && wrong.headers["location"] == "/login?failed=1" && wrong.headers["set-cookie"] == nil)
            let login = try await server.post(
                "/login", body: Array("token=\(token)".utf8), headers: ["Content-Type": "application/x-www-form-urlencoded"])
            let cookie = login.headers["set-cookie"] ?? ""
            #expect(login.status == 303 && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
            let pair = String(cookie.split(separator: ";")[0])
            #expect(try await server.get("/api/profile", headers: ["Cookie": pair]).status == 200)
            #expect(try await server.get("/", headers: ["Cookie": pair]).status == 200)
        }
    }

    @Test func optionsRefuseWhatIsUnsafe() throws {
        #expect(throws: ServerError.tokenRequired("0.0.0.0:8080")) {
            try ServerOptions(listen: ListenAddress(parsing: "0.0.0.0:8080"), boundaries: "b", store: "s")
        }
        #expect(throws: ServerError.tokenRequired("[::]:80")) {
            try ServerOptions(listen: ListenAddress(parsing: "[::]:80"), boundaries: "b", store: "s")
        }
        #expect(throws: ServerError.self) {
            try ServerOptions(listen: .init(host: "0.0.0.0", port: 1), boundaries: "b", store: "s", token: "short")
        }
        #expect(throws: ServerError.self) { try ServerOptions(boundaries: "b", store: "s", maxUploadMegabytes: 0) }
        #expect(throws: ServerError.self) { try ListenAddress(parsing: "127.0.0.1:99999") }
        #expect(throws: ServerError.self) { try ListenAddress(parsing: "::1:80") }
        #expect(try ListenAddress(parsing: "[::1]:0").isLoopback)
        #expect(try ListenAddress(parsing: "127.3.2.1:80").isLoopback)
        #expect(try !ListenAddress(parsing: "192.168.1.2:80").isLoopback)
        #expect(try ListenAddress(parsing: "9000") == ListenAddress(host: "127.0.0.1", port: 9000))
        let open = try ServerOptions(
            listen: ListenAddress(parsing: "0.0.0.0:8080"), boundaries: "b", store: "s",
            token: "0123456789abcdef")
        #expect(open.maxUploadBytes == 200 << 20)
        // Without a token only when asked for in so many words.
        #expect(
            try ServerOptions(listen: ListenAddress(parsing: "0.0.0.0:8080"), boundaries: "b", store: "s", insecurePublic: true)
                .insecurePublic)
        #expect(ServerError.tokenRequired("0.0.0.0:8080").description.contains("--insecure-public"))
        for bad in ["", "evil.example/x", "a b", ".example", "user@host", String(repeating: "a", count: 300)] {
            #expect(throws: ServerError.self, "\(bad)") { try ServerOptions(boundaries: "b", store: "s", allowHosts: [bad]) }
        }
        #expect(try ServerOptions(boundaries: "b", store: "s", allowHosts: ["roqua.example.org", "[::1]"]).allowHosts.count == 2)
    }
}
