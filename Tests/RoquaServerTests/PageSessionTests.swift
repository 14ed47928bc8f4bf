import Foundation
import RoquaTestSupport
import Testing

@testable import RoquaServer

/// The page's sign-in (`POST /login`, `PageSessions`, `LoginLimits`), attacked as a stranger
/// would: the token must never travel in a cookie, a session must end, guesses are limited.
@Suite struct PageSessionTests {
    static let token = "page-session-token-0123456789"

    static func signIn(
        _ server: TestServer, origin: String? = nil, host: String? = nil,
        token: String = PageSessionTests.token
    ) async throws -> LoopbackHTTP.Reply {
        try await LoopbackHTTP.request(
            server.port, "POST", "/login",
            headers: ["Origin": origin ?? server.origin, "Content-Type": "application/x-www-form-urlencoded"],
            body: Array("token=\(token)".utf8), host: .some(host ?? "127.0.0.1:\(server.port)"))
    }

    /// `name=value` of a reply's `Set-Cookie`, and its attributes in lower case.
    static func cookie(_ reply: LoopbackHTTP.Reply) -> (pair: String, attributes: Set<String>) {
        let parts = (reply.headers["set-cookie"] ?? "").split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        return (parts.first ?? "", Set(parts.dropFirst().map { $0.lowercased() }))
    }

    @Test func theCookieHoldsARandomSessionThatEndsOnSignOut() async throws {
        try await TestServer.with(token: Self.token) { server in
            let first = try await Self.signIn(server), second = try await Self.signIn(server)
            let (pair, attributes) = Self.cookie(first)
            #expect(first.status == 303 && first.headers["location"] == "/")
            #expect(pair.hasPrefix("roqua_session=") && pair.count > "roqua_session=".count + 40, "\(pair)")
            #expect(!(first.headers["set-cookie"] ?? "").contains(Self.token))
            #expect(pair != Self.cookie(second).pair)
            #expect(attributes.contains("httponly") && attributes.contains("samesite=strict") && attributes.contains("path=/"))
            #expect(attributes.contains("max-age=\(Int(PageSessions.lifetime))"), "\(attributes)")
            // Over plain http the cookie cannot be Secure (the browser would drop it).
            #expect(!attributes.contains("secure"))
            #expect(try await server.get("/api/stats", headers: ["Cookie": pair]).status == 200)
            // The token itself, as the old cookie carried it, signs nothing in.
            for cookie in ["roqua_token=\(Self.token)", "roqua_session=\(Self.token)", "roqua_session="] {
                #expect(try await server.get("/api/stats", headers: ["Cookie": cookie]).status == 401, "\(cookie)")
            }
            // Signing out ends this session only, at once; the browser is told to forget it.
            let out = try await server.post("/logout", body: [], headers: ["Cookie": pair, "Origin": server.origin], asPage: false)
            #expect(out.status == 303 && out.headers["location"] == "/login")
            #expect(Self.cookie(out).attributes.contains("max-age=0"))
            #expect(try await server.get("/api/stats", headers: ["Cookie": pair]).status == 401)
            #expect(try await server.get("/api/stats", headers: ["Cookie": Self.cookie(second).pair]).status == 200)
            // Another site cannot sign the user out (a form post from elsewhere).
            let foreign = try await server.post(
                "/logout", body: [],
                headers: [
                    "Cookie": Self.cookie(second).pair,
                    "Origin": "http://evil.example",
                ], asPage: false)
            #expect(foreign.status == 403)
            #expect(try await server.get("/api/stats", headers: ["Cookie": Self.cookie(second).pair]).status == 200)
            // The page offers the button.
            let page = try await server.get("/", headers: ["Cookie": Self.cookie(second).pair])
            #expect(page.text.contains(#"action="/logout""#))
        }
    }

    /// Behind a TLS proxy (`--allow-host https://NAME`), the cookie is `Secure`: a plain-http
    /// visit to the same name does not carry it.
    @Test func signedInOverHTTPSTheCookieIsSecure() async throws {
        try await TestServer.with(token: Self.token, allowHosts: ["https://roqua.example"]) { server in
            let reply = try await Self.signIn(server, origin: "https://roqua.example", host: "roqua.example")
            #expect(reply.status == 303)
            #expect(Self.cookie(reply).attributes.contains("secure"), "\(reply.headers)")
            // The same name over plain http is another origin: its sign-in form is refused.
            #expect(try await Self.signIn(server, origin: "http://roqua.example", host: "roqua.example").status == 403)
        }
    }

    /// 1,000 wrong guesses in half a second met no limit: now the 11th from one address is refused,
    /// and so is the right token right after (a limited client learns nothing from its guesses).
    @Test func wrongGuessesAreLimitedBeforeTheTokenIsCompared() async throws {
        try await TestServer.with(token: Self.token) { server in
            // One more try every 6 s: on a loaded machine the guesses may take that long, so the
            // failures allowed are counted from the time they took.
            let started = Date()
            var failures = 0, limited: Date?
            for guess in 0..<40 {
                let status = try await Self.signIn(server, token: "wrong-guess-\(guess)-0123456789").status
                if status == 429 {
                    limited = Date()
                    break
                }
                #expect(status == 303)
                failures += 1
            }
            let allowed = 10 + Int(Date().timeIntervalSince(started) / LoginLimits.perAddressInterval)
            #expect(limited != nil && failures >= 10 && failures <= allowed, "\(failures) failures, \(allowed) allowed")
            let right = try await Self.signIn(server)
            if let limited, Date().timeIntervalSince(limited) < LoginLimits.perAddressInterval - 1 {
                #expect(right.status == 429 && right.headers["set-cookie"] == nil && right.headers["retry-after"] != nil)
            }
            // Scripts with the bearer header are not held up by the form's limit.
            #expect(try await server.get("/api/stats", headers: ["Authorization": "Bearer \(Self.token)"]).status == 200)
        }
    }

    @Test func limitsPerAddressAndForTheWholeServer() {
        let limits = LoginLimits()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for _ in 0..<10 { limits.failed("192.0.2.1", now: start) }
        #expect(!limits.mayTry("192.0.2.1", now: start))
        #expect(limits.mayTry("192.0.2.2", now: start))
        #expect(limits.mayTry("192.0.2.1", now: start + LoginLimits.perAddressInterval))
        // Many addresses (behind a proxy, or a botnet): the server-wide bucket ends it too.
        for n in 0..<60 { limits.failed("198.51.100.\(n)", now: start + 60) }
        #expect(!limits.mayTry("203.0.113.9", now: start + 60))
        #expect(limits.mayTry("203.0.113.9", now: start + 61))
    }

    @Test func sessionsExpireAndStayBounded() {
        let sessions = PageSessions()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let id = sessions.open(now: start)
        #expect(sessions.isOpen(id, now: start + PageSessions.lifetime - 1))
        #expect(!sessions.isOpen(id, now: start + PageSessions.lifetime))
        let ids = (0..<(PageSessions.maximum + 5)).map { sessions.open(now: start + Double($0)) }
        #expect(!sessions.isOpen(ids[0], now: start + 2_000))
        #expect(sessions.isOpen(ids.last!, now: start + 2_000))
    }
}
