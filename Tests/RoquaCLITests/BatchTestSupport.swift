import Foundation
import RoquaBatch
import RoquaBoundaries
import RoquaTestSupport
import Testing

typealias CLIResult = CommandResult

/// The built `roqua` binary with `resolve --boundaries <bundled DB>` in front of the arguments.
enum BatchCLI {
    static var executable: String { ProductsDirectory.product("roqua") }

    /// Runs `roqua resolve --boundaries DB arguments…`; stdin is empty, or the file `stdin`.
    static func resolve(_ arguments: [String], stdin: String? = nil) throws -> CLIResult {
        try #require(
            FileManager.default.isExecutableFile(atPath: executable),
            "no roqua executable beside the test bundle at \(executable)")
        return try CommandRunner.run(executable, ["resolve", "--boundaries", try Bundled.path()] + arguments, stdin: stdin)
    }

    /// As `resolve`, with the answers' seven columns only and bad rows left out (`--no-locality
    /// --drop-bad-rows`): what `BatchRunner` gives with `BatchOptions`' defaults, so the two can be
    /// compared byte for byte. The CLI's defaults are tested in `ResolveBadRowsCLITests` and
    /// `ResolveLocalityCLITests`.
    static func resolvePlain(_ arguments: [String], stdin: String? = nil) throws -> CLIResult {
        try resolve(arguments + ["--no-locality", "--drop-bad-rows"], stdin: stdin)
    }
}

/// What `BatchRunner.run` gave back: the output file's text and every event.
struct LibraryRun {
    var output: String
    var errors: [BatchRowError]
    var progress: [(rows: Int, fraction: Double?)]
    var summary: BatchSummary
}

/// A scratch directory for batch inputs and outputs, removed with the object.
final class BatchScratch {
    let directory: TempDirectory
    private var outputs = 0

    init() throws { directory = try TempDirectory("roqua-batch") }

    /// Writes `text` (UTF-8, byte for byte) to `name` in the scratch directory; returns its path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let path = directory.file(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func path(_ name: String) -> String { directory.file(name) }

    /// Runs the library batch on `input`, output to a fresh file in the scratch directory.
    func runLibrary(_ input: String, _ options: BatchOptions = BatchOptions()) throws -> LibraryRun {
        outputs += 1
        let output = directory.file("library-out-\(outputs)")
        var errors: [BatchRowError] = []
        var progress: [(rows: Int, fraction: Double?)] = []
        let summary = try BatchRunner.run(index: Bundled.index(), input: input, output: output, options: options) { event in
            switch event {
            case let .rowError(error): errors.append(error)
            case let .progress(rows, fraction): progress.append((rows, fraction))
            }
        }
        let text = try String(contentsOfFile: output, encoding: .utf8)
        return LibraryRun(output: text, errors: errors, progress: progress, summary: summary)
    }
}

/// RFC 4180 fields of one CSV line, written independently of the code under test.
func csvFields(_ line: String) -> [String] {
    var fields: [String] = [], field = "", quoted = false
    var characters = Array(line)[...]
    while let ch = characters.popFirst() {
        if quoted {
            if ch == "\"" {
                if characters.first == "\"" {
                    field.append("\"")
                    characters.removeFirst()
                } else {
                    quoted = false
                }
            } else {
                field.append(ch)
            }
        } else if ch == "\"" {
            quoted = true
        } else if ch == "," {
            fields.append(field)
            field = ""
        } else {
            field.append(ch)
        }
    }
    fields.append(field)
    return fields
}

/// Lines of an output text that ends with a newline (the trailing empty piece dropped).
func outputLines(_ text: String) -> [String] {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if lines.last == "" { lines.removeLast() }
    return lines
}

/// The seven columns the batch appends to a CSV row, as the resolver gives them.
func resultColumns(_ answer: Resolution, language: Language = .local) -> [String] {
    var columns: [String] = []
    for unit in [answer.country, answer.province, answer.district] {
        columns += [unit?.code ?? "", unit?.name(language: language) ?? ""]
    }
    return columns + [answer.approximate ? "true" : "false"]
}

/// A JSON object from one line of text, or nil.
func jsonObject(_ text: String) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
}

/// A JSON value as text with sorted keys, to compare parsed documents.
func canonicalJSON(_ value: Any) throws -> String {
    String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]), as: UTF8.self)
}
