import Foundation
import RoquaBoundaries
import RoquaIO
import RoquaServeInput

/// The row-by-row engine of `POST /reverse/batch`: the lines `BatchLines` reads are resolved and
/// answered as NDJSON, one object per row, in order.
struct BatchStream {
    private let answers: BatchAnswers
    private var lines: BatchLines

    init(resolvers: ResolverPool, language: Language, format: BatchLines.Format?) {
        answers = BatchAnswers(resolvers: resolvers, language: language)
        lines = BatchLines(format: format)
    }

    /// Consumes a chunk; complete lines are answered into `output`.
    mutating func feed(_ bytes: some Sequence<UInt8>, into output: inout String) {
        let answers = answers  // read while `lines` changes: a copy of two references, not of the line buffer
        lines.feed(bytes) { answers.answer($0, into: &output) }
    }

    /// The last line, when the input does not end with a line break.
    mutating func finish(into output: inout String) {
        let answers = answers
        lines.finish { answers.answer($0, into: &output) }
    }
}

/// One NDJSON answer per row: the resolution, or the row's error.
private struct BatchAnswers {
    let resolvers: ResolverPool
    let language: Language

    func answer(_ row: BatchLines.Row, into output: inout String) {
        switch row {
        case let .failure(number, message):
            fail(row: number, message, into: &output)
        case let .point(number, coordinate, id):
            do {
                let resolution = try resolvers.resolve(coordinate)
                output += "{\"row\":\(number)" + (id.map { ",\"id\":" + $0 } ?? "") + "," + resolution.json(language: language).dropFirst() + "\n"
            } catch let error as ResolveError {
                fail(row: number, error.description, into: &output)
            } catch {
                fail(row: number, "resolver failed: \(type(of: error))", into: &output)
            }
        }
    }

    private func fail(row: Int, _ message: String, into output: inout String) {
        output += "{\"row\":\(row),\"error\":\(JSONText.quote(message))}\n"
    }
}
