import Foundation
import RoquaBatch
import RoquaBoundaries
import RoquaTestSupport
import Testing

/// CSV and NDJSON are handed to the workers as blocks of whole lines, split and numbered there:
/// every way a line can sit in a block (CRLF, blank, last without a newline, crossing a refill,
/// overlong, in a later chunk, from a pipe) must give the rows, numbers and output of reading
/// the file line by line. GeoJSON features go to the workers as raw bytes, parsed there.
@Suite struct ResolveBatchBlockTests {
    /// A row as the library reports it: its number and its latitude or its error.
    struct Row: Equatable, CustomStringConvertible {
        var number: Int
        var answer: String
        var description: String { "\(number): \(answer)" }
    }

    /// Every row of `path`, read with blocks of `blockBytes`.
    static func rows(_ path: String, blockBytes: Int) throws -> [Row] {
        let input = try BatchInput(path: path)
        var rows: [Row] = []
        while let chunk = try input.next(3, blockBytes: blockBytes) {
            try chunk.forEachRow { number, coordinate, _, _ in
                switch coordinate {
                case let .success(c): rows.append(Row(number: number, answer: "\(c.latitude),\(c.longitude)"))
                case let .failure(error): rows.append(Row(number: number, answer: error.message))
                }
            }
        }
        return rows
    }

    /// The rows of a small text, numbered by hand from its lines: a header on line 1, blank
    /// and whitespace lines skipped, `\r\n` and a last line without a newline.
    static let mixed = "lat,lon\r\n41.01,28.97\r\n\r\n \t\n39.92,32.85\nnorth,1\r\n\n\n38.42,27.14\r\n-33.92,18.42"
    static let mixedRows = [
        Row(number: 2, answer: "41.01,28.97"), Row(number: 5, answer: "39.92,32.85"),
        Row(number: 6, answer: "latitude \"north\" is not a number"),
        Row(number: 9, answer: "38.42,27.14"), Row(number: 10, answer: "-33.92,18.42"),
    ]

    @Test func everyBlockSizeGivesTheSameRowsAndNumbers() throws {
        let scratch = try BatchScratch()
        let csv = try scratch.write("mixed.csv", Self.mixed)
        let lf = try scratch.write("mixed-lf.csv", Self.mixed.replacingOccurrences(of: "\r", with: "") + "\n")
        let ndjsonText = "{\"lat\":41.01,\"lon\":28.97}\r\n\n{\"lat\":39.92,\"lon\":32.85}\n  \n{\"lat\":\"x\",\"lon\":1}"
        let ndjson = try scratch.write("mixed.ndjson", ndjsonText)
        let ndjsonRows = [
            Row(number: 1, answer: "41.01,28.97"), Row(number: 3, answer: "39.92,32.85"),
            Row(number: 5, answer: "latitude \"x\" is not a number"),
        ]
        // Block sizes from one byte (one line per block, read on its own) to the whole file.
        for blockBytes in [1, 2, 5, 11, 12, 13, 17, 29, 64, 512 << 10] {
            #expect(try Self.rows(csv, blockBytes: blockBytes) == Self.mixedRows, "CSV, blocks of \(blockBytes)")
            #expect(try Self.rows(lf, blockBytes: blockBytes) == Self.mixedRows, "LF CSV, blocks of \(blockBytes)")
            #expect(try Self.rows(ndjson, blockBytes: blockBytes) == ndjsonRows, "NDJSON, blocks of \(blockBytes)")
        }
    }

    @Test func headerlessFileIsNumberedFromItsFirstLine() throws {
        let scratch = try BatchScratch()
        // A blank line 1 instead of the header, then the same rows on the same lines.
        let path = try scratch.write("headerless.csv", Self.mixed.replacingOccurrences(of: "lat,lon\r\n", with: "\n"))
        for blockBytes in [1, 7, 512 << 10] {
            #expect(try Self.rows(path, blockBytes: blockBytes) == Self.mixedRows, "blocks of \(blockBytes)")
        }
    }

    // MARK: Whole runs, several chunks

    /// `count` rows `lat,lon,name` (about 30 bytes each), seeded, spread over the world.
    static func points(_ count: Int) -> [String] {
        (0..<count).map { i in
            let lat = -60 + Double(i * 7919 % 13_000) / 100, lon = -180 + Double(i * 104_729 % 36_000) / 100
            return "\(lat),\(lon),point-\(i)"
        }
    }

    /// 75,000 rows, > 2 MiB: several chunks, and lines that cross the reader's 1 MiB refills.
    static let bigCount = 75_000
    static let badLines: Set<Int> = [3, 40_000, 75_001]  // line numbers with the header on line 1

    static func bigRows() -> [String] {
        var rows = points(bigCount)
        for line in badLines { rows[line - 2] = "north,\(line),bad" }
        return rows
    }

    @Test func laterChunksNameTheirTrueLines() throws {
        let scratch = try BatchScratch()
        let rows = Self.bigRows()
        let plain = try scratch.write("plain.csv", "lat,lon,name\n" + rows.joined(separator: "\n") + "\n")
        let size = try FileManager.default.attributesOfItem(atPath: plain)[.size] as? Int
        #expect((size ?? 0) > 2 << 20, "\(size ?? 0) bytes: not several chunks")
        let base = try scratch.runLibrary(plain, BatchOptions(workers: 2))
        #expect(base.summary.rows == Self.bigCount)
        #expect(base.errors.map(\.row) == Self.badLines.sorted())
        #expect(base.errors.map(\.message) == Self.badLines.sorted().map { _ in "latitude \"north\" is not a number" })
        #expect(outputLines(base.output).count == Self.bigCount + 1 - Self.badLines.count)
        #expect(try scratch.runLibrary(plain, BatchOptions(workers: 1)).output == base.output)

        // CRLF, a blank line after every 1000th row, no final newline: same output; each error
        // names its line in this file.
        var lines = ["lat,lon,name"], moved: [Int] = []
        for (i, row) in rows.enumerated() {
            lines.append(row)
            if Self.badLines.contains(i + 2) { moved.append(lines.count) }
            if i % 1000 == 999 { lines.append(i % 2000 == 999 ? "" : " ") }
        }
        let crlf = try scratch.write("crlf.csv", lines.joined(separator: "\r\n"))
        let other = try scratch.runLibrary(crlf, BatchOptions(workers: 2))
        #expect(other.output == base.output)
        #expect(other.errors.map(\.row) == moved)

        // Without a header: lat, lon, column3; each row one line earlier.
        let headerless = try scratch.write("headerless.csv", rows.joined(separator: "\n"))
        let noHeader = try scratch.runLibrary(headerless, BatchOptions(workers: 2))
        #expect(outputLines(noHeader.output).dropFirst() == outputLines(base.output).dropFirst())
        #expect(noHeader.errors.map(\.row) == Self.badLines.sorted().map { $0 - 1 })
    }

    @Test func anOverlongRowIsAnErrorOnItsLineAndTheRestKeepTheirNumbers() throws {
        let scratch = try BatchScratch()
        let rows = Self.points(40_000)
        let long = String(repeating: "9", count: (1 << 20) + 10)
        // Line 1 header, rows on 2…20001, the long row on 20002, rows on 20003…, a bad row last.
        let text =
            (["lat,lon,name"] + rows[..<20_000] + ["1," + long + ",x"] + rows[20_000...] + ["north,1,x"])
            .joined(separator: "\n") + "\n"
        let path = try scratch.write("long.csv", text)
        let run = try scratch.runLibrary(path, BatchOptions(workers: 2))
        #expect(run.errors.map(\.row) == [20_002, 40_003])
        #expect(run.errors.first?.message == "row longer than 1 MiB")
        #expect(run.errors.last?.message == "latitude \"north\" is not a number")
        #expect(run.summary.rows == 40_002)
        let without = try scratch.write("short.csv", (["lat,lon,name"] + rows).joined(separator: "\n") + "\n")
        #expect(run.output == (try scratch.runLibrary(without, BatchOptions(workers: 2))).output)
    }

    /// `count` features of a FeatureCollection, one per line (the first on line 3), each with a
    /// name and a nested array; the features numbered in `notPoints` have a LineString instead.
    static func featureCollection(_ count: Int, notPoints: Set<Int> = [], broken: Int? = nil) -> String {
        let rows = points(count).enumerated().map { i, row -> String in
            let parts = row.split(separator: ",")
            let geometry =
                notPoints.contains(i + 1)
                ? #"{"type":"LineString","coordinates":[[0,0],[1,1]]}"#
                : #"{"type":"Point","coordinates":[\#(parts[1]),\#(i + 1 == broken ? "4x" : String(parts[0]))]}"#
            return #"{"type":"Feature","properties":{"name":"\#(parts[2]) \"q\" ]}","tags":[[1],{"a":"}"}]},"geometry":\#(geometry)}"#
        }
        return "{\"type\": \"FeatureCollection\",\n\"features\": [\n" + rows.joined(separator: ",\n") + "\n]}\n"
    }

    @Test func geoJSONFeaturesKeepTheirNumbersInEveryChunkAndWorkerCount() throws {
        let scratch = try BatchScratch()
        let notPoints: Set<Int> = [1, 30_000, 60_000]
        let path = try scratch.write("big.geojson", Self.featureCollection(60_000, notPoints: notPoints))
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        #expect((size ?? 0) > 4 << 20, "\(size ?? 0) bytes: not several chunks and refills")
        let expected = Self.points(60_000).enumerated().map { i, row in
            let parts = row.split(separator: ",")
            return notPoints.contains(i + 1)
                ? Row(number: i + 1, answer: "feature is not a Point with numeric coordinates")
                : Row(number: i + 1, answer: "\(Double(parts[0])!),\(Double(parts[1])!)")
        }
        for blockBytes in [1, 1000, 64 << 10, 512 << 10] {
            #expect(try Self.rows(path, blockBytes: blockBytes) == expected, "blocks of \(blockBytes)")
        }
        let two = try scratch.runLibrary(path, BatchOptions(workers: 2))
        #expect(two.errors.map(\.row) == notPoints.sorted())
        #expect(two.summary.rows == 60_000)
        #expect(try scratch.runLibrary(path, BatchOptions(workers: 1)).output == two.output)
        // The same points as NDJSON give the same answers, feature for line.
        let ndjson = try scratch.write(
            "big.ndjson",
            Self.points(60_000).map { row in
                let parts = row.split(separator: ",")
                return #"{"lat":\#(parts[0]),"lon":\#(parts[1])}"#
            }.joined(separator: "\n"))
        let lines = try scratch.runLibrary(ndjson, BatchOptions(output: .geojson, workers: 2))
        func answers(_ text: String) -> [String] {
            // From the answer on, without the comma that follows every feature but the last.
            outputLines(text).compactMap { line in
                line.range(of: #""roqua":"#).map { range in
                    let answer = line[range.upperBound...]
                    return String(answer.hasSuffix(",") ? answer.dropLast() : answer)
                }
            }
        }
        let fromGeoJSON = answers(two.output), fromNDJSON = answers(lines.output)
        #expect(fromGeoJSON.count == 60_000 - notPoints.count)
        #expect(fromGeoJSON == fromNDJSON.enumerated().filter { !notPoints.contains($0.offset + 1) }.map(\.element))
    }

    @Test func brokenJSONInALaterFeatureEndsTheBatchNamingItsLineAndLeavesTheOutput() throws {
        let scratch = try BatchScratch()
        let path = try scratch.write("broken.geojson", Self.featureCollection(60_000, broken: 50_000))
        for workers in [1, 2] {
            #expect { try scratch.runLibrary(path, BatchOptions(workers: workers)) } throws: { error in
                error is BatchError && "\(error)".contains(path) && "\(error)".contains("line 50002: invalid JSON value \"4x\"")
            }
            let output = try scratch.write("kept-\(workers).csv", "lat,lon\nthe previous output\n")
            let cli = try BatchCLI.resolve(["--input", path, "--output", output, "--workers", "\(workers)"])
            #expect(cli.status != 0 && cli.status != 2, "status \(cli.status)")
            #expect(cli.stderr.contains("line 50002: invalid JSON value \"4x\"") && cli.stderr.contains("GeoJSON"), "stderr: \(cli.stderr)")
            #expect(try String(contentsOfFile: output, encoding: .utf8) == "lat,lon\nthe previous output\n")
        }
    }

    @Test func aPipeGivesWhatTheFileGives() throws {
        let scratch = try BatchScratch()
        let file = try scratch.write("big.csv", "lat,lon,name\n" + Self.bigRows().joined(separator: "\n") + "\n")
        let fromFile = try BatchCLI.resolve(["--input", file, "--workers", "2"])
        #expect(fromFile.status == 2, "some rows failed; stderr: \(fromFile.stderr)")
        let output = scratch.path("from-pipe.csv")
        // `cat … |` makes standard input a pipe, which delivers the file in small reads.
        let piped = try CommandRunner.run(
            "/bin/sh",
            [
                "-c", "cat \"$1\" | \"$2\" resolve --boundaries \"$3\" --input - --output \"$4\" --workers 2",
                "sh", file, BatchCLI.executable, try Bundled.path(), output,
            ])
        #expect(piped.status == 2, "some rows failed; stderr: \(piped.stderr)")
        #expect(try String(contentsOfFile: output, encoding: .utf8) == fromFile.stdout)
        // Row errors on stderr, in file order, naming standard input.
        let errors = outputLines(piped.stderr).filter { $0.hasPrefix("error: stdin: row ") }
        #expect(errors == Self.badLines.sorted().map { "error: stdin: row \($0): latitude \"north\" is not a number" })
        #expect(outputLines(fromFile.stderr).filter { $0.hasPrefix("error: " + file + ": row ") }.count == Self.badLines.count)
    }
}
