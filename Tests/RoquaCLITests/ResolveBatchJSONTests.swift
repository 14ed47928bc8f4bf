import Foundation
import RoquaBatch
import RoquaBoundaries
import RoquaTestSupport
import Testing

/// `roqua resolve --input` and `BatchRunner` on NDJSON and GeoJSON: in and out, converted to and
/// from CSV, JSON booleans refused as coordinates, broken documents refused as a whole.
@Suite struct ResolveBatchJSONTests: BatchFixtures {
    let resolver: Resolver

    init() throws {
        resolver = try Resolver(index: Bundled.index())
    }

    static let kadikoyJSON = """
        {"lat":40.9879,"lon":29.0281,"country":{"code":"TR","name":"Türkiye"},"province":{"code":"TR-34","name":"İstanbul"},\
        "district":{"code":"TUR034023","name":"Kadıköy"},"approximate":false}
        """

    // MARK: NDJSON

    @Test func ndjsonInAndOut() throws {
        let scratch = try BatchScratch()
        let input = try scratch.write("points.ndjson", Self.ndjson)
        let library = try scratch.runLibrary(input, BatchOptions(workers: 2))
        #expect(library.errors.map(\.row) == [3])
        #expect(library.errors.first?.file == input)
        #expect(library.summary.rows == 5 && library.summary.failed == 1)

        let cli = try BatchCLI.resolvePlain(["--input", input])
        #expect(cli.status == 2)
        #expect(cli.stdout == library.output)
        #expect(outputLines(cli.stderr).contains { $0.hasPrefix("error: \(input): row 3: ") }, "stderr: \(cli.stderr)")
        #expect(cli.stderr.contains("1 of 5 rows failed"), "stderr: \(cli.stderr)")

        let lines = outputLines(cli.stdout)
        try #require(lines.count == 4, "output:\n\(cli.stdout)")
        #expect(lines[0] == Self.kadikoyJSON)
        let expected: [(Double, Double)] = [(40.9879, 29.0281), (39.9208, 32.8541), (0, -30), (41.0430, 29.0070)]
        for (line, (lat, lon)) in zip(lines, expected) {
            let object = try #require(jsonObject(line), "not a JSON object: \(line)")
            #expect((object["lat"] as? NSNumber)?.doubleValue == lat)
            #expect((object["lon"] as? NSNumber)?.doubleValue == lon)
            #expect(object["approximate"] as? Bool == false)
            // The documented key order.
            let positions = ["\"lat\":", "\"lon\":", "\"country\":", "\"province\":", "\"district\":", "\"approximate\":"]
                .map { line.range(of: $0)?.lowerBound }
            #expect(positions.allSatisfy { $0 != nil } && positions.map { $0! } == positions.map { $0! }.sorted(), "\(line)")
            #expect(line == (try resolver.resolve(latitude: lat, longitude: lon)).json(language: .local))
        }
        let cankaya = try #require(jsonObject(lines[1]))
        #expect((cankaya["district"] as? [String: Any])?["name"] as? String == "Çankaya")
        #expect((cankaya["country"] as? [String: Any])?["code"] as? String == "TR")
        let sea = try #require(jsonObject(lines[2]))
        #expect(sea["country"] is NSNull && sea["province"] is NSNull && sea["district"] is NSNull)
        #expect((try #require(jsonObject(lines[3]))["district"] as? [String: Any])?["name"] as? String == "Beşiktaş")
    }

    @Test func ndjsonToCSV() throws {
        let scratch = try BatchScratch()
        let input = try scratch.write("points.ndjson", Self.ndjson)
        let cli = try BatchCLI.resolvePlain(["--input", input, "--format", "csv"])
        #expect(cli.status == 2)
        #expect(cli.stdout == (try scratch.runLibrary(input, BatchOptions(output: .csv))).output)
        let lines = outputLines(cli.stdout)
        try #require(lines.count == 5, "output:\n\(cli.stdout)")
        #expect(lines[0] == "lat,lon," + Self.resultHeader)
        #expect(lines[1] == "40.9879,29.0281," + Self.kadikoy)
        let expected: [(Double, Double)] = [(39.9208, 32.8541), (0, -30), (41.0430, 29.0070)]
        for (line, (lat, lon)) in zip(lines.dropFirst(2), expected) {
            let fields = csvFields(line)
            try #require(fields.count == 9, "\(line)")
            #expect(Double(fields[0]) == lat && Double(fields[1]) == lon, "\(line)")
            #expect(Array(fields.dropFirst(2)) == resultColumns(try resolver.resolve(latitude: lat, longitude: lon)))
        }
    }

    /// JSON `true`/`false` are not coordinates; Foundation hands them over as NSNumber 1/0.
    /// (Fails today: `{"lat":true,…}` is resolved at latitude 1, silently.)
    @Test func jsonBooleansAreNotCoordinates() throws {
        let scratch = try BatchScratch()
        let ndjson = try scratch.write(
            "bools.ndjson",
            """
            {"lat":40.9879,"lon":29.0281}
            {"lat":true,"lon":29.0281}
            {"lat":40.9879,"lon":false}

            """)
        let fromNDJSON = try scratch.runLibrary(ndjson)
        #expect(fromNDJSON.errors.map(\.row) == [2, 3], "output:\n\(fromNDJSON.output)")
        #expect(outputLines(fromNDJSON.output) == [Self.kadikoyJSON])

        let geojson = try scratch.write(
            "bools.geojson",
            """
            {"type":"FeatureCollection","features":[
            {"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[29.0281,40.9879]}},
            {"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[true,true]}}
            ]}
            """)
        let fromGeoJSON = try scratch.runLibrary(geojson)
        #expect(fromGeoJSON.errors.map(\.row) == [2], "output:\n\(fromGeoJSON.output)")
    }

    // MARK: GeoJSON

    /// The features of a GeoJSON FeatureCollection text, or a failed expectation.
    private func features(_ text: String) throws -> [[String: Any]] {
        let root = try #require(jsonObject(text), "not a JSON object:\n\(text)")
        #expect(root["type"] as? String == "FeatureCollection")
        return try #require(root["features"] as? [[String: Any]])
    }

    @Test func geojsonInAndOut() throws {
        let scratch = try BatchScratch()
        let input = try scratch.write("points.geojson", Self.geojson)
        let library = try scratch.runLibrary(input)
        #expect(library.errors.map(\.row) == [3])
        #expect(library.errors.first?.file == input)
        #expect(library.summary.rows == 4 && library.summary.failed == 1)

        let cli = try BatchCLI.resolvePlain(["--input", input])
        #expect(cli.status == 2)
        #expect(outputLines(cli.stderr).contains { $0.hasPrefix("error: \(input): row 3: ") }, "stderr: \(cli.stderr)")
        #expect(cli.stdout == library.output)

        let out = try features(cli.stdout)
        try #require(out.count == 3)
        let expected: [(Double, Double, [String: Any]?)] = [
            (40.9879, 29.0281, ["name": "Kadıköy iskelesi", "id": 7, "tags": ["a", "b"]]),
            (39.9208, 32.8541, nil),
            (0, -30, ["name": "açık deniz", "depth": 4200.5]),
        ]
        for (feature, (lat, lon, kept)) in zip(out, expected) {
            #expect(feature["type"] as? String == "Feature")
            let geometry = try #require(feature["geometry"] as? [String: Any])
            #expect(geometry["type"] as? String == "Point")
            let position = try #require(geometry["coordinates"] as? [NSNumber]).map(\.doubleValue)
            #expect(position == [lon, lat])
            let properties = try #require(feature["properties"] as? [String: Any])
            #expect(Set(properties.keys) == Set((kept ?? [:]).keys).union(["roqua"]))
            let roqua = try #require(properties["roqua"] as? [String: Any])
            let answer = try resolver.resolve(latitude: lat, longitude: lon)
            let expectedRoqua = try #require(jsonObject(answer.json(language: .local)))
            #expect(try canonicalJSON(roqua) == canonicalJSON(expectedRoqua))
        }
        let first = try #require(out[0]["properties"] as? [String: Any])
        #expect(first["name"] as? String == "Kadıköy iskelesi")
        #expect((first["id"] as? NSNumber)?.intValue == 7)
        #expect(first["tags"] as? [String] == ["a", "b"])
        let roqua = try #require(first["roqua"] as? [String: Any])
        #expect((roqua["district"] as? [String: Any])?["code"] as? String == "TUR034023")
        #expect((roqua["province"] as? [String: Any])?["name"] as? String == "İstanbul")
        let sea = try #require(out[2]["properties"] as? [String: Any])
        #expect((sea["depth"] as? NSNumber)?.doubleValue == 4200.5)
        #expect((sea["roqua"] as? [String: Any])?["country"] is NSNull)

        // On one line, and to NDJSON.
        let oneLine = try scratch.write(
            "one.geojson",
            """
            {"type":"FeatureCollection","features":[{"type":"Feature","properties":{"k":"v"},\
            "geometry":{"type":"Point","coordinates":[29.0281,40.9879]}}]}
            """)
        let compact = try BatchCLI.resolvePlain(["--input", oneLine, "--format", "ndjson"])
        #expect(compact.status == 0, "stderr: \(compact.stderr)")
        #expect(compact.stdout == Self.kadikoyJSON + "\n")
    }

    @Test func csvToGeoJSON() throws {
        let scratch = try BatchScratch()
        let input = try scratch.write("places.csv", Self.namedCSV)
        let cli = try BatchCLI.resolvePlain(["--input", input, "--format", "geojson"])
        #expect(cli.status == 0, "stderr: \(cli.stderr)")
        let out = try features(cli.stdout)
        #expect(out.count == 4)
        let roqua = try #require((out.first?["properties"] as? [String: Any])?["roqua"] as? [String: Any])
        #expect((roqua["district"] as? [String: Any])?["name"] as? String == "Kadıköy")
    }

    @Test func brokenGeoJSONIsAFileError() throws {
        let scratch = try BatchScratch()
        let broken = try scratch.write(
            "broken.geojson", "{\n  \"type\": \"FeatureCollection\",\n  \"features\": [\n    {\"type\": \"Feature\",")
        let noFeatures = try scratch.write("nofeatures.geojson", "{\n  \"type\": \"FeatureCollection\"\n}\n")
        for input in [broken, noFeatures] {
            #expect(throws: BatchError.self) { try scratch.runLibrary(input) }
            do {
                _ = try scratch.runLibrary(input)
            } catch {
                #expect(String(describing: error).contains(input), "\(error)")
            }
            let cli = try BatchCLI.resolvePlain(["--input", input])
            #expect(cli.status != 0 && cli.status != 2, "status \(cli.status)")
            #expect(cli.stderr.contains(input), "stderr: \(cli.stderr)")
            #expect(cli.stderr.contains("GeoJSON"), "stderr: \(cli.stderr)")
            #expect(cli.stdout.isEmpty)
        }
    }
}
