import Foundation
import RoquaBoundaries
import RoquaIO
import RoquaServeInput

/// The row-by-row engine of `POST /reverse/batch`: the lines `BatchLines` reads are resolved and
/// answered as NDJSON, one `BatchAnswerLine` per row, in order.
struct BatchStream {
    private let answers: BatchAnswers
    private var lines: BatchLines

    init(resolvers: ResolverPool, language: Language, format: BatchLines.Format?) {
        answers = BatchAnswers(resolvers: resolvers, language: language)
        lines = BatchLines(format: format)
    }

    /// Consumes a chunk; complete lines are answered into `output`.
    mutating func feed(_ bytes: some Sequence<UInt8>, into output: inout [UInt8]) {
        let answers = answers  // read while `lines` changes: a copy of two references, not of the line buffer
        lines.feed(bytes) { answers.answer($0, into: &output) }
    }

    /// The last line, when the input does not end with a line break.
    mutating func finish(into output: inout [UInt8]) {
        let answers = answers
        lines.finish { answers.answer($0, into: &output) }
    }
}

/// One line of `POST /reverse/batch`'s answer: `{"row":N,"id":…,` then the members of
/// `ResolutionAnswer` (`"lat":…,"lon":…,"country":…,…}`), or `{"row":N,"error":"…"}`.
struct BatchAnswerLine: OrderedJSON {
    enum Outcome {
        case answer(ResolutionAnswer)
        case failure(String)
    }

    let row: Int
    /// The client's id, sent back with an answer.
    let id: BatchLines.RowID?
    let outcome: Outcome

    func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: JSONKey.self)
        try object.encode(row, forKey: "row")
        switch outcome {
        case let .answer(answer):
            try object.encodeIfPresent(id, forKey: "id")
            try answer.encodeMembers(into: &object)
        case let .failure(message):
            try object.encode(message, forKey: "error")
        }
    }
}

/// One NDJSON answer per row: the resolution, or the row's error.
private struct BatchAnswers {
    let resolvers: ResolverPool
    let language: Language

    func answer(_ row: BatchLines.Row, into output: inout [UInt8]) {
        switch row {
        case let .failure(number, message):
            write(BatchAnswerLine(row: number, id: nil, outcome: .failure(message)), into: &output)
        case let .point(number, coordinate, id):
            let outcome: BatchAnswerLine.Outcome
            do {
                outcome = .answer(ResolutionAnswer(try resolvers.resolve(coordinate), language: language))
            } catch let error as ResolveError {
                outcome = .failure(error.description)
            } catch {
                outcome = .failure("resolver failed: \(type(of: error))")
            }
            write(BatchAnswerLine(row: number, id: id, outcome: outcome), into: &output)
        }
    }

    private func write(_ line: BatchAnswerLine, into output: inout [UInt8]) {
        let start = output.count
        do {
            try OrderedJSONEncoder().encode(line, appendingTo: &output)
        } catch {
            // Only a non-finite number could fail, and a resolved answer has none: say so in the row's place.
            output.removeSubrange(start...)
            try? OrderedJSONEncoder().encode(
                BatchAnswerLine(row: line.row, id: nil, outcome: .failure("the answer cannot be written as JSON")),
                appendingTo: &output)
        }
        output.append(UInt8(ascii: "\n"))
    }
}
