import Foundation
import RoquaBoundaries
import RoquaTestSupport
import Testing

/// `roqua resolve` with localities: one point and batches alike, unless `--no-locality` (a last
/// CSV column or a last JSON key, so nothing else moves).
@Suite struct ResolveLocalityCLITests {
    @Test func capeTownHasItsISOCodeAndItsLocality() throws {
        let result = try BatchCLI.resolve(["-33.9249", "18.4241", "--json"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains(#""province":{"code":"ZA-WC","name":"Western Cape"}"#), "\(result.stdout)")
        #expect(
            result.stdout.contains(#""locality":{"name":"Cape Town","geonameid":3369157,"population":4772846}}"#),
            "\(result.stdout)")
    }

    @Test func textNamesTheLocalityLast() throws {
        let result = try BatchCLI.resolve(["40.6401", "22.9444"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout == "Greece › Kentriki Makedonia › Thessaloníki\n")
    }

    @Test func regionsListNameTheirLocalityFirst() throws {
        let directory = try TempDirectory()
        let common = ["--store", directory.file("regions.sqlite"), "--boundaries", try Bundled.path()]
        try "time,lat,lon\n2024-06-01T08:00:00Z,-33.9249,18.4241\n2024-06-02T08:00:00Z,41.1700,29.6100\n"
            .write(toFile: directory.file("trip.csv"), atomically: true, encoding: .utf8)
        let roqua = ProductsDirectory.product("roqua")
        #expect(try CommandRunner.run(roqua, ["track", "import", directory.file("trip.csv")] + common).status == 0)
        let listed = try CommandRunner.run(roqua, ["regions", "--store", directory.file("regions.sqlite")])
        #expect(listed.status == 0, "stderr: \(listed.stderr)")
        let lines = listed.stdout.split(separator: "\n")
        #expect(lines.contains { $0.hasSuffix("  Cape Town, Western Cape, South Africa") }, "\(listed.stdout)")
        #expect(lines.contains { $0.hasSuffix("  Şile, İstanbul, Türkiye") }, "\(listed.stdout)")  // not "Şile, Şile, …"
    }

    @Test func batchCSVHasTheLocalityColumnUnlessTurnedOff() throws {
        let scratch = try BatchScratch()
        let input = try scratch.write("p.csv", "name,lat,lon\nberlin,52.52,13.405\nsea,35.0,18.0\n")
        let plain = try BatchCLI.resolve(["--input", input, "--no-locality", "--drop-bad-rows"])
        #expect(plain.status == 0, "stderr: \(plain.stderr)")
        #expect(
            outputLines(plain.stdout)[0] == "name,lat,lon,"
                + "country_code,country,province_code,province,district_code,district,approximate")
        let asked = try BatchCLI.resolve(["--input", input, "--drop-bad-rows"])
        #expect(asked.status == 0, "stderr: \(asked.stderr)")
        let lines = outputLines(asked.stdout)
        #expect(lines[0] == outputLines(plain.stdout)[0] + ",locality")
        #expect(lines[1] == outputLines(plain.stdout)[1] + ",Berlin")
        #expect(lines[2] == outputLines(plain.stdout)[2] + ",")
        // One flag for both: one point leaves it out too.
        #expect(try BatchCLI.resolve(["52.52", "13.405", "--json", "--no-locality"]).stdout.contains("locality") == false)
        #expect(try BatchCLI.resolve(["52.52", "13.405", "--json"]).stdout.contains(#""locality":{"name":"Berlin""#))
    }

    @Test func batchJSONMatchesTheSinglePointAnswer() throws {
        let scratch = try BatchScratch()
        let input = try scratch.write("p.csv", "lat,lon\n-33.9249,18.4241\n35.0,18.0\n")
        let result = try BatchCLI.resolve(["--input", input, "--format", "ndjson"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let index = try Bundled.index()
        let resolver = try Resolver(index: index)
        let expected = try [(-33.9249, 18.4241), (35.0, 18.0)].map {
            try index.withLocality(resolver.resolve(latitude: $0.0, longitude: $0.1)).json(language: .local)
        }
        #expect(outputLines(result.stdout) == expected)
    }
}
