import ArgumentParser
import Foundation
import RoquaBoundaries
import RoquaImport

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

    func validate() throws {
        guard (16...100_000).contains(maxPieceVertices) else { throw ValidationError("--max-piece-vertices must be 16…100000") }
        guard maxPieceDegrees.isFinite, (0.01...360).contains(maxPieceDegrees) else {
            throw ValidationError("--max-piece-degrees must be 0.01…360")
        }
    }

    func run() throws {
        var sources = from
        if sources.isEmpty {
            guard let bundled = RoquaPaths.bundledData() else {
                throw Failure("the bundled boundary data was not found (looked beside the binary in ../share/roqua and in the "
                    + "source tree's data/); set ROQUA_DATA or pass --from DIR")
            }
            sources = [bundled]
        }
        let options = ImportOptions(sources: sources,
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
            throw error
        }
        Terminal.endStatus()
        let counts = AdminLevel.allCases.map { "\(report.counts[$0] ?? 0) \($0 == .country ? "countries" : $0.description + "s")" }
        print("Imported \(counts.joined(separator: ", ")) (\(report.pieces) indexed pieces), \(report.localities) localities")
        print(String(format: "Wrote %@ (%.1f MB) in %.1f s", report.output, Double(report.bytes) / 1e6, report.seconds))
        if !report.warnings.isEmpty { print("\(report.warnings.count) warning(s), shown above") }
    }
}
