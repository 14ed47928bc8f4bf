import Foundation
import RoquaIO

/// Streams a file of coordinates through the resolver: chunks are read, resolved on every
/// core, and written in input order, so memory stays constant however long the input.
package enum BatchRunner {
    static let chunkSize = 16_384

    package static func run(index: ResolverIndex, input: String, output: String, options: BatchOptions,
                           events: (BatchEvent) -> Void) throws -> BatchSummary {
        let source = try BatchInput(path: input)
        let format = options.output ?? source.format
        let resolver = try BatchResolver(index: index, workers: options.workers, fallbackMeters: options.fallbackMeters)
        let sink = try BatchOutput(path: output, format: format, language: options.language)
        var summary = BatchSummary(rows: 0, failed: 0)
        try sink.begin(csvHeader: source.format == .csv ? source.csvHeader : nil)
        while true {
            let rows = try source.next(chunkSize)
            if rows.isEmpty { break }
            let valid = rows.compactMap { try? $0.coordinate.get() }
            var answers = resolver.resolve(valid).makeIterator()
            for row in rows {
                summary.rows += 1
                switch row.coordinate {
                case let .failure(error):
                    summary.failed += 1
                    events(.rowError(error))
                case .success:
                    switch answers.next()! {
                    case let .success(answer): try sink.write(answer, row: row)
                    case let .failure(error):
                        summary.failed += 1
                        events(.rowError(BatchRowError(file: input, row: row.row, message: error.description)))
                    }
                }
            }
            events(.progress(rows: summary.rows, fraction: source.fraction))
        }
        try sink.finish()
        return summary
    }
}

/// Writes answers as CSV (input columns kept, result columns appended), NDJSON or GeoJSON, to a
/// file (replaced only when the batch completes), a device or standard output.
final class BatchOutput {
    static let resultColumns = "country_code,country,province_code,province,district_code,district,approximate"
    private let file: OutputFile
    private let format: BatchFormat
    private let language: Language
    private var features = 0

    init(path: String, format: BatchFormat, language: Language) throws {
        file = try OutputFile(path: path)
        self.format = format
        self.language = language
    }

    func begin(csvHeader: String?) throws {
        switch format {
        case .csv: try file.write((csvHeader ?? "lat,lon") + "," + Self.resultColumns + "\n")
        case .geojson: try file.write("{\"type\":\"FeatureCollection\",\"features\":[\n")
        case .ndjson: break
        }
    }

    func write(_ answer: Resolution, row: BatchRow) throws {
        var out = ""
        switch format {
        case .ndjson:
            out = answer.json(language: language) + "\n"
        case .csv:
            if case let .csvLine(line) = row.kept { out = line } else {
                out = "\(answer.coordinate.latitude),\(answer.coordinate.longitude)"
            }
            for unit in [answer.country, answer.province, answer.district] {
                out += "," + CSVLine.quote(unit?.code ?? "") + "," + CSVLine.quote(unit?.name(language: language) ?? "")
            }
            out += answer.approximate ? ",true\n" : ",false\n"
        case .geojson:
            var properties = "{"
            if case let .properties(kept?) = row.kept, case let .object(members, _) = kept, !members.isEmpty {
                properties += kept.jsonText.dropFirst().dropLast() + ","
            }
            properties += "\"roqua\":" + answer.json(language: language) + "}"
            out = (features > 0 ? ",\n" : "") + "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":["
                + "\(answer.coordinate.longitude),\(answer.coordinate.latitude)]},\"properties\":\(properties)}"
            features += 1
        }
        try file.write(out)
    }

    func finish() throws {
        if format == .geojson { try file.write("\n]}\n") }
        try file.commit()
    }
}
