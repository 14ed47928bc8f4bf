import Foundation

extension RoquaProgram {
    /// The encoder of every JSON document `roqua` and `roqua-serve` print (one Codable type per
    /// answer, written by this one encoder): pretty, keys sorted and in snake_case, `/` left
    /// unescaped, dates as ISO 8601 in `dates` (UTC unless a command counts days in another zone).
    public static func jsonEncoder(dates: TimeZone = TimeZone(identifier: "UTC")!) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let style = Date.ISO8601FormatStyle(timeZone: dates)
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(style.format(date))
        }
        return encoder
    }

    /// Prints `value` on standard output as `jsonEncoder(dates:)` writes it.
    /// - Throws: `EncodingError` when a value cannot be encoded (a NaN).
    public static func printJSON<T: Encodable>(_ value: T, dates: TimeZone = TimeZone(identifier: "UTC")!) throws {
        print(String(decoding: try jsonEncoder(dates: dates).encode(value), as: UTF8.self))
    }
}
