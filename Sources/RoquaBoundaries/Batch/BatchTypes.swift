/// Batch input/output formats.
public enum BatchFormat: String, CaseIterable, Sendable {
    case csv, ndjson, geojson
}

public struct BatchOptions: Sendable {
    public var language: Language
    /// Output format; nil = the input's own.
    public var output: BatchFormat?
    public var workers: Int
    public var fallbackMeters: Double

    public init(language: Language = .local, output: BatchFormat? = nil, workers: Int = 1, fallbackMeters: Double = 1000) {
        self.language = language
        self.output = output
        self.workers = workers
        self.fallbackMeters = fallbackMeters
    }
}

public struct BatchSummary: Sendable {
    public var rows: Int
    public var failed: Int
}

/// A problem with one input row; the batch goes on.
public struct BatchRowError: Error, CustomStringConvertible, Sendable {
    public var file: String
    public var row: Int
    public var message: String
    public var description: String { "\(file == "-" ? "stdin" : file): row \(row): \(message)" }
}

public enum BatchEvent: Sendable {
    case rowError(BatchRowError)
    case progress(rows: Int, fraction: Double?)
}

public enum BatchError: Error, CustomStringConvertible, Sendable {
    case cannotOpen(path: String, reason: String)
    case badHeader(path: String, reason: String)
    case notGeoJSON(path: String, reason: String)

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason): "\(path): cannot open: \(reason)"
        case let .badHeader(path, reason): "\(path): \(reason)"
        case let .notGeoJSON(path, reason): "\(path): not a GeoJSON FeatureCollection: \(reason)"
        }
    }
}
