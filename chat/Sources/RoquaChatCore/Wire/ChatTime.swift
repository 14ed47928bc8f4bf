import Foundation
import RoquaIO

/// Timestamps on the wire are ISO 8601 in UTC with milliseconds (`2025-05-01T09:30:00.125Z`);
/// the server keeps whole milliseconds since 1970, and signatures cover that integer, so both
/// sides must round through `milliseconds(_:)`.
public enum ChatTime {
    /// Whole milliseconds since 1970 (rounded to the nearest).
    public static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// The date `milliseconds` after 1970.
    public static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// `date` rounded to whole milliseconds, as the server will store it.
    public static func rounded(_ date: Date) -> Date {
        self.date(milliseconds: milliseconds(date))
    }

    /// `2025-05-01T09:30:00.125Z`. The formatter truncates the fraction, and a whole
    /// millisecond is rarely exact in binary (…907.9999 would print as .907, and a signature
    /// over 908 would then fail), so it formats a point a fraction of a millisecond later.
    public static func format(_ date: Date) -> String {
        Date(timeIntervalSince1970: (Double(milliseconds(date)) + 0.25) / 1000).formatted(withMilliseconds)
    }

    /// Parses ISO 8601 with or without fractional seconds; `nil` when it is neither.
    public static func parse(_ text: String) -> Date? {
        if let date = try? withMilliseconds.parse(text) { return date }
        return try? withoutFraction.parse(text)
    }

    private static let withMilliseconds = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
    private static let withoutFraction = Date.ISO8601FormatStyle(timeZone: .gmt)
}

/// JSON coders with the wire's conventions: snake_case keys are spelled out in `CodingKeys`,
/// dates as `ChatTime` text.
public enum ChatJSON {
    /// An encoder for request and response bodies (keys sorted, so that output is stable).
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ChatTime.format(date))
        }
        return encoder
    }

    /// A decoder for request and response bodies.
    public static func decoder() -> CheckedJSONDecoder {
        let decoder = CheckedJSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = ChatTime.parse(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "'\(text)' is not an ISO 8601 time such as 2025-05-01T09:30:00.125Z")
            }
            return date
        }
        return decoder
    }
}
