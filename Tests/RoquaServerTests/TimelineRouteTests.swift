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

            // The calendar: the local days with fixes, in the zone asked (UTC+14 moves each a day on).
            for (zone, days) in [
                ("Europe/Istanbul", ["2024-05-05", "2024-05-06", "2024-05-07"]),
                ("Pacific/Kiritimati", ["2024-05-06", "2024-05-07", "2024-05-08"]),
            ] {
                let month = try await server.get("/api/timeline/days?month=2024-05&tz=\(zone)").object()
                #expect(month["days"] as? [String] == days && month["month"] as? String == "2024-05", "\(zone): \(month)")
                #expect(month["time_zone"] as? String == zone)
            }
            let none = try await server.get("/api/timeline/days?month=2024-04&tz=UTC").object()
            #expect((none["days"] as? [Any])?.isEmpty == true)
            // One block spanning three days, the middle one without a fix: not marked.
            let gap = "lat,lon,timestamp\n41.0,29.0,2024-06-01T10:00:00Z\n41.0,29.0,2024-06-01T10:05:00Z\n41.0,29.0,2024-06-03T10:00:00Z\n"
            #expect(try await server.post("/api/tracks?name=gap.csv", body: Array(gap.utf8)).status == 200)
            let june = try await server.get("/api/timeline/days?month=2024-06&tz=UTC").object()
            #expect(june["days"] as? [String] == ["2024-06-01", "2024-06-03"], "\(june)")
        }
    }

    @Test func badDaysAndZonesAreRefused() async throws {
        let server = try await SharedServer.get()
        for target in [
            "/api/timeline", "/api/timeline?date=2024-02-30", "/api/timeline?date=2024-5-6", "/api/timeline?date=2024-05-06T10:00",
            "/api/timeline?date=2024-05-06&tz=Mars/Olympus", "/api/timeline/days", "/api/timeline/days?month=2024-13",
            "/api/timeline/days?month=2024-5", "/api/timeline/days?month=2024-05-01", "/api/timeline/days?month=2024-05&tz=Mars/Olympus",
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
            for target in ["/api/timeline?date=2024-05-06", "/api/timeline/days?month=2024-05"] {
                let reply = try await server.get(target, headers: headers)
                #expect(reply.status == 403, "\(target) \(headers)")
                #expect(reply.text.contains("cross-site request refused") || reply.text.contains("origin"), "\(reply.text)")
            }
        }
        let page = try await server.get(
            "/api/timeline?date=2024-05-06", headers: ["Sec-Fetch-Site": "same-origin", "Origin": server.origin])
        #expect(page.status == 200)
        for target in ["/api/timeline?date=2024-05-06", "/api/timeline/days?month=2024-05"] {
            let rebound = try await LoopbackHTTP.request(server.port, "GET", target, host: .some("evil.example"))
            #expect(rebound.status == 421, "\(target)")
        }
    }
}
