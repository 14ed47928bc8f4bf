/// A value that travels as one validated string (a phone number, a day): decoding runs the
/// same validation as the initializer, and a refusal becomes a `DecodingError` naming the field.
public protocol ValidatedText: Codable, Sendable {
    /// Parses and validates `text`.
    /// - Throws: the type's own error naming the text.
    init(_ text: String) throws
    /// The canonical text.
    var text: String { get }
}

extension ValidatedText {
    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(raw)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "\(error)"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}
