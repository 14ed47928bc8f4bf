import ArgumentParser
import Foundation
import RoquaBoundaries

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Build the boundary database from shapefiles (default: the bundled data/).",
        discussion: """
            Each source is a directory with a manifest.json, a manifest, or shapefiles listed in the \
            manifest.json beside them. The database is built beside its target and renamed into place \
            only on success: a failed import leaves an existing database untouched.
            """
    )

    @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("Directories, manifests or shapefiles.", valueName: "DIR|FILE"))
    var from: [String] = []

    @Option(name: .long, help: ArgumentHelp("Where to write the database (default: $ROQUA_BOUNDARIES or the data home).", valueName: "PATH"))
    var out: String?

    @Option(name: .long, help: "Largest piece, in vertices, that the R*Tree indexes.")
    var maxPieceVertices = 256

    @Option(name: .long, help: "Largest piece, in degrees of width or height.")
    var maxPieceDegrees = 4.0

    func run() throws {
        let options = ImportOptions(sources: from.isEmpty ? [RoquaPaths.bundledData()] : from,
                                    output: out ?? RoquaPaths.boundaries(), maxPieceVertices: maxPieceVertices,
                                    maxPieceDegrees: maxPieceDegrees)
        var layerLabel = ""
        let report: ImportReport
        do {
            report = try BoundaryImporter.run(options) { event in
                switch event {
                case let .layerStarted(layer, index, count, _):
                    layerLabel = "[\(index + 1)/\(count)] \(layer)"
                case let .progress(_, done, total):
                    Terminal.status("\(layerLabel) \(done)/\(total)")
                case let .warning(text):
                    Terminal.endStatus()
                    Terminal.error("warning: \(text)")
                }
            }
        } catch {
            Terminal.endStatus()
            throw Failure(error)
        }
        Terminal.endStatus()
        let counts = AdminLevel.allCases.map { "\(report.counts[$0] ?? 0) \($0 == .country ? "countries" : $0.description + "s")" }
        print("Imported \(counts.joined(separator: ", ")) (\(report.pieces) indexed pieces)")
        print(String(format: "Wrote %@ (%.1f MB) in %.1f s", report.output, Double(report.bytes) / 1e6, report.seconds))
        if !report.warnings.isEmpty { print("\(report.warnings.count) warning(s), shown above") }
    }
}
