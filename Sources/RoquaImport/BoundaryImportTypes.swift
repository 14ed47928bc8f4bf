import RoquaBoundaries
import RoquaIO

/// What `roqua import` is asked to do.
public struct BoundaryImportOptions: Sendable {
    /// Directories holding a `manifest.json`, manifests, or shapefiles listed in a manifest.
    public var sources: [String]
    /// Path of the boundary DB to write; an existing regular file there is replaced atomically.
    public var output: String
    /// Pieces larger than this are cut in two, recursively (see `Subdivider`).
    public var maxPieceVertices: Int
    /// Pieces wider or taller than this many degrees are cut too.
    public var maxPieceDegrees: Double

    /// The nearest-boundary distance the cell index lists nearby units for (the resolver's
    /// default); a resolver asked for more answers the points that need it through GEOS.
    public var cellFallbackMeters: Double

    /// How long GEOS may take to repair one invalid polygon before the import is refused, naming
    /// it (a real polygon of a million vertices with a thousand bow-ties takes about 10 s).
    public var repairSeconds: Double

    /// Creates options with the default piece limits (256 vertices, 4 degrees), a 1000 m cell
    /// fallback and 60 s to repair a polygon.
    public init(
        sources: [String], output: String, maxPieceVertices: Int = 256, maxPieceDegrees: Double = 4,
        cellFallbackMeters: Double = 1000, repairSeconds: Double = 60
    ) {
        self.sources = sources
        self.output = output
        self.maxPieceVertices = maxPieceVertices
        self.maxPieceDegrees = maxPieceDegrees
        self.cellFallbackMeters = cellFallbackMeters
        self.repairSeconds = repairSeconds
    }
}

/// What the importer reports while it works.
public enum ImportEvent: Sendable {
    /// A layer begins: its name, its 0-based position among `layerCount` layers, and its record count.
    case layerStarted(layer: String, index: Int, layerCount: Int, features: Int)
    /// `done` of the layer's `total` records are imported.
    case progress(layer: String, done: Int, total: Int)
    /// Something was repaired or dropped, naming the file, record and code.
    case warning(String)
}

/// What `BoundaryImporter.run` wrote, for `roqua import` to print.
public struct ImportReport: Sendable {
    /// The path of the boundary DB written.
    public var output: String
    /// Units imported per level.
    public var counts: [AdminLevel: Int]
    /// Indexed polygon pieces written, after subdivision.
    public var pieces: Int
    /// Every warning also sent as an `ImportEvent.warning`, in order.
    public var warnings: [String]
    /// Wall-clock seconds of the whole import.
    public var seconds: Double
    /// Size of the written DB in bytes (0 if it could not be measured).
    public var bytes: Int
    /// The precomputed cell index: tiles written, mixed leaves, bytes and build time.
    public var cellTiles: Int
    /// Mixed leaves of the cell quadtrees: cells whose answer still needs a test against their edges.
    public var cellLeaves: Int
    /// Bytes of all encoded cell tiles.
    public var cellBytes: Int
    /// Wall-clock seconds spent building the cell index.
    public var cellSeconds: Double
    /// Populated places imported from the manifests' `localities` files.
    public var localities: Int = 0
}

/// Problems with the content of otherwise readable files; each names file, record and value.
public enum BoundaryImportError: Error, CustomStringConvertible, Equatable, Sendable {
    case missingValue(file: String, record: Int, field: String)
    case duplicateCode(file: String, record: Int, code: String, first: String)
    case unknownParent(file: String, record: Int, code: String, parent: String, level: AdminLevel)
    case emptyGeometry(file: String, record: Int, code: String)
    case geometry(file: String, record: Int, code: String, name: String, reason: String)
    /// An invalid polygon GEOS is not asked to repair, or did not repair in time.
    case unrepairable(file: String, record: Int, code: String, name: String, reason: String)
    /// Records of a layer without a parent field that lie in no unit of the level above.
    case orphans(file: String, level: AdminLevel, records: [String])

    /// One line naming the file, the record and what is wrong with it.
    public var description: String {
        switch self {
        case let .missingValue(file, record, field):
            "\(file): record \(record) has no value in field \(field)"
        case let .duplicateCode(file, record, code, first):
            "\(file): record \(record) repeats code '\(code)', already used by \(first) (codes are unique across layers; "
                + "an added layer can take --code-prefix, a manifest layer \"code_prefix\")"
        case let .unknownParent(file, record, code, parent, level):
            "\(file): record \(record) (\(code)) names parent '\(parent)', which is no \(level) in the imported layers"
        case let .emptyGeometry(file, record, code):
            "\(file): record \(record) (\(code)) has no polygon with an area"
        case let .geometry(file, record, code, name, reason):
            "\(file): record \(record) (\(code) \(name)): its geometry cannot be processed: \(reason)"
        case let .unrepairable(file, record, code, name, reason):
            "\(file): record \(record) (\(code) \(name)): an invalid polygon that is not repaired: \(reason); fix or remove this feature"
        case let .orphans(file, level, records):
            "\(file): \(records.count) record(s) lie in no \(level) of the imported layers, so no parent can be inferred: "
                + records.prefix(10).joined(separator: ", ") + (records.count > 10 ? ", …" : "")
                + " (check the layer's CRS, name the parent field, or keep them under their country: "
                + "--allow-orphans, a manifest layer's \"allow_orphans\": true)"
        }
    }
}

extension BoundaryImportError: InputFileError {
    /// The file the message names.
    public var file: String {
        switch self {
        case let .missingValue(file, _, _), let .duplicateCode(file, _, _, _), let .unknownParent(file, _, _, _, _),
            let .emptyGeometry(file, _, _), let .geometry(file, _, _, _, _), let .unrepairable(file, _, _, _, _),
            let .orphans(file, _, _):
            file
        }
    }

    public func renaming(_ path: String, as name: String) -> BoundaryImportError {
        func renamed(_ file: String) -> String { InputFileName.renamed(file, from: path, to: name) }
        return switch self {
        case let .missingValue(file, record, field): .missingValue(file: renamed(file), record: record, field: field)
        case let .duplicateCode(file, record, code, first):
            .duplicateCode(file: renamed(file), record: record, code: code, first: renamed(first))
        case let .unknownParent(file, record, code, parent, level):
            .unknownParent(file: renamed(file), record: record, code: code, parent: parent, level: level)
        case let .emptyGeometry(file, record, code): .emptyGeometry(file: renamed(file), record: record, code: code)
        case let .geometry(file, record, code, name, reason):
            .geometry(file: renamed(file), record: record, code: code, name: name, reason: reason)
        case let .unrepairable(file, record, code, name, reason):
            .unrepairable(file: renamed(file), record: record, code: code, name: name, reason: reason)
        case let .orphans(file, level, records): .orphans(file: renamed(file), level: level, records: records)
        }
    }
}
