import ArgumentParser
import Foundation

/// A message of the command's own (not a library error), shown on stderr as every error a
/// command throws is (`error: <description>`, see `RoquaProgram`) with exit status 1.
struct Failure: Error, CustomStringConvertible, Sendable {
    let description: String
    init(_ description: String) { self.description = description }
}

enum Terminal {
    static let isInteractive = isatty(STDERR_FILENO) == 1

    /// A line on standard error as it is. Only `ImportCommand` still calls it (with its own
    /// `warning: `); it goes when that command warns through `RoquaProgram.warn`, as every
    /// other command prints its errors, warnings and notes.
    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// A one-line status that rewrites itself; only on a terminal, never in pipes or logs.
    static func status(_ text: String) {
        guard isInteractive else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K\(text)".utf8))
    }

    static func endStatus() {
        guard isInteractive else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }

    /// Pretty, sorted, snake_case JSON; dates as ISO 8601 in `dates` (UTC by default).
    static func printJSON<T: Encodable>(_ value: T, dates: TimeZone = TimeZone(identifier: "UTC")!) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let style = Date.ISO8601FormatStyle(timeZone: dates)
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(style.format(date))
        }
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}
