import Foundation
import RoquaBoundaries
import RoquaIO

/// A SQL script for `psql`: the schema, each table's rows as one COPY block in text format
/// (geometry as hex EWKB from GEOS's writer), then indexes, `roqua_resolve` and ANALYZE.
struct PostGISWriter {
    let catalog: ExportCatalog
    let database: BoundaryDatabase

    func write(to file: OutputFile) throws -> ExportSummary {
        let geometry = try ExportGeometry()
        try file.write(PostGISSchema.header(source: (database.path as NSString).lastPathComponent, version: Roqua.version))
        try file.write(PostGISSchema.copy("roqua_boundaries", PostGISSchema.boundaryColumns))
        var boundaries = 0, pieces = 0
        var line: [UInt8] = []
        try catalog.forEachBoundary(in: database) { unit, wkb in
            line.removeAll(keepingCapacity: true)
            let fields: [String?] =
                [
                    "\(unit.id)", unit.code, "\(unit.level.rawValue)", unit.name, unit.nameEn, unit.nameTr,
                    unit.parentCode, unit.country, unit.continent, unit.layer, "\(unit.precision)",
                ] + unit.answer
            for field in fields {
                Self.appendCopyField(field, to: &line)
                line.append(Self.tab)
            }
            line.append(contentsOf: try geometry.hexEWKB(wkb, of: unit))
            line.append(Self.newline)
            try file.write(line)
            boundaries += 1
        }
        try file.write(PostGISSchema.copyEnd)
        try file.write(PostGISSchema.copy("roqua_pieces", PostGISSchema.pieceColumns))
        try catalog.forEachPiece(in: database) { id, unit, wkb in
            line.removeAll(keepingCapacity: true)
            line.append(contentsOf: "\(id)\t\(unit.id)\t".utf8)
            line.append(contentsOf: try geometry.hexEWKB(wkb, of: unit))
            line.append(Self.newline)
            try file.write(line)
            pieces += 1
        }
        try file.write(PostGISSchema.copyEnd)
        try file.write(PostGISSchema.footer)
        return ExportSummary(boundaries: boundaries, pieces: pieces)
    }

    private static let tab = UInt8(ascii: "\t"), newline = UInt8(ascii: "\n"), backslash = UInt8(ascii: "\\")

    /// COPY's text format: `\N` for NULL; backslash, tab, newline and carriage return escaped.
    static func appendCopyField(_ value: String?, to line: inout [UInt8]) {
        guard let value else {
            line.append(contentsOf: "\\N".utf8)
            return
        }
        for byte in value.utf8 {
            switch byte {
            case backslash: line.append(contentsOf: [backslash, backslash])
            case tab: line.append(contentsOf: [backslash, UInt8(ascii: "t")])
            case newline: line.append(contentsOf: [backslash, UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): line.append(contentsOf: [backslash, UInt8(ascii: "r")])
            default: line.append(byte)
            }
        }
    }
}
