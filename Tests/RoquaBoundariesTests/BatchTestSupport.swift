import Foundation
import RoquaBoundaries
import RoquaTestSupport
import Testing

/// What a run of the `roqua` binary gave back.
struct CLIResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// The built `roqua` binary with `resolve --boundaries <bundled DB>` in front of the arguments.
enum BatchCLI {
    static var executable: String { ProductsDirectory.product("roqua") }

    /// Runs `roqua resolve --boundaries DB arguments…`; stdin is empty, or the file `stdin`.
    static func resolve(_ arguments: [String], stdin: String? = nil) throws -> CLIResult {
        try #require(FileManager.default.isExecutableFile(atPath: executable),
                     "no roqua executable beside the test bundle at \(executable)")
        let all = ["resolve", "--boundaries", try Bundled.path()] + arguments
        guard let stdin else {
            let result = try CommandRunner.run(executable, all)
            return CLIResult(status: result.status, stdout: result.stdout, stderr: result.stderr)
        }
        return try run(executable, all, stdin: stdin)
    }

    /// `CommandRunner.run` with standard input read from the file `stdin` (opened on fd 0 by
    /// posix_spawn_file_actions_addopen), stdout and stderr to temporary files.
    static func run(_ executable: String, _ arguments: [String], stdin: String) throws -> CLIResult {
        let directory = try TempDirectory("roqua-run-stdin")
        let outPath = directory.file("stdout"), errPath = directory.file("stderr")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let env = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
        var argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, &argv, &envp)
        guard spawned == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: executable, "errno": spawned])
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return CLIResult(status: exitStatus,
                         stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
                         stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
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
                if characters.first == "\"" { field.append("\""); characters.removeFirst() } else { quoted = false }
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
