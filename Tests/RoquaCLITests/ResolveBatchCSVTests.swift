import Foundation
import RoquaBatch
import RoquaBoundaries
import RoquaTestSupport
import Testing

/// `roqua resolve --input` and `BatchRunner` on CSV: with and without a header, columns found by
/// name, a byte order mark, and bad rows reported by file and line while the rest are answered.
@Suite struct ResolveBatchCSVTests: BatchFixtures {
    let resolver: Resolver

    init() throws {
        resolver = try Resolver(index: Bundled.index())
    }

    // MARK: CSV with a header

    @Test func csvWithHeaderKeepsEveryColumnAndAppendsTheAnswer() throws {
        let scratch = try BatchScratch()
        let input = try scratch.write("places.csv", Self.namedCSV)
        let inputLines = outputLines(Self.namedCSV)

        let library = try scratch.runLibrary(input, BatchOptions(workers: 2))
        #expect(library.errors.isEmpty)
        #expect(library.summary.rows == 4 && library.summary.failed == 0)
        let cli = try BatchCLI.resolvePlain(["--input", input])
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
            let answer = try resolver.resolve(
                latitude: try #require(Double(inFields[1].trimmingCharacters(in: .whitespaces))),
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
        let english = try BatchCLI.resolvePlain(["--input", input, "--lang", "en"])
        #expect(english.status == 0, "stderr: \(english.stderr)")
        let lines = outputLines(english.stdout)
        try #require(lines.count == 5)
        let kadikoy = csvFields(lines[1])
        #expect(kadikoy[3] == "TR" && kadikoy[5] == "TR-34" && kadikoy[6] == "Istanbul" && kadikoy[8] == "Kadıköy")
        let answer = try resolver.resolve(latitude: 40.9879, longitude: 29.0281)
        #expect(Array(kadikoy.dropFirst(3)) == resultColumns(answer, language: .en))
        #expect(english.stdout == (try scratch.runLibrary(input, BatchOptions(language: .en))).output)

        let turkish = try BatchCLI.resolvePlain(["--input", input, "--lang", "tr"])
        #expect(turkish.status == 0, "stderr: \(turkish.stderr)")
        #expect(csvFields(try #require(outputLines(turkish.stdout).dropFirst().first))[6] == "İstanbul")
    }

    // MARK: CSV without a header; columns found by name

    @Test func csvWithoutHeader() throws {
        let scratch = try BatchScratch()
        let lf = try scratch.write("plain.csv", "40.9879,29.0281\n39.9208,32.8541\n")
        let crlf = try scratch.write("plain-crlf.csv", "40.9879,29.0281\r\n39.9208,32.8541")  // CRLF, no final newline
        for input in [lf, crlf] {
            let cli = try BatchCLI.resolvePlain(["--input", input])
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
        let cli = try BatchCLI.resolvePlain(["--input", input])
        #expect(cli.status == 0, "stderr: \(cli.stderr)")
        #expect(
            outputLines(cli.stdout) == [
                "id,longitude,latitude," + Self.resultHeader,
                "1,29.0281,40.9879," + Self.kadikoy,
                "2,32.8541,39.9208," + resultColumns(try resolver.resolve(latitude: 39.9208, longitude: 32.8541)).joined(separator: ","),
            ])
        #expect(cli.stdout == (try scratch.runLibrary(input)).output)

        // Other names and case, with a column between them.
        let other = try scratch.write("other.csv", "Ref, Longitude ,note,LATITUDE\nA,29.0281,\"x, y\",40.9879\n")
        let library = try scratch.runLibrary(other)
        #expect(library.errors.isEmpty)
        #expect(
            outputLines(library.output) == [
                "Ref, Longitude ,note,LATITUDE," + Self.resultHeader,
                "A,29.0281,\"x, y\",40.9879," + Self.kadikoy,
            ])
    }

    /// Header-less CSV with more than two columns: the header the output invents must have as
    /// many columns as the rows it heads. (Fails today: the header is always `lat,lon,…`.)
    @Test func csvWithoutHeaderButExtraColumnsGetsAMatchingHeader() throws {
        let scratch = try BatchScratch()
        let input = try scratch.write("extra.csv", "40.9879,29.0281,pier\n39.9208,32.8541,square\n")
        let cli = try BatchCLI.resolvePlain(["--input", input])
        #expect(cli.status == 0, "stderr: \(cli.stderr)")
        let lines = outputLines(cli.stdout)
        try #require(lines.count == 3, "output:\n\(cli.stdout)")
        #expect(lines[1] == "40.9879,29.0281,pier," + Self.kadikoy)
        #expect(lines[0].hasPrefix("lat,lon,") && lines[0].hasSuffix("," + Self.resultHeader))
        #expect(
            csvFields(lines[0]).count == csvFields(lines[1]).count,
            "header has \(csvFields(lines[0]).count) columns, rows have \(csvFields(lines[1]).count): \(lines[0])")
    }

    /// A UTF-8 byte order mark (Excel's "CSV UTF-8") must not hide the `lat` header or the
    /// first number. (Fails today: `\u{FEFF}lat` is not recognised, the file is refused.)
    @Test func csvWithByteOrderMark() throws {
        let scratch = try BatchScratch()
        for (name, text, firstRow) in [
            ("bom-header.csv", "\u{FEFF}lat,lon\n40.9879,29.0281\n", 2),
            ("bom-plain.csv", "\u{FEFF}40.9879,29.0281\n", 1),
        ] {
            let input = try scratch.write(name, text)
            let cli = try BatchCLI.resolvePlain(["--input", input])
            #expect(cli.status == 0, "\(name): stderr: \(cli.stderr)")
            let lines = outputLines(cli.stdout)
            #expect(lines.count == 2, "\(name): output:\n\(cli.stdout)")
            #expect(lines.last == "40.9879,29.0281," + Self.kadikoy, "\(name) row \(firstRow)")
        }
    }

    // MARK: Bad rows

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
        let cli = try BatchCLI.resolvePlain(["--input", bad])
        #expect(cli.status == 2)
        let cleanCLI = try BatchCLI.resolvePlain(["--input", good])
        #expect(cleanCLI.status == 0 && cleanCLI.stderr.isEmpty, "stderr: \(cleanCLI.stderr)")
        #expect(cli.stdout == cleanCLI.stdout)
        #expect(cli.stdout == library.output)
        let errorLines = outputLines(cli.stderr)
        let rowLines = errorLines.filter { $0.hasPrefix("error: \(bad): row ") }
        #expect(rowLines.count == 6, "stderr:\n\(cli.stderr)")
        for (line, row) in zip(rowLines, Self.badRows) {
            #expect(line.hasPrefix("error: \(bad): row \(row): "), "\(line)")
        }
        #expect(errorLines.contains { $0.contains("6 of 10 rows failed") }, "stderr:\n\(cli.stderr)")
    }

    @Test func badHeaderIsAFileError() throws {
        let scratch = try BatchScratch()
        let input = try scratch.write("words.csv", "name,city\nx,y\n")
        #expect(throws: BatchError.self) { try scratch.runLibrary(input) }
        let cli = try BatchCLI.resolvePlain(["--input", input])
        #expect(cli.status != 0 && cli.status != 2)
        #expect(cli.stderr.contains(input), "stderr: \(cli.stderr)")
        #expect(cli.stdout.isEmpty)
    }
}
