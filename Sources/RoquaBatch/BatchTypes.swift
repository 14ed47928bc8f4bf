import RoquaBoundaries

/// Batch input/output formats.
package enum BatchFormat: String, CaseIterable, Sendable {
    case csv, ndjson, geojson
}

package struct BatchOptions: Sendable {
    /// The most worker threads a batch starts (more are clamped to this): each holds a resolver.
    package static let maxWorkers = 256
    /// The widest nearest-boundary fallback accepted, in metres.
    package static let maxFallbackMeters = 50_000.0

    package var language: Language
    /// Output format; nil = the input's own.
    package var output: BatchFormat?
    /// Worker threads (parse, resolve, format), clamped to 1…`maxWorkers`.
    package var workers: Int
    package var fallbackMeters: Double
    /// Add each answer's locality (a last CSV column, a `locality` JSON key); off by default,
    /// the plain batch stays as fast as before.
    package var locality: Bool
    /// Keep a bad row in its place, its answer empty and the reason in a last `error` column
    /// (CSV) or an `"error"` key (JSON), so the output lines up with the input for a join; off:
    /// bad rows are left out (reported on the events either way).
    package var keepBadRows: Bool

    package init(
        language: Language = .local, output: BatchFormat? = nil, workers: Int = 1, fallbackMeters: Double = 1000,
        locality: Bool = false, keepBadRows: Bool = false
    ) {
        self.language = language
        self.output = output
        self.workers = workers
        self.fallbackMeters = fallbackMeters
        self.locality = locality
        self.keepBadRows = keepBadRows
    }
}

package struct BatchSummary: Sendable {
    package var rows: Int
    package var failed: Int
}

/// A problem with one input row; the batch goes on.
package struct BatchRowError: Error, CustomStringConvertible, Sendable {
    package var file: String
    package var row: Int
    package var message: String
    package var description: String { "\(file == "-" ? "stdin" : file): row \(row): \(message)" }
}

package enum BatchEvent: Sendable {
    case rowError(BatchRowError)
    case progress(rows: Int, fraction: Double?)
}

package enum BatchError: Error, CustomStringConvertible, Sendable {
    case cannotOpen(path: String, reason: String)
    case badHeader(path: String, reason: String)
    case notGeoJSON(path: String, reason: String)

    package var description: String {
        switch self {
        case let .cannotOpen(path, reason): "\(path): cannot open: \(reason)"
        case let .badHeader(path, reason): "\(path): \(reason)"
        case let .notGeoJSON(path, reason): "\(path): not a GeoJSON FeatureCollection: \(reason)"
        }
    }
}
