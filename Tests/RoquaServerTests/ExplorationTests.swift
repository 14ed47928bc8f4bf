import Foundation
import RoquaAchievements
import Testing

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
        #expect((profile["level"] as? [String: Any])?["level"] as? Int == 1 && profile["achievement_count"] as? Int == catalog.achievements.count)
        #expect(try await server.get("/api/stats?tz=Mars/Olympus").status == 400)
    }
}
