import Foundation
import RoquaBoundaries
import RoquaTestSupport
import Testing

/// Batch resolution (`BatchRunner` and `roqua resolve --input`) on the real bundled data:
/// CSV, NDJSON and GeoJSON in and out, bad rows, stdin, output files and a 50,000-row run.
@Suite struct BatchTests {
    static let resultHeader = "country_code,country,province_code,province,district_code,district,approximate"
    static let kadikoy = "TR,Türkiye,TR-34,İstanbul,TUR034023,Kadıköy,false"
    static let kadikoyJSON = """
        {"lat":40.9879,"lon":29.0281,"country":{"code":"TR","name":"Türkiye"},"province":{"code":"TR-34","name":"İstanbul"},\
        "district":{"code":"TUR034023","name":"Kadıköy"},"approximate":false}
        """

    let resolver: Resolver

    init() throws {
        resolver = try Resolver(index: Bundled.index())
    }

    // MARK: 1. CSV with a header

    /// A quoted name with a comma, doubled quotes and Turkish letters, as written in the file.
    static let quotedName = "\"Kadıköy, rıhtım \"\"eski\"\"\""
    static let namedCSV = [
        "name,lat,lon",
        quotedName + ",40.9879,29.0281",
        "Çankaya,39.9208,32.8541",
        "\"Şişli, Mecidiyeköy\", 41.0602 ,28.9877",
        "Açık deniz,0.0,-30.0",
    ].joined(separator: "\n") + "\n"

    @Test func csvWithHeaderKeepsEveryColumnAndAppendsTheAnswer() throws {
        let scratch = try BatchScratch()
        let input = try scratch.write("places.csv", Self.namedCSV)
        let inputLines = outputLines(Self.namedCSV)

        let library = try scratch.runLibrary(input, BatchOptions(workers: 2))
        #expect(library.errors.isEmpty)
        #expect(library.summary.rows == 4 && library.summary.failed == 0)
        let cli = try BatchCLI.resolve(["--input", input])
        #expect(cli.status == 0, "stderr: \(cli.stderr)")
        #expect(cli.stderr.isEmpty)
        #expect(cli.stdout == library.output, "the CLI and the library disagree")

        let lines = outputLines(library.output)
        try #require(lines.count == 5, "output:\n\(library.output)")
        #expect(lines[0] == "name,lat,lon," + Self.resultHeader)
        #expect(lines[1] == Self.quotedName + ",40.9879,29.0281," + Self.kadikoy)
        for (input, output) in zip(inputLines.dropFirst(), lines.dropFirst()) {
            #expect(output.hasPrefix(input + ","), "input columns not kept verbatim: \(output)")
            let inFields = csvFields(input), outFields = csvFields(output)
            #expect(outFields.count == inFields.count + 7)
            let answer = try resolver.resolve(latitude: try #require(Double(inFields[1].trimmingCharacters(in: .whitespaces))),
                                              longitude: try #require(Double(inFields[2].trimmingCharacters(in: .whitespaces))))
            #expect(Array(outFields.dropFirst(3)) == resultColumns(answer), "\(output)")
        }
        #expect(csvFields(lines[1])[0] == "Kadıköy, rıhtım \"eski\"")
        #expect(csvFields(lines[2])[8] == "Çankaya")
        #expect(csvFields(lines[3])[8] == "Şişli")
        #expect(Array(csvFields(lines[4]).dropFirst(3)) == ["", "", "", "", "", "", "false"], "open sea has no unit")
    }

    @Test func csvLanguageOption() throws {
        let scratch = try BatchScratch()
        let input = try scratch.write("places.csv", Self.namedCSV)
        let english = try BatchCLI.resolve(["--input", input, "--lang", "en"])
        #expect(english.status == 0, "stderr: \(english.stderr)")
        let lines = outputLines(english.stdout)
        try #require(lines.count == 5)
        let kadikoy = csvFields(lines[1])
        #expect(kadikoy[3] == "TR" && kadikoy[5] == "TR-34" && kadikoy[6] == "Istanbul" && kadikoy[8] == "Kadıköy")
        let answer = try resolver.resolve(latitude: 40.9879, longitude: 29.0281)
        #expect(Array(kadikoy.dropFirst(3)) == resultColumns(answer, language: .en))
        #expect(english.stdout == (try scratch.runLibrary(input, BatchOptions(language: .en))).output)

        let turkish = try BatchCLI.resolve(["--input", input, "--lang", "tr"])
        #expect(turkish.status == 0, "stderr: \(turkish.stderr)")
        #expect(csvFields(try #require(outputLines(turkish.stdout).dropFirst().first))[6] == "İstanbul")
    }

    // MARK: 2. CSV without a header; columns found by name

    @Test func csvWithoutHeader() throws {
        let scratch = try BatchScratch()
        let lf = try scratch.write("plain.csv", "40.9879,29.0281\n39.9208,32.8541\n")
        let crlf = try scratch.write("plain-crlf.csv", "40.9879,29.0281\r\n39.9208,32.8541")  // CRLF, no final newline
        for input in [lf, crlf] {
            let cli = try BatchCLI.resolve(["--input", input])
            #expect(cli.status == 0, "stderr: \(cli.stderr)")
            let lines = outputLines(cli.stdout)
            try #require(lines.count == 3, "output:\n\(cli.stdout)")
            #expect(lines[0] == "lat,lon," + Self.resultHeader)
            #expect(lines[1] == "40.9879,29.0281," + Self.kadikoy)
            #expect(lines[2].hasPrefix("39.9208,32.8541,TR,Türkiye,TR-06,Ankara,"))
            #expect(csvFields(lines[2])[7] == "Çankaya")
            #expect(cli.stdout == (try scratch.runLibrary(input)).output)
        }
    }

    @Test func csvColumnsFoundByHeaderNames() throws {
        let scratch = try BatchScratch()
        let input = try scratch.write("reordered.csv", "id,longitude,latitude\n1,29.0281,40.9879\n2,32.8541,39.9208\n")
        let cli = try BatchCLI.resolve(["--input", input])
        #expect(cli.status == 0, "stderr: \(cli.stderr)")
        #expect(outputLines(cli.stdout) == [
            "id,longitude,latitude," + Self.resultHeader,
            "1,29.0281,40.9879," + Self.kadikoy,
            "2,32.8541,39.9208," + resultColumns(try resolver.resolve(latitude: 39.9208, longitude: 32.8541)).joined(separator: ","),
        ])
        #expect(cli.stdout == (try scratch.runLibrary(input)).output)

        // Other names and case, with a column between them.
        let other = try scratch.write("other.csv", "Ref, Longitude ,note,LATITUDE\nA,29.0281,\"x, y\",40.9879\n")
        let library = try scratch.runLibrary(other)
        #expect(library.errors.isEmpty)
        #expect(outputLines(library.output) == [
            "Ref, Longitude ,note,LATITUDE," + Self.resultHeader,
            "A,29.0281,\"x, y\",40.9879," + Self.kadikoy,
        ])
    }

    /// Header-less CSV with more than two columns: the header the output invents must have as
    /// many columns as the rows it heads. (Fails today: the header is always `lat,lon,…`.)
    @Test func csvWithoutHeaderButExtraColumnsGetsAMatchingHeader() throws {
        let scratch = try BatchScratch()
        let input = try scratch.write("extra.csv", "40.9879,29.0281,pier\n39.9208,32.8541,square\n")
        let cli = try BatchCLI.resolve(["--input", input])
        #expect(cli.status == 0, "stderr: \(cli.stderr)")
        let lines = outputLines(cli.stdout)
        try #require(lines.count == 3, "output:\n\(cli.stdout)")
        #expect(lines[1] == "40.9879,29.0281,pier," + Self.kadikoy)
        #expect(lines[0].hasPrefix("lat,lon,") && lines[0].hasSuffix("," + Self.resultHeader))
        #expect(csvFields(lines[0]).count == csvFields(lines[1]).count,
                "header has \(csvFields(lines[0]).count) columns, rows have \(csvFields(lines[1]).count): \(lines[0])")
    }

    /// A UTF-8 byte order mark (Excel's "CSV UTF-8") must not hide the `lat` header or the
    /// first number. (Fails today: `\u{FEFF}lat` is not recognised, the file is refused.)
    @Test func csvWithByteOrderMark() throws {
        let scratch = try BatchScratch()
        for (name, text, firstRow) in [("bom-header.csv", "\u{FEFF}lat,lon\n40.9879,29.0281\n", 2),
                                       ("bom-plain.csv", "\u{FEFF}40.9879,29.0281\n", 1)] {
            let input = try scratch.write(name, text)
            let cli = try BatchCLI.resolve(["--input", input])
            #expect(cli.status == 0, "\(name): stderr: \(cli.stderr)")
            let lines = outputLines(cli.stdout)
            #expect(lines.count == 2, "\(name): output:\n\(cli.stdout)")
            #expect(lines.last == "40.9879,29.0281," + Self.kadikoy, "\(name) row \(firstRow)")
        }
    }

    // MARK: 3. Bad rows

    static let badCSV = [
        "",                             // 1 skipped
        "name,lat,lon",                 // 2 header
        "kadikoy,40.9879,29.0281",      // 3
        "letters,abc,29.0",             // 4 bad: not a number
        "nan,NaN,29.0",                 // 5 bad: NaN
        "",                             // 6 skipped
        "   \t  ",                      // 7 skipped
        "north,91,29.0",                // 8 bad: latitude 91
        "west,40.0,-181",               // 9 bad: longitude -181
        "short,40.0",                   // 10 bad: 2 columns
        "long,40.0,29.0,extra",         // 11 bad: 4 columns
        "cankaya,39.9208,32.8541",      // 12
        "sea,0.0,-30.0",                // 13
        "konak,38.4237,27.1428",        // 14
        "",                             // 15 skipped
    ].joined(separator: "\n") + "\n"
    static let badRows = [4, 5, 8, 9, 10, 11]
    static let goodCSV = "name,lat,lon\nkadikoy,40.9879,29.0281\ncankaya,39.9208,32.8541\nsea,0.0,-30.0\nkonak,38.4237,27.1428\n"

    @Test func badRowsAreReportedAndTheRestAnswered() throws {
        let scratch = try BatchScratch()
        let bad = try scratch.write("bad rows.csv", Self.badCSV)
        let good = try scratch.write("good.csv", Self.goodCSV)

        // Library: one .rowError per bad row, with the file and the line number, in order.
        let library = try scratch.runLibrary(bad, BatchOptions(workers: 2))
        #expect(library.errors.map(\.row) == Self.badRows)
        #expect(library.errors.allSatisfy { $0.file == bad })
        #expect(library.errors.allSatisfy { $0.description.hasPrefix("\(bad): row \($0.row): ") })
        #expect(library.summary.rows == 10 && library.summary.failed == 6)
        let messages = Dictionary(uniqueKeysWithValues: library.errors.map { ($0.row, $0.message) })
        #expect(messages[4]?.contains("abc") == true, "\(messages)")
        #expect(messages[5]?.lowercased().contains("nan") == true, "\(messages)")
        #expect(messages[8]?.contains("latitude") == true, "\(messages)")
        #expect(messages[9]?.contains("longitude") == true, "\(messages)")
        #expect(messages[10]?.contains("column") == true && messages[11]?.contains("column") == true, "\(messages)")
        let clean = try scratch.runLibrary(good)
        #expect(clean.errors.isEmpty)
        #expect(library.output == clean.output, "good rows must come out as in a clean run")
        #expect(outputLines(clean.output).count == 5)
        #expect(outputLines(clean.output)[1] == "kadikoy,40.9879,29.0281," + Self.kadikoy)
        let last = try #require(library.progress.last)
        #expect(last.rows == 10 && last.fraction == 1)

        // CLI: the same on stderr, exit status 2, a summary line, the same stdout as a clean run.
        let cli = try BatchCLI.resolve(["--input", bad])
        #expect(cli.status == 2)
        let cleanCLI = try BatchCLI.resolve(["--input", good])
        #expect(cleanCLI.status == 0 && cleanCLI.stderr.isEmpty, "stderr: \(cleanCLI.stderr)")
        #expect(cli.stdout == cleanCLI.stdout)
        #expect(cli.stdout == library.output)
        let errorLines = outputLines(cli.stderr)
        let rowLines = errorLines.filter { $0.hasPrefix("\(bad): row ") }
        #expect(rowLines.count == 6, "stderr:\n\(cli.stderr)")
        for (line, row) in zip(rowLines, Self.badRows) {
            #expect(line.hasPrefix("\(bad): row \(row): "), "\(line)")
        }
        #expect(errorLines.contains { $0.contains("6 of 10 rows failed") }, "stderr:\n\(cli.stderr)")
    }

    @Test func badHeaderIsAFileError() throws {
        let scratch = try BatchScratch()
        let input = try scratch.write("words.csv", "name,city\nx,y\n")
        #expect(throws: BatchError.self) { try scratch.runLibrary(input) }
        let cli = try BatchCLI.resolve(["--input", input])
        #expect(cli.status != 0 && cli.status != 2)
        #expect(cli.stderr.contains(input), "stderr: \(cli.stderr)")
        #expect(cli.stdout.isEmpty)
    }

    // MARK: 4. NDJSON

    static let ndjson = [
        #"{"lat":40.9879,"lon":29.0281}"#,                                      // 1
        #"{"latitude":39.9208,"longitude":32.8541,"name":"Çankaya"}"#,          // 2
        #"{"lat":41.06,"lon":"#,                                                // 3 broken
        "",                                                                     // 4 skipped
        #"{"lat":0,"lon":-30}"#,                                                // 5 open sea
        #"{"lon":29.0070,"lat":41.0430}"#,                                      // 6, no final newline
    ].joined(separator: "\n")

    @Test func ndjsonInAndOut() throws {
        let scratch = try BatchScratch()
        let input = try scratch.write("points.ndjson", Self.ndjson)
        let library = try scratch.runLibrary(input, BatchOptions(workers: 2))
        #expect(library.errors.map(\.row) == [3])
        #expect(library.errors.first?.file == input)
        #expect(library.summary.rows == 5 && library.summary.failed == 1)

        let cli = try BatchCLI.resolve(["--input", input])
        #expect(cli.status == 2)
        #expect(cli.stdout == library.output)
        #expect(outputLines(cli.stderr).contains { $0.hasPrefix("\(input): row 3: ") }, "stderr: \(cli.stderr)")
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
        let cli = try BatchCLI.resolve(["--input", input, "--format", "csv"])
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
        let ndjson = try scratch.write("bools.ndjson", """
            {"lat":40.9879,"lon":29.0281}
            {"lat":true,"lon":29.0281}
            {"lat":40.9879,"lon":false}

            """)
        let fromNDJSON = try scratch.runLibrary(ndjson)
        #expect(fromNDJSON.errors.map(\.row) == [2, 3], "output:\n\(fromNDJSON.output)")
        #expect(outputLines(fromNDJSON.output) == [Self.kadikoyJSON])

        let geojson = try scratch.write("bools.geojson", """
            {"type":"FeatureCollection","features":[
            {"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[29.0281,40.9879]}},
            {"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[true,true]}}
            ]}
            """)
        let fromGeoJSON = try scratch.runLibrary(geojson)
        #expect(fromGeoJSON.errors.map(\.row) == [2], "output:\n\(fromGeoJSON.output)")
    }

    // MARK: 5. GeoJSON

    static let geojson = """
        {
          "type": "FeatureCollection",
          "features": [
            {"type": "Feature", "properties": {"name": "Kadıköy iskelesi", "id": 7, "tags": ["a", "b"]},
             "geometry": {"type": "Point", "coordinates": [29.0281, 40.9879]}},
            {"type": "Feature", "properties": null, "geometry": {"type": "Point", "coordinates": [32.8541, 39.9208, 900]}},
            {"type": "Feature", "properties": {"name": "a road"},
             "geometry": {"type": "LineString", "coordinates": [[29.0, 41.0], [30.0, 41.0]]}},
            {"type": "Feature", "properties": {"name": "açık deniz", "depth": 4200.5},
             "geometry": {"type": "Point", "coordinates": [-30, 0]}}
          ]
        }

        """

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

        let cli = try BatchCLI.resolve(["--input", input])
        #expect(cli.status == 2)
        #expect(outputLines(cli.stderr).contains { $0.hasPrefix("\(input): row 3: ") }, "stderr: \(cli.stderr)")
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
        let oneLine = try scratch.write("one.geojson", """
            {"type":"FeatureCollection","features":[{"type":"Feature","properties":{"k":"v"},\
            "geometry":{"type":"Point","coordinates":[29.0281,40.9879]}}]}
            """)
        let compact = try BatchCLI.resolve(["--input", oneLine, "--format", "ndjson"])
        #expect(compact.status == 0, "stderr: \(compact.stderr)")
        #expect(compact.stdout == Self.kadikoyJSON + "\n")
    }

    @Test func csvToGeoJSON() throws {
        let scratch = try BatchScratch()
        let input = try scratch.write("places.csv", Self.namedCSV)
        let cli = try BatchCLI.resolve(["--input", input, "--format", "geojson"])
        #expect(cli.status == 0, "stderr: \(cli.stderr)")
        let out = try features(cli.stdout)
        #expect(out.count == 4)
        let roqua = try #require((out.first?["properties"] as? [String: Any])?["roqua"] as? [String: Any])
        #expect((roqua["district"] as? [String: Any])?["name"] as? String == "Kadıköy")
    }

    @Test func brokenGeoJSONIsAFileError() throws {
        let scratch = try BatchScratch()
        let broken = try scratch.write("broken.geojson", "{\n  \"type\": \"FeatureCollection\",\n  \"features\": [\n    {\"type\": \"Feature\",")
        let noFeatures = try scratch.write("nofeatures.geojson", "{\n  \"type\": \"FeatureCollection\"\n}\n")
        for input in [broken, noFeatures] {
            #expect(throws: BatchError.self) { try scratch.runLibrary(input) }
            do {
                _ = try scratch.runLibrary(input)
            } catch {
                #expect(String(describing: error).contains(input), "\(error)")
            }
            let cli = try BatchCLI.resolve(["--input", input])
            #expect(cli.status != 0 && cli.status != 2, "status \(cli.status)")
            #expect(cli.stderr.contains(input), "stderr: \(cli.stderr)")
            #expect(cli.stderr.contains("GeoJSON"), "stderr: \(cli.stderr)")
            #expect(cli.stdout.isEmpty)
        }
    }

    // MARK: 6. Standard input

    @Test func readsStandardInput() throws {
        let scratch = try BatchScratch()
        for (name, text) in [("bad rows.csv", Self.badCSV), ("points.ndjson", Self.ndjson), ("points.geojson", Self.geojson)] {
            let file = try scratch.write(name, text)
            let fromFile = try BatchCLI.resolve(["--input", file])
            let fromStdin = try BatchCLI.resolve(["--input", "-"], stdin: file)
            #expect(fromStdin.status == fromFile.status, "\(name): stderr: \(fromStdin.stderr)")
            #expect(fromStdin.stdout == fromFile.stdout, "\(name)")
            #expect(!fromStdin.stdout.isEmpty)
            // Errors name standard input, with the same rows as from the file.
            #expect(fromStdin.stderr == fromFile.stderr.replacingOccurrences(of: file + ": ", with: "stdin: "),
                    "\(name): stderr:\n\(fromStdin.stderr)")
        }
        let stdinRows = outputLines(try BatchCLI.resolve(["--input", "-"], stdin: scratch.path("bad rows.csv")).stderr)
        #expect(stdinRows.filter { $0.hasPrefix("stdin: row ") }.count == Self.badRows.count)
    }

    // MARK: 7. Missing input, --output

    @Test func missingInputFile() throws {
        let scratch = try BatchScratch()
        let missing = scratch.path("no such points.csv")
        let output = scratch.path("out.csv")
        #expect(throws: BatchError.self) { try scratch.runLibrary(missing) }
        let cli = try BatchCLI.resolve(["--input", missing, "--output", output])
        #expect(cli.status != 0 && cli.status != 2, "status \(cli.status)")
        #expect(cli.stderr.contains(missing), "stderr: \(cli.stderr)")
        #expect(cli.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: output), "no output for an input that cannot be read")
    }

    @Test func outputFile() throws {
        let scratch = try BatchScratch()
        let input = try scratch.write("places.csv", Self.namedCSV)
        let toStdout = try BatchCLI.resolve(["--input", input])
        for (format, name) in [(nil, "out.csv"), ("ndjson", "out.ndjson"), ("geojson", "out.geojson")] {
            let output = scratch.path(name)
            let cli = try BatchCLI.resolve(["--input", input, "--output", output] + (format.map { ["--format", $0] } ?? []))
            #expect(cli.status == 0, "stderr: \(cli.stderr)")
            #expect(cli.stdout.isEmpty, "nothing on stdout with --output")
            #expect(cli.stderr.isEmpty)
            let written = try String(contentsOfFile: output, encoding: .utf8)
            if format == nil { #expect(written == toStdout.stdout) }
            #expect(written == (try BatchCLI.resolve(["--input", input] + (format.map { ["--format", $0] } ?? []))).stdout)
        }
        // An --output that cannot be created is an error naming it.
        let unwritable = scratch.path("no such directory/out.csv")
        let cli = try BatchCLI.resolve(["--input", input, "--output", unwritable])
        #expect(cli.status != 0 && cli.status != 2)
        #expect(cli.stderr.contains(unwritable), "stderr: \(cli.stderr)")
    }

    // MARK: 8. A larger run

    /// 45,000 points on a grid over Türkiye and its neighbours, then 5,000 in the seas around it.
    static func largeCSV() -> (text: String, rows: Int) {
        var lines = ["id,lat,lon"]
        lines.reserveCapacity(50_001)
        for i in 0..<180 {
            for j in 0..<250 {
                let lat = 35.8 + Double(i) * 0.0365, lon = 25.6 + Double(j) * 0.0785
                lines.append("\(lines.count),\(String(format: "%.5f", lat)),\(String(format: "%.5f", lon))")
            }
        }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func random() -> Double {  // deterministic LCG in [0, 1)
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        let seas: [(lat: ClosedRange<Double>, lon: ClosedRange<Double>)] = [
            (42.6...43.4, 31.0...37.0),  // Black Sea
            (33.8...34.9, 28.5...32.0),  // Mediterranean, south of Antalya
            (-20...20, -35 ... -20),     // Atlantic
        ]
        while lines.count < 50_001 {
            let sea = seas[lines.count % seas.count]
            let lat = sea.lat.lowerBound + random() * (sea.lat.upperBound - sea.lat.lowerBound)
            let lon = sea.lon.lowerBound + random() * (sea.lon.upperBound - sea.lon.lowerBound)
            lines.append("\(lines.count),\(String(format: "%.5f", lat)),\(String(format: "%.5f", lon))")
        }
        return (lines.joined(separator: "\n") + "\n", lines.count - 1)
    }

    @Test func fiftyThousandRows() throws {
        let scratch = try BatchScratch()
        let (text, rows) = Self.largeCSV()
        #expect(rows == 50_000)
        let input = try scratch.write("large.csv", text)
        let output = scratch.path("large-out.csv")
        let cli = try BatchCLI.resolve(["--input", input, "--output", output])
        #expect(cli.status == 0, "stderr: \(cli.stderr.prefix(2000))")
        #expect(cli.stderr.isEmpty)
        let inLines = outputLines(text)
        let outLines = outputLines(try String(contentsOfFile: output, encoding: .utf8))
        try #require(outLines.count == inLines.count, "rows in \(inLines.count - 1), rows out \(outLines.count - 1)")
        #expect(outLines[0] == "id,lat,lon," + Self.resultHeader)
        let misordered = zip(inLines, outLines).dropFirst().first { !$1.hasPrefix($0 + ",") }
        #expect(misordered == nil, "first row out of order or altered: \(String(describing: misordered))")

        // The CLI's answers equal the library resolver's, for a spread sample of 200 rows (a
        // stride prime to the grid's 250 columns, so the sample moves across it).
        var turkish = 0, empty = 0
        for row in (0..<200).map({ 1 + $0 * 249 }) {
            let fields = csvFields(outLines[row])
            try #require(fields.count == 10, "row \(row): \(outLines[row])")
            let answer = try resolver.resolve(latitude: try #require(Double(fields[1])), longitude: try #require(Double(fields[2])))
            #expect(Array(fields.dropFirst(3)) == resultColumns(answer), "row \(row): \(outLines[row])")
            if fields[3] == "TR" { turkish += 1 }
            if fields[3].isEmpty { empty += 1 }
        }
        #expect(turkish > 50, "the grid should be mostly in Türkiye (\(turkish) of 200)")
        #expect(empty >= 10, "the sea points should find no country (\(empty) of 200)")
        let allTurkish = outLines.dropFirst().filter { $0.contains(",TR,Türkiye,TR-") }.count
        #expect(allTurkish > 20_000, "\(allTurkish) rows in Türkiye")

        // The library, on several threads and over several chunks, writes the same bytes.
        let library = try scratch.runLibrary(input, BatchOptions(workers: 3))
        #expect(library.errors.isEmpty)
        #expect(library.summary.rows == 50_000 && library.summary.failed == 0)
        #expect(library.progress.count >= 3, "50,000 rows come in several chunks")
        #expect(library.progress.last?.rows == 50_000)
        let libraryLines = outputLines(library.output)
        #expect(libraryLines.count == outLines.count)
        let firstDifference = zip(libraryLines, outLines).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(firstDifference == nil, "library and CLI differ at line \(firstDifference?.offset ?? -1)")
    }
}
