import Foundation
import RoquaBoundaries

/// Reads the DB's WKB into GEOS and writes it in each format's form through GEOS's own
/// writers, naming the unit when GEOS fails. One per export (GEOS handles are per thread).
final class ExportGeometry {
    private let context = GEOSContext()
    private let writer: GeometryWriter

    init() throws {
        do {
            writer = try GeometryWriter(context: context)
        } catch {
            throw ExportError.geometry(code: "-", message: "\(error)")
        }
    }

    /// Hex EWKB with SRID 4326: PostGIS's text input for a `geometry` column.
    func hexEWKB(_ wkb: Data, of unit: ExportUnit) throws -> [UInt8] {
        try converting(unit) { try writer.hexEWKB(context.geometry(wkb: wkb), srid: BoundaryExporter.srid) }
    }

    /// The geometry as GeoJSON text.
    func geoJSON(_ wkb: Data, of unit: ExportUnit) throws -> String {
        try converting(unit) { try writer.geoJSON(context.geometry(wkb: wkb)) }
    }

    /// Little-endian WKB and the geometry's bounds, for a GeoPackage blob.
    func wkbAndBounds(_ wkb: Data, of unit: ExportUnit) throws -> ([UInt8], BoundingBox) {
        try converting(unit) {
            let geometry = try context.geometry(wkb: wkb)
            return (try writer.wkb(geometry), try geometry.bounds())
        }
    }

    private func converting<T>(_ unit: ExportUnit, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw ExportError.geometry(code: unit.code, message: "\(error)")
        }
    }
}
