import Foundation
import RoquaTestSupport
import Testing

/// `--store`, `--boundaries` and `--achievements` are declared once (RoquaCommandOptions) and taken
/// by every verb of `roqua` and `roqua-serve` that reads what they name, with the same defaults.
@Suite struct OptionGroupsCLITests {
    let roqua = ProductsDirectory.product("roqua")
    let serve = ProductsDirectory.product("roqua-serve")

    @Test func statsDaysAndTilesTakeBoundaries() throws {
        let directory = try TempDirectory()
        let store = ["--store", directory.file("regions.sqlite")]
        try Trip.csv.write(toFile: directory.file("trip.csv"), atomically: true, encoding: .utf8)
        let imported = try CommandRunner.run(
            roqua, ["track", "import", directory.file("trip.csv"), "--boundaries", try Bundled.path()] + store)
        #expect(imported.status == 0, "\(imported.stderr)")
        for verb in [["stats", "days", "--year", "2024", "--time-zone", "UTC"], ["stats", "tiles"]] {
            let plain = try CommandRunner.run(roqua, verb + store)
            let named = try CommandRunner.run(roqua, verb + store + ["--boundaries", try Bundled.path()])
            #expect(named.status == 0 && named.stderr.isEmpty, "\(verb): \(named.stderr)")
            #expect(named.stdout == plain.stdout && !plain.stdout.isEmpty, "\(verb): \(named.stdout)")
        }
    }

    @Test func roquaServeTakesTheSameStoreOption() throws {
        let directory = try TempDirectory()
        let store = ["--store", directory.file("regions.sqlite")]
        let added = try CommandRunner.run(serve, ["device", "add", "phone", "--url", "http://192.168.1.20:8080", "--json"] + store)
        #expect(added.status == 0, "\(added.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: Any])
        let token = try #require(document["token"] as? String)
        #expect(document["name"] as? String == "phone")
        #expect((document["owntracks"] as? [String: String]) == ["user": "phone", "password": token])
        #expect((document["urls"] as? [String: String])?["owntracks"] == "http://192.168.1.20:8080/api/ingest/owntracks")
        #expect((document["links"] as? [String: String])?["overland"]?.hasPrefix("overland://setup?url=http%3A%2F%2F192.168.1.20") == true)
        // Printed by the programs' one encoder: pretty, keys sorted, slashes as they are.
        #expect(
            added.stdout.hasPrefix("{\n  \"links\" : {") && added.stdout.contains("http://192.168.1.20:8080/api/ingest/owntracks"),
            "\(added.stdout)")
        let listed = try CommandRunner.run(serve, ["device", "list", "--json"] + store)
        let devices = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(devices.map { $0["name"] as? String } == ["phone"] && devices[0]["created_at"] is String, "\(listed.stdout)")
        // The same store through $ROQUA_STORE, as roqua reads it.
        var environment = ProcessInfo.processInfo.environment
        environment["ROQUA_STORE"] = directory.file("regions.sqlite")
        let fromEnvironment = try CommandRunner.run(serve, ["device", "list"], environment: environment)
        #expect(fromEnvironment.status == 0 && fromEnvironment.stdout.hasPrefix("phone: added "), "\(fromEnvironment.stdout)")
    }

    @Test func roquaServeReadsAchievementsAsRoquaDoes() throws {
        let directory = try TempDirectory()
        let common = ["--store", directory.file("regions.sqlite"), "--boundaries", try Bundled.path(), "--listen", "127.0.0.1:0"]
        // Both programs fail on the same missing definitions file, named by the option or by $ROQUA_ACHIEVEMENTS.
        let byOption = try CommandRunner.run(serve, common + ["--achievements", directory.file("mine.json")])
        #expect(byOption.status == 1 && byOption.stderr.hasPrefix("error: ") && byOption.stderr.contains("mine.json"), "\(byOption.stderr)")
        var environment = ProcessInfo.processInfo.environment
        environment["ROQUA_ACHIEVEMENTS"] = directory.file("theirs.json")
        let byEnvironment = try CommandRunner.run(serve, common, environment: environment)
        #expect(byEnvironment.status == 1 && byEnvironment.stderr.contains("theirs.json"), "\(byEnvironment.stderr)")
        let roquaToo = try CommandRunner.run(
            roqua,
            [
                "achievements", "--store", directory.file("regions.sqlite"), "--boundaries",
                try Bundled.path(),
            ], environment: environment)
        #expect(roquaToo.status == 1 && roquaToo.stderr.contains("theirs.json"), "\(roquaToo.stderr)")
    }
}
