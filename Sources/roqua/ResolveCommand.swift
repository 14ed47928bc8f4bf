import ArgumentParser
import Foundation
import RoquaBatch
import RoquaBoundaries
import RoquaCommandLine
import RoquaCommandOptions
import RoquaIO

struct ResolveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Resolve coordinates to country / province / district, offline.",
        discussion: """
            One point: roqua resolve 40.9879 29.0281, or "40.9879,29.0281" as map apps copy it, or \
            40°59'16"N 29°01'41"E (negative values work as they are: roqua resolve -33.92 18.42). Many points: roqua resolve --input FILE|- reads CSV \
            (lat,lon columns, header optional) or NDJSON ({"lat":…,"lon":…} per line) or a GeoJSON \
            FeatureCollection of points, and streams the answers in input order. A bad row keeps its \
            place with empty answer columns and the reason in a last "error" column, and is reported on stderr \
            with its row number; the rest goes on, and the exit status is 2 when any row failed.
            """
    )

    @Argument(
        help: ArgumentHelp(
            "The point: LAT LON (40.9879 29.0281, latitude -90…90 first), \"LAT,LON\" as map apps copy it, "
                + "or degrees, minutes and seconds (40°59'16\"N 29°01'41\"E).", valueName: "COORDINATE"))
    var coordinate: [String] = []

    @OptionGroup var boundaryOptions: BoundaryOptions

    @Flag(help: "Print JSON.")
    var json = false

    @Option(help: "Names in this language: local, en or tr.")
    var lang: Language = .local

    @Option(help: ArgumentHelp("A file of coordinates, or - for standard input.", valueName: "FILE|-"))
    var input: String?

    @Option(help: "Output format for --input: csv, ndjson or geojson (default: the input's own).")
    var format: BatchFormat?

    @Option(help: ArgumentHelp("Where batch output goes (default: standard output).", valueName: "FILE|-"))
    var output: String?

    @Flag(
        inversion: .prefixedNo,
        help:
            "Each answer's locality (GeoNames town or city): the last part of one answer, a \"locality\" CSV column or JSON key in a batch. --no-locality leaves it out (a batch is then faster)."
    )
    var locality = true

    @Flag(
        help:
            "For --input: leave bad rows out of the output instead of keeping each in its place with empty answer columns and the reason in a last \"error\" column (or \"error\" key)."
    )
    var dropBadRows = false

    @Option(
        help:
            "Fall back to the nearest boundary within this many metres, 0…50000 (0 turns it off; up to 1000 is answered from the precomputed cells)."
    )
    var fallbackMeters = OptionNumber<Double>(1000)

    @Option(help: "Worker threads for --input, 1…256; the default is one per core.")
    var workers = OptionNumber<Int>(ProcessInfo.processInfo.activeProcessorCount)

    func validate() throws {
        if input == nil, coordinate.isEmpty { throw ValidationError("give LAT LON, or --input FILE|-") }
        if input != nil, !coordinate.isEmpty { throw ValidationError("give either LAT LON or --input, not both") }
        if input == nil { _ = try point() }
        guard (1...BatchOptions.maxWorkers).contains(workers.value) else {
            throw ValidationError("--workers must be between 1 and \(BatchOptions.maxWorkers), not \(workers)")
        }
        guard fallbackMeters.value.isFinite, (0...BatchOptions.maxFallbackMeters).contains(fallbackMeters.value) else {
            throw ValidationError(
                "--fallback-meters must be a distance between 0 and \(Int(BatchOptions.maxFallbackMeters)) metres, not \(fallbackMeters)")
        }
    }

    func run() throws {
        let index = try ResolverIndex(database: boundaryOptions.open())
        if let input { return try runBatch(index: index, input: input) }
        let (latitude, longitude) = try point()
        let resolution = try Resolver(index: index, fallbackMeters: fallbackMeters.value).resolve(latitude: latitude, longitude: longitude)
        let answer = locality ? try index.withLocality(resolution) : resolution
        print(json ? answer.json(language: lang) : answer.text(language: lang))
    }

    /// The point the arguments name, in any of the forms `CoordinateText` reads.
    private func point() throws -> (latitude: Double, longitude: Double) {
        do {
            return try CoordinateText.parse(coordinate.joined(separator: " "))
        } catch {
            throw ValidationError(error.description)
        }
    }

    private func runBatch(index: ResolverIndex, input: String) throws {
        let options = BatchOptions(
            language: lang, output: format, workers: workers.value, fallbackMeters: fallbackMeters.value,
            locality: locality, keepBadRows: !dropBadRows)
        let summary: BatchSummary
        do {
            summary = try BatchRunner.run(index: index, input: input, output: output ?? "-", options: options) { event in
                switch event {
                case let .rowError(error): RoquaProgram.error(error.description)
                case let .progress(rows, fraction):
                    Terminal.status(fraction.map { String(format: "%d rows (%.0f%%)", rows, $0 * 100) } ?? "\(rows) rows")
                }
            }
        } catch {
            Terminal.endStatus()
            throw error
        }
        Terminal.endStatus()
        if summary.failed > 0 {
            RoquaProgram.error("\(summary.failed) of \(summary.rows) rows failed (see above)")
            throw ExitCode(2)
        }
    }
}

extension Language: ExpressibleByArgument {}

/// A coordinate argument; accepts the marked form of a negative number (see `RoquaCommand.main`).
struct Degrees: ExpressibleByArgument {
    let value: Double

    init?(argument: String) {
        guard let value = Double(NegativeNumberMark.unmark(argument)) else { return nil }
        self.value = value
    }

    static func protectingNegativeNumber(_ argument: String) -> String { NegativeNumberMark.protect(argument) }
}
extension BatchFormat: ExpressibleByArgument {}

/// A numeric option that also takes the marked form of a negative number (see `Degrees`), so a
/// value like `-5` reaches the range check and its clear message instead of failing to parse.
struct OptionNumber<Value: LosslessStringConvertible & Sendable>: ExpressibleByArgument, CustomStringConvertible {
    let value: Value

    init(_ value: Value) { self.value = value }

    init?(argument: String) {
        let text = NegativeNumberMark.unmark(argument)
        guard let value = Value(text) else { return nil }
        self.value = value
    }

    var description: String { value.description }
}
