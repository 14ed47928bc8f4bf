import Foundation
import RoquaBoundaries
import RoquaIO

/// The formats `roqua export-boundaries` writes.
public enum ExportFormat: String, CaseIterable, Sendable {
    /// A SQL script for `psql`: tables, COPY data as hex EWKB (SRID 4326), GiST indexes,
    /// ANALYZE, and the `roqua_resolve(lon, lat)` function.
    case postgis
    /// A GeoPackage (an SQLite file) with a `boundaries` and a `pieces` feature table.
    case gpkg
    /// A GeoJSON FeatureCollection of the boundaries, streamed.
    case geojson
}

/// Why an export could not be written; nothing is left at the output path in any case.
public enum ExportError: Error, CustomStringConvertible, Sendable {
    /// The format cannot be streamed to standard output or a device (a GeoPackage is a database file).
    case needsRegularFile(format: ExportFormat, path: String)
    /// GEOS could not read or write the geometry of the unit `code`.
    case geometry(code: String, message: String)
    /// The boundary DB could not be read or the GeoPackage could not be built; `message` says why.
    case database(path: String, message: String)

    /// One line naming the path or unit and what went wrong.
    public var description: String {
        switch self {
        case let .needsRegularFile(format, path):
            "\(path == "-" ? "standard output" : path): a \(format.rawValue) export is a database file; give --output FILE (a regular file)"
        case let .geometry(code, message): "boundary \(code): geometry cannot be exported: \(message)"
        case let .database(path, message): "\(path): \(message)"
        }
    }
}

/// What an export wrote.
public struct ExportSummary: Sendable, Equatable {
    /// Boundaries written.
    public var boundaries: Int
    /// Pieces written (0 for GeoJSON, which carries the boundaries only).
    public var pieces: Int
}

/// Writes a boundary DB's boundaries, pieces and answer rules for other spatial tools.
public enum BoundaryExporter {
    /// The SRID every format declares: WGS 84 longitude/latitude, what the DB stores.
    static let srid: Int32 = 4326

    /// Exports `database` as `format` to `output` (`-` for standard output). A regular file is
    /// built beside the target and renamed into place only when complete; a device or FIFO is
    /// written straight; a GeoPackage needs a regular file.
    ///
    /// - Throws: `OutputError` when the output cannot be written (nothing is left behind);
    ///   `ExportError` for a GeoPackage without a file, a geometry GEOS cannot handle, or a DB
    ///   that cannot be read.
    public static func export(database: BoundaryDatabase, format: ExportFormat, output: String) throws -> ExportSummary {
        let catalog: ExportCatalog
        do {
            catalog = try ExportCatalog(database: database)
        } catch {
            throw ExportError.database(path: database.path, message: "cannot read the boundaries: \(error)")
        }
        switch format {
        case .gpkg:
            return try GeoPackageWriter(catalog: catalog, database: database).write(to: output)
        case .postgis, .geojson:
            let file = try OutputFile(path: output)
            do {
                let summary =
                    format == .postgis
                    ? try PostGISWriter(catalog: catalog, database: database).write(to: file)
                    : try GeoJSONWriter(catalog: catalog, database: database).write(to: file)
                try file.commit()
                return summary
            } catch {
                file.discard()
                throw error
            }
        }
    }
}
