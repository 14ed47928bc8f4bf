import RoquaBoundaries
import RoquaIO

/// What can be wrong with a shapefile; every case names the file, and the record where there is one.
public enum ShapefileError: Error, CustomStringConvertible, Equatable, Sendable {
    case missingCompanion(file: String, missing: String)
    case cannotOpen(file: String, reason: String)
    case empty(file: String)
    case unsupportedShapeType(file: String, type: String)
    case recordCountMismatch(file: String, shapes: Int, records: Int)
    case unreadableRecord(file: String, record: Int, reason: String)
    case notGeographic(file: String, detail: String)
    case unknownCodePage(file: String, codePage: String)
    /// PROJ cannot use the layer's `.prj` or the CRS named for it.
    case badCRS(file: String, reason: String)
    case undecodableText(file: String, record: Int, field: String, encoding: String)
    case missingField(file: String, field: String)
    case vertexOutOfBounds(file: String, record: Int, x: Double, y: Double, bounds: BoundingBox)

    /// One line naming the file (and record) and, where there is one, the fix.
    public var description: String {
        switch self {
        case let .missingCompanion(file, missing):
            "\(file): the companion file \(missing) is missing (a shapefile needs .shp, .shx and .dbf)"
        case let .cannotOpen(file, reason):
            "\(file): cannot be opened: \(reason)"
        case let .empty(file):
            "\(file): the file is empty (no shapes)"
        case let .unsupportedShapeType(file, type):
            "\(file): holds \(type) shapes; boundaries must be polygons"
        case let .recordCountMismatch(file, shapes, records):
            "\(file): the .shp has \(shapes) shapes but the .dbf has \(records) records"
        case let .unreadableRecord(file, record, reason):
            "\(file): record \(record) cannot be read: \(reason) (truncated or corrupt file?)"
        case let .notGeographic(file, detail):
            "\(file): coordinates are not longitude/latitude degrees (\(detail))"
        case let .badCRS(file, reason):
            "\(file): \(reason)"
        case let .unknownCodePage(file, codePage):
            "\(file): unknown DBF code page '\(codePage)' (a code page number, an iconv name such as CP932, SHIFT_JIS, GBK or KOI8-R, or an LDID with a known code page); name the encoding in the layer's \"encoding\""
        case let .undecodableText(file, record, field, encoding):
            "\(file): record \(record), field \(field) is not valid \(encoding) text; name the file's encoding (a .cpg file, or the layer's \"encoding\")"
        case let .missingField(file, field):
            "\(file): the .dbf has no field named \(field)"
        case let .vertexOutOfBounds(file, record, x, y, bounds):
            "\(file): record \(record) has the vertex \(x), \(y) outside the file's bounds "
                + "\(bounds.minX),\(bounds.minY) – \(bounds.maxX),\(bounds.maxY) (corrupt file?)"
        }
    }
}

extension ShapefileError: InputFileError {
    /// The file the message names.
    public var file: String {
        switch self {
        case let .missingCompanion(file, _), let .cannotOpen(file, _), let .empty(file), let .unsupportedShapeType(file, _),
            let .recordCountMismatch(file, _, _), let .unreadableRecord(file, _, _), let .notGeographic(file, _),
            let .unknownCodePage(file, _), let .badCRS(file, _), let .undecodableText(file, _, _, _), let .missingField(file, _),
            let .vertexOutOfBounds(file, _, _, _, _):
            file
        }
    }

    public func renaming(_ path: String, as name: String) -> ShapefileError {
        let file = InputFileName.renamed(file, from: path, to: name)
        return switch self {
        case let .missingCompanion(_, missing): .missingCompanion(file: file, missing: missing)
        case let .cannotOpen(_, reason): .cannotOpen(file: file, reason: reason)
        case .empty: .empty(file: file)
        case let .unsupportedShapeType(_, type): .unsupportedShapeType(file: file, type: type)
        case let .recordCountMismatch(_, shapes, records): .recordCountMismatch(file: file, shapes: shapes, records: records)
        case let .unreadableRecord(_, record, reason): .unreadableRecord(file: file, record: record, reason: reason)
        case let .notGeographic(_, detail): .notGeographic(file: file, detail: detail)
        case let .unknownCodePage(_, codePage): .unknownCodePage(file: file, codePage: codePage)
        case let .badCRS(_, reason): .badCRS(file: file, reason: reason)
        case let .undecodableText(_, record, field, encoding):
            .undecodableText(file: file, record: record, field: field, encoding: encoding)
        case let .missingField(_, field): .missingField(file: file, field: field)
        case let .vertexOutOfBounds(_, record, x, y, bounds): .vertexOutOfBounds(file: file, record: record, x: x, y: y, bounds: bounds)
        }
    }
}
