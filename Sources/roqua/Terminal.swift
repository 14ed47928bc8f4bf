import ArgumentParser
import Foundation

/// A library error shown as its own message on stderr, with exit status 1.
struct Failure: Error, CustomStringConvertible {
    let message: String
    init(_ error: any Error) { message = String(describing: error) }
    init(message: String) { self.message = message }
    var description: String { message }
}

/// Runs `body`, turning library errors into their message on stderr and exit status 1.
func failing<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as Failure { throw error } catch let error as ExitCode { throw error } catch {
        throw Failure(error)
    }
}

enum Terminal {
    static let isInteractive = isatty(STDERR_FILENO) == 1

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
