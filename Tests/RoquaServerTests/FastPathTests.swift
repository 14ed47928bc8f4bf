import Foundation
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import RoquaTestSupport
import Testing

@testable import RoquaServer

/// `GET /reverse` answered on the event loop (`ReverseFastPath`) against the same request through
/// Hummingbird's router and middleware: the same status, headers (in order) and bytes.
@Suite struct FastPathTests {
    static let requests = [
        "GET /reverse?lat=40.9879&lon=29.0281&format=json HTTP/1.1",
        "GET /reverse?lat=40.9879&lon=29.0281&format=jsonv2&accept-language=en HTTP/1.1",
        "GET /reverse?lat=40.9879&lon=29.0281&format=geojson&zoom=5 HTTP/1.1",
        "GET /reverse?lat=40.9879&lon=29.0281&format=geocodejson HTTP/1.1",
        "GET /reverse?lat=40.9879&lon=29.0281&zoom=3&addressdetails=0 HTTP/1.1",
        "GET /reverse?lat=40.9879&lon=29.0281 HTTP/1.1\r\nAccept-Language: en-GB,en;q=0.8",
        "GET /reverse?lat=52.5200&lon=13.4050&format=geocodejson&accept-language=tr HTTP/1.1",
        "GET /reverse?lat=52.5200&lon=13.4050&zoom=10 HTTP/1.1",
        "GET /reverse?lat=0&lon=-30&format=geojson HTTP/1.1",
        "GET /reverse?lat=91&lon=0 HTTP/1.1",
        "GET /reverse?lat=1&lon=1&format=xml HTTP/1.1",
        "GET /reverse?lat=%ZZ&lon=1 HTTP/1.1",
        "GET /reverse HTTP/1.1",
        "GET /reverse?lat=40.9879&lon=29.0281#here HTTP/1.1",
        "POST /reverse?lat=40.9879&lon=29.0281 HTTP/1.1\r\nContent-Length: 0",
    ]

    /// Each request on its own keep-alive connection, so the fast path is free to take it.
    static func answers(_ server: TestServer, _ requests: [String]) async throws -> [RawReply] {
        var replies: [RawReply] = []
        for request in requests {
            let client = try LoopbackHTTP(port: server.port)
            replies += try await client.pipelined([request], port: server.port)
        }
        return replies
    }

    @Test func bothPathsAnswerByteForByteAlike() async throws {
        let fast = try await SharedServer.get()
        let slow = try await TestServer.start(fastPath: false)
        defer { Task { await slow.stop() } }
        let fastReplies = try await Self.answers(fast, Self.requests)
        let slowReplies = try await Self.answers(slow, Self.requests)
        for (request, (a, b)) in zip(Self.requests, zip(fastReplies, slowReplies)) {
            #expect(a.withoutDate == b.withoutDate, "\(request)")
            #expect(a.header("date")?.hasSuffix(" GMT") == true && a.header("date")?.count == b.header("date")?.count)
        }
        #expect(fastReplies[0].header("content-type") == "application/json; charset=utf-8")
        #expect(fastReplies[2].header("content-type") == "application/geo+json; charset=utf-8")
        #expect(fastReplies[9].statusLine.hasPrefix("HTTP/1.1 400") && fastReplies[9].text.contains("Invalid coordinates."))
        // A POST that no page of this server sent is refused before any route is looked up.
        #expect(fastReplies[14].statusLine.hasPrefix("HTTP/1.1 403") && fastReplies[14].text.contains("Origin"))
    }

    @Test func theTokenIsCheckedAlike() async throws {
        let token = "fast-path-token-0123456789"
        let fast = try await TestServer.start(token: token)
        let slow = try await TestServer.start(token: token, fastPath: false)
        defer {
            Task {
                await fast.stop()
                await slow.stop()
            }
        }
        let point = "GET /reverse?lat=40.9879&lon=29.0281 HTTP/1.1"
        // The token itself in a cookie is no sign-in; a session's id is (each server its own).
        func requests(_ server: TestServer) async throws -> [String] {
            let login = try await server.post(
                "/login", body: Array("token=\(token)".utf8), headers: ["Origin": server.origin], asPage: false)
            let session = String((login.headers["set-cookie"] ?? "").split(separator: ";")[0])
            return [
                point, point + "\r\nAuthorization: Bearer \(token)", point + "\r\nAuthorization: Bearer wrong-token-0123456789xx",
                point + "\r\nAuthorization: bearer \(token)", point + "\r\nCookie: roqua_session=\(token)",
                point + "\r\nCookie: roqua_token=\(token)", point + "\r\nCookie: \(session)",
            ]
        }
        let fastReplies = try await Self.answers(fast, try await requests(fast))
        let slowReplies = try await Self.answers(slow, try await requests(slow))
        #expect(fastReplies.map(\.withoutDate) == slowReplies.map(\.withoutDate))
        #expect(fastReplies.map { $0.statusLine.split(separator: " ")[1] } == ["401", "200", "401", "401", "401", "401", "200"])
        #expect(fastReplies[0].header("www-authenticate") == "Bearer")
    }

    /// Pipelined requests to other routes go through Hummingbird; answers come back in order,
    /// and the same as a server without the fast path sends them.
    @Test func pipelinedRequestsComeBackInOrder() async throws {
        let fast = try await SharedServer.get()
        let slow = try await TestServer.start(fastPath: false)
        defer { Task { await slow.stop() } }
        let requests = [
            "GET /reverse?lat=40.9879&lon=29.0281 HTTP/1.1",
            "GET /api/stats HTTP/1.1",
            "GET /reverse?lat=52.5200&lon=13.4050 HTTP/1.1",
            "GET /status HTTP/1.1",
            "GET /reverse?lat=91&lon=0 HTTP/1.1",
            "GET /nope HTTP/1.1",
            "GET /reverse?lat=0&lon=-30 HTTP/1.1",
            "GET /reverse?lat=39.93&lon=32.86&zoom=5 HTTP/1.1",
        ]
        let fastReplies = try await LoopbackHTTP(port: fast.port).pipelined(requests, port: fast.port)
        let slowReplies = try await LoopbackHTTP(port: slow.port).pipelined(requests, port: slow.port)
        #expect(fastReplies.map(\.withoutDate) == slowReplies.map(\.withoutDate))
        #expect(fastReplies[0].text.contains("\"display_name\":\"Kadıköy, İstanbul, Türkiye\""))
        #expect(fastReplies[1].text.contains("\"countries\""))
        #expect(fastReplies[2].text.contains("\"state\":\"Berlin\""))
        #expect(fastReplies[3].text == "OK")
        #expect(fastReplies[4].text.contains("Invalid coordinates."))
        #expect(fastReplies[5].statusLine.hasPrefix("HTTP/1.1 404"))
        #expect(fastReplies[6].text == #"{"error":"Unable to geocode"}"#)
        #expect(fastReplies[7].text.contains("\"display_name\":\"Ankara, Türkiye\""))
    }

    static func fastAnswers(token: String?, in directory: TempDirectory) throws -> ReverseFastAnswers {
        let leaflet = try directory.subdirectory("leaflet")
        try "".write(toFile: leaflet + "/leaflet.js", atomically: true, encoding: .utf8)
        try "".write(toFile: leaflet + "/leaflet.css", atomically: true, encoding: .utf8)
        let options = try ServerOptions(boundaries: Bundled.path(), store: directory.file("regions.sqlite"), token: token, leaflet: leaflet)
        return ReverseFastAnswers(state: try ServerState(options: options, logger: .init(label: "test")), serverName: "roqua")
    }

    /// Which requests the fast path takes: every `GET /reverse` it can answer as the router
    /// would, errors and refusals included; other routes, methods and `Connection: close` pass.
    @Test func theFastPathTakesEveryReverseRequestAndNothingElse() throws {
        let directory = try TempDirectory("roqua-fast-path")
        // The directory goes when it is released: keep it while the state uses it.
        defer { withExtendedLifetime(directory) {} }
        let answers = try Self.fastAnswers(token: "fast-path-token-0123456789", in: directory)
        func status(
            _ path: String, method: HTTPRequest.Method = .get, authority: String? = "localhost:8080",
            fields: HTTPFields = [.authorization: "Bearer fast-path-token-0123456789"]
        ) -> Int? {
            answers.answer(
                HTTPRequest(method: method, scheme: nil, authority: authority, path: path, headerFields: fields),
                date: "Mon, 23 Nov 2026 07:30:00 GMT")?.0.status.code
        }
        #expect(status("/reverse?lat=40.9879&lon=29.0281&format=geocodejson") == 200)
        #expect(status("/reverse?lat=0&lon=-30") == 200)  // "Unable to geocode" is a 200 answer
        #expect(
            status("/reverse?lat=1&lon=1", fields: [.authorization: "Bearer fast-path-token-0123456789", .connection: "keep-alive"]) == 200)
        #expect(status("/reverse?lat=1&lon=1", fields: [:]) == 401)
        #expect(status("/reverse?lat=1&lon=1", fields: [.cookie: "roqua_token=fast-path-token-0123456789"]) == 401)
        // A foreign or missing Host (DNS rebinding) is refused as the middleware refuses it.
        #expect(status("/reverse?lat=1&lon=1", authority: "evil.example:8080") == 421)
        #expect(status("/reverse?lat=1&lon=1", authority: nil) == 421)
        for path in ["/reverse", "/reverse?lat=91&lon=0", "/reverse?lat=1&lon=1&format=xml", "/reverse?lat=%ZZ&lon=1"] {
            #expect(status(path) == 400, "\(path)")
        }
        #expect(status("/reverse?lat=1&lon=1", fields: [.authorization: "Bearer fast-path-token-0123456789", .connection: "close"]) == nil)
        #expect(status("/reverse?lat=1&lon=1", method: .post) == nil)
        #expect(status("/reverse?lat=1&lon=1", method: .head) == nil)
        for path in ["/reverse/batch?lat=1&lon=1", "/reversed?lat=1&lon=1", "/reverse/?lat=1&lon=1", "/reverse?lat=1&lon=1#x", "/status"] {
            #expect(status(path) == nil, "\(path)")
        }
    }

    /// A failing request the fast path takes is answered there and never handed on: the router
    /// behind it (here, whatever reads the channel's inbound side) does not parse or resolve it again.
    @Test func aFailingRequestIsAnsweredOnce() async throws {
        let directory = try TempDirectory("roqua-fast-path-once")
        defer { withExtendedLifetime(directory) {} }
        let channel = EmbeddedChannel(handler: ReverseFastPath(try Self.fastAnswers(token: nil, in: directory)))
        func send(_ method: HTTPRequest.Method, _ path: String) throws -> (forwarded: Int, status: Int?, body: String) {
            let head = HTTPRequest(method: method, scheme: nil, authority: "localhost:8080", path: path)
            try channel.writeInbound(HTTPRequestPart.head(head))
            try channel.writeInbound(HTTPRequestPart.end(nil))
            var forwarded = 0
            while try channel.readInbound(as: HTTPRequestPart.self) != nil { forwarded += 1 }
            var status: Int?, body = ""
            while let part = try channel.readOutbound(as: HTTPResponsePart.self) {
                switch part {
                case let .head(response): status = response.status.code
                case let .body(buffer): body += String(buffer: buffer)
                case .end: break
                }
            }
            return (forwarded, status, body)
        }
        for path in ["/reverse?lat=91&lon=0", "/reverse?lat=1&lon=1&format=xml", "/reverse", "/reverse?lat=%ZZ&lon=1"] {
            let reply = try send(.get, path)
            #expect(reply.forwarded == 0 && reply.status == 400 && reply.body.hasPrefix(#"{"error":{"code":400,"#), "\(path): \(reply)")
        }
        let answered = try send(.get, "/reverse?lat=40.9879&lon=29.0281")
        #expect(answered.forwarded == 0 && answered.status == 200 && answered.body.contains("Kadıköy"))
        // What it does not take goes on whole (head and end), answered by nobody here.
        let passed = try send(.post, "/reverse?lat=91&lon=0")
        #expect(passed.forwarded == 2 && passed.status == nil)
        _ = try channel.finish(acceptAlreadyClosed: true)
    }

    @Test func httpDates() {
        #expect(HTTPDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(1_795_419_000) == "Mon, 23 Nov 2026 07:30:00 GMT")
        #expect(HTTPDate.format(951_868_799) == "Tue, 29 Feb 2000 23:59:59 GMT")
    }
}
