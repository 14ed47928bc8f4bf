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

    /// A one-line status that rewrites itself; only on a terminal, never in pipes or logs.
    static func status(_ text: String) {
        guard isInteractive else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K\(text)".utf8))
    }

    static func endStatus() {
        guard isInteractive else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }
}
