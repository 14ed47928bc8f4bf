import Foundation
import RoquaTestSupport
import Testing

@Suite struct InfoCLITests {
    @Test func infoVerbReportsTheAcceptanceFigures() throws {
        let result = try CommandRunner.run(ProductsDirectory.product("roqua"), ["info", "--json", "--boundaries", Bundled.path()])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let levels = try #require(json["levels"] as? [String: Int])
        #expect(try #require(levels["country"]) >= 240)
        let countries = try #require(json["countries"] as? [[String: Any]])
        #expect(countries.count >= 240)
        let turkiye = try #require(countries.first { $0["code"] as? String == "TR" })
        #expect(turkiye["provinces"] as? Int == 81 && turkiye["districts"] as? Int == 973)
        let provinces = try #require(json["provinces_with_districts"] as? [[String: Any]])
        #expect(provinces.first { $0["code"] as? String == "TR-34" }?["districts"] as? Int == 39)
        #expect(json["schema_version"] as? Int == 3)
    }

    @Test func infoOnAMissingDatabaseSaysHowToBuildIt() throws {
        let result = try CommandRunner.run(ProductsDirectory.product("roqua"), ["info", "--boundaries", "/nonexistent/b.sqlite"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("/nonexistent/b.sqlite") && result.stderr.contains("roqua import"))
    }
}
