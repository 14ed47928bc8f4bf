import Foundation
import RoquaTestKit
import RoquaTestSupport
import Testing

/// `GET /api/tiles/{heat|lines}/{z}/{x}/{y}.png`: the lifetime map, under the rules of every read
/// of the history — and true to the fixes: the tiles the imports keep are the tiles the fixes draw.
@Suite struct MapTileRouteTests {
    /// The slippy tile holding a point at zoom `z`.
    static func tile(_ latitude: Double, _ longitude: Double, _ z: Int) -> (x: Int, y: Int) {
        let n = Double(1 << z)
        let radians = latitude * .pi / 180
        return (Int((longitude + 180) / 360 * n), Int((1 - log(tan(radians) + 1 / cos(radians)) / .pi) / 2 * n))
    }

    static func header(_ reply: LoopbackHTTP.Reply, _ name: String) -> String? {
        reply.headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }

    /// A PNG without one visible pixel: what the server answers where nothing was recorded.
    static func transparent(_ server: TestServer) async throws -> [UInt8] {
        try await server.get("/api/tiles/heat/3/0/0.png").body
    }

    @Test func theCommuteLightsItsTilesAndOnlyThose() async throws {
        try await TestServer.with { server in
            let blank = try await Self.transparent(server)
            let csv = try Data(contentsOf: URL(fileURLWithPath: Repository.path("scripts/examples/commute.csv")))
            #expect(try await server.post("/api/tracks?name=commute.csv", body: Array(csv)).status == 200)

            // The ferry's Bosphorus, at three zooms, both kinds: lit, and as the fixes draw it.
            for z in [10, 13, 16] {
                let (x, y) = Self.tile(41.005221, 29.003204, z)
                for kind in ["heat", "lines"] {
                    let kept = try await server.get("/api/tiles/\(kind)/\(z)/\(x)/\(y).png")
                    #expect(kept.status == 200 && Self.header(kept, "content-type") == "image/png")
                    #expect(kept.body.starts(with: [0x89, 0x50, 0x4E, 0x47]) && kept.body != blank, "\(kind) \(z)")
                    let drawn = try await server.get("/api/tiles/\(kind)/\(z)/\(x)/\(y).png?from=2024-05-05&to=2024-05-07&tz=UTC")
                    #expect(drawn.body == kept.body, "\(kind) \(z): the pyramid and the fixes disagree")
                }
            }
            // The Black Sea and a day without fixes: nothing.
            let (sx, sy) = Self.tile(43.0, 34.0, 8)
            #expect(try await server.get("/api/tiles/heat/8/\(sx)/\(sy).png").body == blank)
            let (x, y) = Self.tile(41.005221, 29.003204, 13)
            #expect(try await server.get("/api/tiles/heat/13/\(x)/\(y).png?from=2024-05-07&to=2024-05-08&tz=Europe/Istanbul").body != blank)
            #expect(try await server.get("/api/tiles/heat/13/\(x)/\(y).png?from=2024-05-08&to=2024-05-09&tz=Europe/Istanbul").body == blank)
        }
    }

    /// Tiles are personal data: revalidated by ETag (304), which changes with the history; private.
    @Test func tilesAreCachedPrivatelyUntilTheHistoryChanges() async throws {
        try await TestServer.with { server in
            let (x, y) = Self.tile(41.005221, 29.003204, 12)
            let target = "/api/tiles/heat/12/\(x)/\(y).png"
            let first = try await server.get(target)
            let tag = try #require(Self.header(first, "etag"))
            #expect(Self.header(first, "cache-control")?.hasPrefix("private") == true)
            let again = try await server.get(target, headers: ["If-None-Match": tag])
            #expect(again.status == 304 && again.body.isEmpty)
            // The tag is made of checked values only: a query's text (a zone that nothing reads
            // without a span) is not in it, and a header smuggled in one is refused outright.
            let unread = try await server.get(target + "?tz=Mars/Olympus")
            #expect(unread.status == 200 && Self.header(unread, "etag") == tag)
            let smuggled = try await server.get(target + "?tz=%0D%0ASet-Cookie:%20a=b")
            #expect(smuggled.status == 400 && Self.header(smuggled, "set-cookie") == nil)
            let csv = try Data(contentsOf: URL(fileURLWithPath: Repository.path("scripts/examples/commute.csv")))
            #expect(try await server.post("/api/tracks?name=commute.csv", body: Array(csv)).status == 200)
            let changed = try await server.get(target, headers: ["If-None-Match": tag])
            #expect(changed.status == 200 && Self.header(changed, "etag") != tag)
        }
    }

    @Test func badTilesAreRefused() async throws {
        let server = try await SharedServer.get()
        for target in [
            "/api/tiles/fog/3/0/0.png", "/api/tiles/heat/19/0/0.png", "/api/tiles/heat/3/8/0.png", "/api/tiles/heat/3/0/8.png",
            "/api/tiles/heat/3/0/0.jpg", "/api/tiles/heat/-1/0/0.png", "/api/tiles/heat/3/x/0.png",
        ] {
            #expect(try await server.get(target).status == 404, "\(target)")
        }
        for query in [
            "from=2024-05-06", "from=2024-05-06&to=2024-05-05", "from=2024-02-30&to=2024-03-01",
            "from=2024-05-06&to=2024-05-06&tz=Mars/Olympus",
            // More than a month would read every fix of it for each tile.
            "from=1970-01-01&to=2099-12-31", "from=2024-01-01&to=2024-02-01",
        ] {
            #expect(try await server.get("/api/tiles/lines/3/0/0.png?\(query)").status == 400, "\(query)")
        }
        #expect(try await server.get("/api/tiles/lines/3/0/0.png?from=2024-01-01&to=2024-01-31&tz=Europe/Istanbul").status == 200)
    }

    /// An `<img>` or a script of another site gets no tile: where someone went, drawn, is as
    /// personal as where they were on a day.
    @Test func anotherSiteCannotReadTheMap() async throws {
        let server = try await SharedServer.get()
        for headers in [["Sec-Fetch-Site": "cross-site"], ["Origin": "https://evil.example"], ["Referer": "https://evil.example/map"]] {
            let reply = try await server.get("/api/tiles/heat/3/4/2.png", headers: headers)
            #expect(reply.status == 403, "\(headers)")
        }
        #expect(try await server.get("/api/tiles/heat/3/4/2.png", headers: ["Sec-Fetch-Site": "same-origin"]).status == 200)
        let rebound = try await LoopbackHTTP.request(server.port, "GET", "/api/tiles/heat/3/4/2.png", host: .some("evil.example"))
        #expect(rebound.status == 421)
    }
}
