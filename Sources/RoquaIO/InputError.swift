/// Malformed outside input (a track file, a batch of coordinates, an export being restored):
/// names the file and, where there is one, the line or record.
public struct InputError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The input's path as given; `-` stands for standard input.
    public var file: String
    /// The 1-based line or record number the problem is on, or `nil` when it concerns the whole input.
    public var line: Int?
    /// What is wrong, with any echoed value already quoted and capped by `Echo`.
    public var message: String

    /// Creates an error for `file`, at `line` when there is one.
    public init(file: String, line: Int?, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    /// `FILE: line N: MESSAGE` (or `FILE: MESSAGE` without a line), with `-` written as `stdin`.
    public var description: String {
        let name = file == "-" ? "stdin" : file
        if let line { return "\(name): line \(line): \(message)" }
        return "\(name): \(message)"
    }
}

extension InputError: InputFileError {
    public func renaming(_ path: String, as name: String) -> InputError {
        InputError(file: InputFileName.renamed(file, from: path, to: name), line: line, message: message)
    }
}

/// An error about an input file that names it by a field, so that it can be shown under another
/// name — an upload by the name it came under, not its temporary copy's path — by changing the
/// field, never by editing the words of the message.
public protocol InputFileError: Error, CustomStringConvertible, Sendable {
    /// The file the message names.
    var file: String { get }
    /// The same error naming `name` where it named `path` (see `InputFileName.renamed`).
    func renaming(_ path: String, as name: String) -> Self
}

/// How a file found under a path is named when the path is shown under another name.
public enum InputFileName {
    /// `name` for `path` itself; `name` and the rest for a file found in it (`path/day.gpx` in a
    /// folder, `path:day.gpx` in a zip archive); any other file unchanged.
    public static func renamed(_ file: String, from path: String, to name: String) -> String {
        guard !path.isEmpty, file.hasPrefix(path) else { return file }
        return name + file.dropFirst(path.count)
    }
}

/// Values from outside input as they appear in messages: quoted, and cut to `limit` characters
/// so a corrupt 8 MB field makes a one-line error, not an 8 MB one.
public enum Echo {
    public static let limit = 80

    public static func quoted(_ text: some StringProtocol) -> String {
        "\"" + visible(cut(text)) + "\""
    }

    /// Control characters and bidirectional overrides written as `\u{1B}`: a value from a file
    /// cannot move the cursor, recolour or reorder the terminal line that shows it.
    public static func visible(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.properties.generalCategory == .control || (0x202A...0x202E).contains(scalar.value)
                || (0x2066...0x2069).contains(scalar.value)
            {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    public static func quoted(bytes: some Collection<UInt8>) -> String {
        quoted(String(decoding: bytes.prefix(limit * 4), as: UTF8.self))
    }

    /// At most `limit` characters, with `…` and the full length when cut.
    public static func cut(_ text: some StringProtocol) -> String {
        var count = 0
        var end = text.startIndex
        while end < text.endIndex, count < limit {
            end = text.index(after: end)
            count += 1
        }
        guard end < text.endIndex else { return String(text) }
        return String(text[..<end]) + "… (\(text.utf8.count) bytes)"
    }
}
