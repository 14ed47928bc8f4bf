import Foundation
import RoquaBatch
import RoquaBoundaries
import RoquaTestSupport
import Testing

/// Where `roqua resolve --input` reads and writes: standard input, a missing input file,
/// `--output` files, and a 50,000-row run checked against the library and the resolver.
@Suite struct ResolveBatchIOTests: BatchFixtures {
    let resolver: Resolver

    init() throws {
        resolver = try Resolver(index: Bundled.index())
    }

    // MARK: Standard input

    @Test func readsStandardInput() throws {
        let scratch = try BatchScratch()
        for (name, text) in [("bad rows.csv", Self.badCSV), ("points.ndjson", Self.ndjson), ("points.geojson", Self.geojson)] {
            let file = try scratch.write(name, text)
            let fromFile = try BatchCLI.resolvePlain(["--input", file])
            let fromStdin = try BatchCLI.resolvePlain(["--input", "-"], stdin: file)
            #expect(fromStdin.status == fromFile.status, "\(name): stderr: \(fromStdin.stderr)")
            #expect(fromStdin.stdout == fromFile.stdout, "\(name)")
            #expect(!fromStdin.stdout.isEmpty)
            // Errors name standard input, with the same rows as from the file.
            #expect(
                fromStdin.stderr == fromFile.stderr.replacingOccurrences(of: file + ": ", with: "stdin: "),
                "\(name): stderr:\n\(fromStdin.stderr)")
        }
        let stdinRows = outputLines(try BatchCLI.resolvePlain(["--input", "-"], stdin: scratch.path("bad rows.csv")).stderr)
        #expect(stdinRows.filter { $0.hasPrefix("error: stdin: row ") }.count == Self.badRows.count)
    }

    // MARK: Missing input, --output

    @Test func missingInputFile() throws {
        let scratch = try BatchScratch()
        let missing = scratch.path("no such points.csv")
        let output = scratch.path("out.csv")
        #expect(throws: BatchError.self) { try scratch.runLibrary(missing) }
        let cli = try BatchCLI.resolvePlain(["--input", missing, "--output", output])
        #expect(cli.status != 0 && cli.status != 2, "status \(cli.status)")
        #expect(cli.stderr.contains(missing), "stderr: \(cli.stderr)")
        #expect(cli.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: output), "no output for an input that cannot be read")
    }

    @Test func outputFile() throws {
        let scratch = try BatchScratch()
        let input = try scratch.write("places.csv", Self.namedCSV)
        let toStdout = try BatchCLI.resolvePlain(["--input", input])
        for (format, name) in [(nil, "out.csv"), ("ndjson", "out.ndjson"), ("geojson", "out.geojson")] {
            let output = scratch.path(name)
            let cli = try BatchCLI.resolvePlain(["--input", input, "--output", output] + (format.map { ["--format", $0] } ?? []))
            #expect(cli.status == 0, "stderr: \(cli.stderr)")
            #expect(cli.stdout.isEmpty, "nothing on stdout with --output")
            #expect(cli.stderr.isEmpty)
            let written = try String(contentsOfFile: output, encoding: .utf8)
            if format == nil { #expect(written == toStdout.stdout) }
            #expect(written == (try BatchCLI.resolvePlain(["--input", input] + (format.map { ["--format", $0] } ?? []))).stdout)
        }
        // An --output that cannot be created is an error naming it.
        let unwritable = scratch.path("no such directory/out.csv")
        let cli = try BatchCLI.resolvePlain(["--input", input, "--output", unwritable])
        #expect(cli.status != 0 && cli.status != 2)
        #expect(cli.stderr.contains(unwritable), "stderr: \(cli.stderr)")
    }

    // MARK: A larger run

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
            (-20...20, -35 ... -20),  // Atlantic
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
        let cli = try BatchCLI.resolvePlain(["--input", input, "--output", output])
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
