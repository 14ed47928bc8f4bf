import RoquaBoundaries

/// What `roqua import` is asked to do.
public struct ImportOptions: Sendable {
    /// Directories holding a `manifest.json`, manifests, or shapefiles listed in a manifest.
    public var sources: [String]
    public var output: String
    /// Pieces larger than this are cut in two, recursively (see `Subdivider`).
    public var maxPieceVertices: Int
    /// Pieces wider or taller than this many degrees are cut too.
    public var maxPieceDegrees: Double

    /// The nearest-boundary distance the cell index lists nearby units for (the resolver's
    /// default); a resolver asked for more answers the points that need it through GEOS.
    public var cellFallbackMeters: Double

    public init(sources: [String], output: String, maxPieceVertices: Int = 256, maxPieceDegrees: Double = 4,
                cellFallbackMeters: Double = 1000) {
        self.sources = sources
        self.output = output
        self.maxPieceVertices = maxPieceVertices
        self.maxPieceDegrees = maxPieceDegrees
        self.cellFallbackMeters = cellFallbackMeters
    }
}

/// What the importer reports while it works.
public enum ImportEvent: Sendable {
    case layerStarted(layer: String, index: Int, layerCount: Int, features: Int)
    case progress(layer: String, done: Int, total: Int)
    case warning(String)
}

public struct ImportReport: Sendable {
    public var output: String
    public var counts: [AdminLevel: Int]
    public var pieces: Int
    public var warnings: [String]
    public var seconds: Double
    public var bytes: Int
    /// The precomputed cell index: tiles written, mixed leaves, bytes and build time.
    public var cellTiles: Int
    public var cellLeaves: Int
    public var cellBytes: Int
    public var cellSeconds: Double
}

/// Problems with the content of otherwise readable files; each names file, record and value.
public enum ImportError: Error, CustomStringConvertible, Equatable, Sendable {
    case missingValue(file: String, record: Int, field: String)
    case duplicateCode(file: String, record: Int, code: String, first: String)
    case unknownParent(file: String, record: Int, code: String, parent: String, level: AdminLevel)
    case emptyGeometry(file: String, record: Int, code: String)
    case geometry(file: String, record: Int, code: String, reason: String)

    public var description: String {
        switch self {
        case let .missingValue(file, record, field):
            "\(file): record \(record) has no value in field \(field)"
        case let .duplicateCode(file, record, code, first):
            "\(file): record \(record) repeats code '\(code)', already used by \(first)"
        case let .unknownParent(file, record, code, parent, level):
            "\(file): record \(record) (\(code)) names parent '\(parent)', which is no \(level) in the imported layers"
        case let .emptyGeometry(file, record, code):
            "\(file): record \(record) (\(code)) has no polygon with an area"
        case let .geometry(file, record, code, reason):
            "\(file): record \(record) (\(code)): its geometry cannot be processed: \(reason)"
        }
    }
}
