import ArgumentParser
import RoquaCommandLine
import RoquaCommandOptions
import RoquaExport

struct ExportBoundariesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-boundaries",
        abstract: "Write the boundaries, their pieces and Roqua's answer rules for PostGIS, GeoPackage or GeoJSON.",
        discussion: """
            postgis: a SQL script for psql (tables roqua_boundaries and roqua_pieces, GiST indexes, and \
            roqua_resolve(lon, lat) giving Roqua's exact country/province/district codes; the \
            nearest-boundary fallback is not reproduced). gpkg: a GeoPackage file (needs --output). \
            geojson: a FeatureCollection of the boundaries, streamed. A file is written beside the \
            target and moved into place when complete.
            """
    )

    @Option(help: "postgis, gpkg or geojson.")
    var format: ExportFormat

    @Option(help: ArgumentHelp("Where the export goes (default: standard output; a GeoPackage needs a file).", valueName: "FILE|-"))
    var output: String = "-"

    @OptionGroup var boundaryOptions: BoundaryOptions

    func run() throws {
        let summary = try BoundaryExporter.export(database: boundaryOptions.open(), format: format, output: output)
        let pieces = format == .geojson ? "" : " and \(summary.pieces) pieces"
        RoquaProgram.note(
            "exported \(summary.boundaries) boundaries\(pieces) as \(format.rawValue) to \(output == "-" ? "standard output" : output)")
    }
}

extension ExportFormat: ExpressibleByArgument {}
