import Foundation
import RoquaBoundaries
import RoquaIO

/// Streams a file of coordinates through the resolver as a pipeline: the calling thread reads
/// chunks of lines and writes finished chunks in input order; the workers parse, resolve and
/// format. At most a few chunks are in memory at once, however long the input.
package enum BatchRunner {
    /// GeoJSON features (and CSV rows read one by one) per chunk.
    static let chunkSize = 16_384
    /// Input bytes per chunk of CSV or NDJSON lines, at most (and for a stream of unknown length).
    static let maximumBlockBytes = 512 << 10
    /// Input bytes per chunk, at least.
    static let minimumBlockBytes = 32 << 10
    /// Chunks per worker a file of known size is cut into (unless they would be smaller than
    /// `minimumBlockBytes`): the last chunks end nearly together, so no worker is left alone
    /// with a big one while the others are done.
    static let chunksPerWorker = 16

    /// The chunk size for an input of `totalBytes` (nil: unknown) resolved by `workers`.
    package static func blockBytes(totalBytes: Int?, workers: Int) -> Int {
        guard let totalBytes else { return maximumBlockBytes }
        return min(maximumBlockBytes, max(minimumBlockBytes, totalBytes / (workers * chunksPerWorker)))
    }

    /// - Throws: `BatchError` (input unreadable or not the format it starts as), `InputError`,
    ///   `OutputError` (output cannot be written; a regular output file is then left as it was),
    ///   GRDB's `DatabaseError` when the localities asked for cannot be read.
    package static func run(
        index: ResolverIndex, input: String, output: String, options: BatchOptions,
        events: (BatchEvent) -> Void
    ) throws -> BatchSummary {
        let source = try BatchInput(path: input)
        let format = options.output ?? source.format
        let sink = try BatchOutput(path: output, format: format)
        try sink.begin(
            csvHeader: source.format == .csv ? source.csvHeader : nil, locality: options.locality,
            errors: options.keepBadRows)
        var formatter = BatchFormatter(
            format: format, fragments: UnitFragments(index: index, json: format != .csv, language: options.language),
            units: index.table)
        formatter.keepBadRows = options.keepBadRows
        if options.locality {
            formatter.localities = .passUnretained(index.localities())
        }
        let shared = formatter
        let fallback = options.fallbackMeters
        let workers = min(max(options.workers, 1), BatchOptions.maxWorkers)
        // Two chunks per worker in flight: one being worked on, one waiting.
        let limit = 2 * workers + 1
        let pools = BatchWork.Pools(input: BufferPool(limit: limit), output: BufferPool(limit: limit))
        let pipeline = OrderedPipeline<BatchChunk, BatchChunkResult>(workers: workers) {
            let resolver = try Resolver(index: index, fallbackMeters: fallback)
            return { chunk in try BatchWork.run(chunk, resolver: resolver, formatter: shared, pools: pools) }
        }
        defer { pipeline.close() }
        var summary = BatchSummary(rows: 0, failed: 0)
        func write(_ result: BatchChunkResult) throws {
            for error in result.errors { events(.rowError(error)) }
            summary.rows += result.rows
            summary.failed += result.errors.count
            try sink.write(result)
            pools.output.give(result.bytes)
            events(.progress(rows: summary.rows, fraction: result.fraction))
        }
        let blockBytes = Self.blockBytes(totalBytes: source.totalBytes, workers: workers)
        while let chunk = try source.next(chunkSize, blockBytes: blockBytes, pool: pools.input) {
            while pipeline.inFlight >= limit, let done = try pipeline.next() { try write(done) }
            pipeline.submit(chunk)
            while pipeline.nextIsReady, let done = try pipeline.next() { try write(done) }
        }
        while let done = try pipeline.next() { try write(done) }
        try sink.finish()
        return summary
    }
}

/// What a worker made of one chunk: the output bytes, the rows' errors in order, and counts.
struct BatchChunkResult: Sendable {
    var bytes: [UInt8]
    var errors: [BatchRowError]
    var rows: Int
    var features: Int
    var fraction: Double?
}

/// A worker's part: parse each row, resolve it, format it.
enum BatchWork {
    /// Where chunks' input and output arrays go back after use, to be lent out again.
    struct Pools: Sendable {
        var input: BufferPool
        var output: BufferPool
    }

    /// - Throws: `BatchError.notGeoJSON` for a feature that is not valid JSON.
    static func run(_ chunk: BatchChunk, resolver: Resolver, formatter: BatchFormatter, pools: Pools) throws -> BatchChunkResult {
        var result = BatchChunkResult(bytes: pools.output.take(), errors: [], rows: 0, features: 0, fraction: chunk.fraction)
        func answer(
            _ row: Int, _ coordinate: Result<Coordinate, BatchRowError>, line: UnsafeBufferPointer<UInt8>?, properties: KeptProperties
        ) throws {
            result.rows += 1
            let failure: BatchRowError
            switch coordinate {
            case let .failure(error): failure = error
            case let .success(c):
                do {
                    let placement = try resolver.placement(c)
                    // A locality that cannot be read fails the batch, not the row.
                    try formatter.append(placement, at: c, csvLine: line, properties: properties, to: &result.bytes)
                    result.features += 1
                    return
                } catch let error as ResolveError {
                    failure = BatchRowError(file: chunk.parser.path, row: row, message: error.description)
                }
            }
            result.errors.append(failure)
            if formatter.keepBadRows {
                formatter.appendBadRow(
                    failure.message, csvLine: line,
                    inputColumns: chunk.parser.format == .csv ? chunk.parser.columnCount ?? 2 : 2,
                    properties: properties, to: &result.bytes)
                result.features += 1
            }
        }
        switch chunk.content {
        case let .lines(bytes, lines): result.bytes.reserveCapacity(bytes.count * 2 + lines.count * 64)
        case let .block(bytes, _, _): result.bytes.reserveCapacity(bytes.count * 4)
        case let .features(bytes, _): result.bytes.reserveCapacity(bytes.count * 2)
        }
        try chunk.forEachRow(answer)
        switch chunk.content {
        case let .block(bytes, _, _), let .features(bytes, _): pools.input.give(bytes)
        case .lines: break
        }
        return result
    }
}

/// Writes the output: a header, the chunks' bytes in order, a footer; to a file (replaced only
/// when the batch completes), a device or standard output.
final class BatchOutput {
    private let file: OutputFile
    private let format: BatchFormat
    private var features = 0

    init(path: String, format: BatchFormat) throws {
        file = try OutputFile(path: path)
        self.format = format
    }

    func begin(csvHeader: String?, locality: Bool, errors: Bool) throws {
        switch format {
        case .csv:
            try file.write(
                (csvHeader ?? "lat,lon") + "," + BatchFormatter.resultColumns
                    + (locality ? "," + BatchFormatter.localityColumn : "") + (errors ? "," + BatchFormatter.errorColumn : "") + "\n")
        case .geojson: try file.write("{\"type\":\"FeatureCollection\",\"features\":[\n")
        case .ndjson: break
        }
    }

    func write(_ result: BatchChunkResult) throws {
        // GeoJSON features each start with ",\n": the very first one of the file does not.
        let skip = format == .geojson && features == 0 && result.features > 0 ? 2 : 0
        features += result.features
        try file.write(result.bytes[skip...])
    }

    func finish() throws {
        if format == .geojson { try file.write("\n]}\n") }
        try file.commit()
    }
}
