import Foundation
import RoquaTestKit
import RoquaTestSupport
import Testing

/// `GET /api/timeline?date=DAY&tz=ZONE`: the CLI's `timeline DAY --json`, for the page's day view,
/// under the same rules as every read of the server.
@Suite struct TimelineRouteTests {
    @Test func theDayOfAnUploadedCommuteAnswersAsTheCLIDoes() async throws {
        try await TestServer.with { server in
            let csv = try Data(contentsOf: URL(fileURLWithPath: Repository.path("scripts/examples/commute.csv")))
            #expect(try await server.post("/api/tracks?name=commute.csv", body: Array(csv)).status == 200)

            let reply = try await server.get("/api/timeline?date=2024-05-06&tz=Europe/Istanbul")
            #expect(reply.status == 200)
            let day = try reply.object()
            #expect(day["date"] as? String == "2024-05-06")
            #expect(day["time_zone"] as? String == "Europe/Istanbul")
            let entries = try #require(day["entries"] as? [[String: Any]])
            #expect(
                entries.map { $0["type"] as? String ?? "" } == ["stay", "move", "move", "move", "stay", "move", "move", "move", "stay"])
            #expect(entries.compactMap { $0["mode"] as? String } == ["walk", "boat", "walk", "walk", "boat", "walk"])
            #expect(entries.first?["label"] as? String == "home")
            #expect(
                entries.first?["start"] as? String == "2024-05-05T20:00:00+03:00"
                    || entries.first?["start"] as? String == "2024-05-05T20:00:00+0300")
            #expect((entries[4]["district"] as? [String: Any])?["name"] as? String == "Beyoğlu")

            let empty = try await server.get("/api/timeline?date=2023-01-01&tz=UTC").object()
            #expect((empty["entries"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func badDaysAndZonesAreRefused() async throws {
        let server = try await SharedServer.get()
        for target in [
            "/api/timeline", "/api/timeline?date=2024-02-30", "/api/timeline?date=2024-5-6", "/api/timeline?date=2024-05-06T10:00",
            "/api/timeline?date=2024-05-06&tz=Mars/Olympus",
        ] {
            let reply = try await server.get(target)
            #expect(reply.status == 400, "\(target)")
        }
    }

    /// Where someone was is the most personal thing the server holds: another site's page (an
    /// Origin that is not the server's) and a foreign Host get nothing.
    @Test func anotherSiteCannotReadTheDay() async throws {
        let server = try await SharedServer.get()
        for headers in [
            ["Sec-Fetch-Site": "cross-site"], ["Sec-Fetch-Site": "same-site"], ["Origin": "https://evil.example"],
            ["Referer": "https://evil.example/page"], ["Origin": "null"],
        ] {
            let reply = try await server.get("/api/timeline?date=2024-05-06", headers: headers)
            #expect(reply.status == 403, "\(headers)")
            #expect(reply.text.contains("cross-site request refused") || reply.text.contains("origin"), "\(reply.text)")
        }
        let page = try await server.get(
            "/api/timeline?date=2024-05-06", headers: ["Sec-Fetch-Site": "same-origin", "Origin": server.origin])
        #expect(page.status == 200)
        let rebound = try await LoopbackHTTP.request(server.port, "GET", "/api/timeline?date=2024-05-06", host: .some("evil.example"))
        #expect(rebound.status == 421)
    }
}
