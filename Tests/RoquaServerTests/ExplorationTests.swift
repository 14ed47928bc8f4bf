import Foundation
import RoquaAchievements
import RoquaRegions
import Testing

@testable import RoquaServer

@Suite struct ExplorationTests {
    func features(_ server: TestServer, _ code: String) async throws -> [[String: Any]] {
        try await server.get("/api/units/\(code)/children").object()["features"] as? [[String: Any]] ?? []
    }

    @Test func childrenShapesForTheMap() async throws {
        let server = try await SharedServer.get()
        let istanbul = try await features(server, "TR-34")
        #expect(istanbul.count == 39)
        let names = istanbul.compactMap { ($0["properties"] as? [String: Any])?["name"] as? String }
        #expect(names.contains("Kadıköy") && names.contains("Şile"))
        #expect(istanbul.allSatisfy { ($0["geometry"] as? [String: Any])?["type"] as? String == "MultiPolygon" })
        // Neighbours share their border vertex for vertex after simplification.
        func points(_ name: String) -> Set<String> {
            let feature = istanbul.first { ($0["properties"] as? [String: Any])?["name"] as? String == name }
            let polygons = (feature?["geometry"] as? [String: Any])?["coordinates"] as? [[[[Double]]]] ?? []
            return Set(polygons.flatMap { $0.flatMap { $0.map { "\($0[0]),\($0[1])" } } })
        }
        #expect(points("Kadıköy").intersection(points("Üsküdar")).count >= 5)
        #expect(try await features(server, "TR").count == 81)
        let world = try await features(server, "world")
        #expect(world.count == 252)  // every country, the smallest as a one-cell dot
        #expect(try await server.get("/api/units/NOPE/children").status == 404)
        #expect(try await features(server, "TUR034023").isEmpty)  // a district has no children
    }

    /// Greenland was drawn in stairs: a grid of whole degrees of latitude is ×3.9 taller on the
    /// page's Mercator map at 75° N. The grid is the page's own projection now.
    @Test func worldOutlinesAreSnappedInThePagesProjection() async throws {
        let collection = try await SharedServer.get().get("/api/units/world/children").object()
        let step = try #require(collection["step"] as? Double)
        let greenland = try #require(
            (collection["features"] as? [[String: Any]])?.first {
                ($0["properties"] as? [String: Any])?["code"] as? String == "GL"
            })
        let polygons = (greenland["geometry"] as? [String: Any])?["coordinates"] as? [[[[Double]]]] ?? []
        let latitudes = polygons.flatMap { $0.flatMap { $0.map { $0[1] } } }
        #expect(latitudes.count > 100)
        var finest = Double.infinity
        for latitude in latitudes {
            let rows = ShapeSimplifier.mercatorY(latitude) / step
            #expect(abs(rows - rows.rounded()) < 0.15, "\(latitude)")
            // Rows at 75° N are a quarter of the step apart in degrees of latitude.
            if latitude > 74, latitude < 76 {
                finest = min(finest, abs(ShapeSimplifier.latitude(mercatorY: (rows.rounded() + 1) * step) - latitude))
            }
        }
        #expect(finest < step / 3, "\(finest) vs \(step)")
    }

    /// The page opens on the user's own places: the whole world for an empty store, else the box
    /// of the regions and the deepest unit holding them all.
    @Test func thePageOpensOnTheVisitedPlaces() async throws {
        try await TestServer.with { server in
            let empty = try await server.get("/api/view").object()
            #expect(empty["bounds"] == nil && (empty["units"] as? [String]) == [], "\(empty)")
            let gpx = Array(try Data(contentsOf: URL(fileURLWithPath: CrossSiteTests.gpx)))
            #expect(try await server.post("/api/tracks?name=day.gpx", body: gpx).status == 200)
            let istanbul = try await server.get("/api/view").object()
            #expect(istanbul["units"] as? [String] == ["TR", "TR-34"], "\(istanbul)")
            let box = try #require(istanbul["bounds"] as? [Double])
            #expect(
                box.count == 4 && box[0] > 40.9 && box[2] < 41.1 && box[1] > 28.8 && box[3] < 29.2 && box[0] < box[2] && box[1] < box[3])
            for region in try RegionStore(path: server.store).allRegions() {
                #expect((box[0]...box[2]).contains(region.latitude) && (box[1]...box[3]).contains(region.longitude))
            }
            // Paris too: two countries, the world level framing both.
            #expect(try await server.post("/api/tracks?name=paris.csv", body: CrossSiteTests.paris).status == 200)
            let both = try await server.get("/api/view").object()
            let wide = try #require(both["bounds"] as? [Double])
            #expect(both["units"] as? [String] == [] && wide[1] < 2.36 && wide[3] > 29.0 && wide[2] > 48.85, "\(both)")
        }
    }

    @Test func achievementsHideTheHiddenOnesAndProfileAnswers() async throws {
        let server = try await SharedServer.get()
        let catalog = try AchievementCatalog.bundled()
        let board = try await server.get("/api/achievements?lang=tr").object()
        let items = board["achievements"] as? [[String: Any]] ?? []
        #expect(items.count == catalog.achievements.count && board["unlocked"] as? Int == 0)
        let hidden = items.filter { $0["hidden"] as? Bool == true }
        #expect(hidden.count == catalog.achievements.filter(\.hidden).count && !hidden.isEmpty)
        #expect(hidden.allSatisfy { $0["title"] as? String == "???" && $0["id"] as? String == "hidden" })
        for definition in catalog.achievements where definition.hidden {
            #expect(!items.contains { $0["title"] as? String == definition.title.tr })
        }
        #expect(try await server.get("/api/achievements?lang=de").status == 400)
        let profile = try await server.get("/api/profile").object()
        #expect(
            (profile["level"] as? [String: Any])?["level"] as? Int == 1
                && profile["achievement_count"] as? Int == catalog.achievements.count)
        #expect(try await server.get("/api/stats?tz=Mars/Olympus").status == 400)
    }
}
