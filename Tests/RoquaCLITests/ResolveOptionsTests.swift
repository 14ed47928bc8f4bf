import Foundation
import RoquaBatch
import RoquaBoundaries
import RoquaTestSupport
import Testing

/// `roqua resolve` options that must be refused up front with a clear message (a huge worker
/// count used to hang), and the pipelined output checked against the resolver answer by answer.
@Suite struct ResolveOptionsTests {
    @Test(arguments: ["0", "257", "100000", "-3", "two"])
    func workerCountOutOfRangeIsRefused(_ workers: String) throws {
        let scratch = try BatchScratch()
        let input = try scratch.write("p.csv", "lat,lon\n40.9879,29.0281\n")
        let result = try BatchCLI.resolve(["--input", input, "--workers", workers])
        #expect(result.status != 0 && result.status != 2)
        #expect(result.stderr.contains("--workers"), "stderr: \(result.stderr)")
        if Int(workers) != nil { #expect(result.stderr.contains("1 and 256"), "stderr: \(result.stderr)") }
        #expect(result.stdout.isEmpty)
    }

    @Test(arguments: ["inf", "nan", "-5", "60000", "1e400"])
    func fallbackDistanceOutOfRangeIsRefused(_ meters: String) throws {
        let result = try BatchCLI.resolve(["40.9879", "29.0281", "--fallback-meters", meters])
        #expect(result.status != 0)
        #expect(result.stderr.contains("--fallback-meters") && result.stderr.contains("50000"), "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func theLargestAcceptedValuesWork() throws {
        let scratch = try BatchScratch()
        let input = try scratch.write("p.csv", "lat,lon\n40.9925,29.0195\n0,-30\n")
        let result = try BatchCLI.resolve(["--input", input, "--workers", "256", "--fallback-meters", "50000"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = outputLines(result.stdout)
        #expect(lines.count == 3)
        #expect(lines[1].contains(",TR,Türkiye,TR-34,İstanbul,TUR034023,Kadıköy,true"), "\(lines)")
    }

    /// Every NDJSON and GeoJSON answer the pipeline writes is the resolver's own JSON for that
    /// point, in input order, over points on land, near coasts and at sea, on several workers.
    @Test(arguments: ["ndjson", "geojson"])
    func pipelinedJSONIsTheResolversJSON(_ format: String) throws {
        let scratch = try BatchScratch()
        var generator = SeededGenerator(state: 17)
        let points = (0..<6000).map { i in
            i % 3 == 0
                ? Coordinate(
                    latitude: Double.random(in: -60...75, using: &generator), longitude: Double.random(in: -180...180, using: &generator))
                : Coordinate(
                    latitude: Double.random(in: 40.8...41.3, using: &generator),
                    longitude: Double.random(in: 28.6...29.4, using: &generator))
        }
        let input = try scratch.write("p.csv", "lat,lon\n" + points.map { "\($0.latitude),\($0.longitude)" }.joined(separator: "\n") + "\n")
        let run = try scratch.runLibrary(input, BatchOptions(language: .tr, output: BatchFormat(rawValue: format), workers: 5))
        #expect(run.errors.isEmpty)
        let resolver = try Resolver(index: Bundled.index())
        let expected = try points.map { try resolver.resolve($0).json(language: .tr) }
        var answers: [String] = []
        if format == "ndjson" {
            answers = outputLines(run.output)
        } else {
            let document = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
            for feature in try #require(document["features"] as? [[String: Any]]) {
                let properties = try #require(feature["properties"] as? [String: Any])
                answers.append(try canonicalJSON(try #require(properties["roqua"])))
            }
        }
        try #require(answers.count == points.count)
        for (i, (got, want)) in zip(answers, expected).enumerated() {
            let wanted = format == "ndjson" ? want : try canonicalJSON(try #require(jsonObject(want)))
            if got != wanted {
                Issue.record("row \(i + 2): \(got) != \(wanted)")
                break
            }
        }
    }
}
