import Foundation

/// The name a user gives themselves for their groups ("Ayşe", "Mehmet K."): 1–40 characters
/// (at most 160 bytes of UTF-8), in NFC, spaces trimmed and runs of them made one; no control,
/// format (such as right-to-left overrides or zero-width characters), private-use or unassigned
/// characters, no line breaks; and none of `:` `(` `)` `[` `]` `…`, which frame a sender where a
/// message is shown ("Ayşe (…87ab09): text"), so that a name cannot forge that frame.
///
/// Anyone may choose any name: it is a label, not an identity (the safety number is). Clients
/// compare names by `skeleton` and show the sender's short id beside any name another member's
/// could be mistaken for.
public struct DisplayName: ValidatedText, Hashable, CustomStringConvertible {
    /// The longest name, in characters (grapheme clusters).
    public static let maxCharacters = 40
    /// The longest name, in bytes of UTF-8.
    public static let maxBytes = 160
    /// The characters that frame a sender where a message is shown.
    public static let reserved: Set<Character> = [":", "(", ")", "[", "]", "…"]

    /// The name as stored and shown.
    public let text: String

    /// Checks `text` and puts it in its canonical form.
    /// - Throws: `DisplayNameError` naming the rule it breaks.
    public init(_ text: String) throws {
        let words = text.precomposedStringWithCanonicalMapping
            .split(whereSeparator: { $0 == " " || $0 == "\u{00A0}" || $0 == "\u{3000}" })
        let name = words.joined(separator: " ")
        guard !name.isEmpty else { throw DisplayNameError.empty }
        guard name.count <= Self.maxCharacters, name.utf8.count <= Self.maxBytes else {
            throw DisplayNameError.tooLong(characters: name.count, bytes: name.utf8.count)
        }
        if let scalar = name.unicodeScalars.first(where: Self.isForbidden) { throw DisplayNameError.forbiddenCharacter(scalar) }
        if let character = name.first(where: Self.reserved.contains) { throw DisplayNameError.reservedCharacter(character) }
        self.text = name
    }

    public var description: String { text }

    /// What names are compared by: case, accents, width, spaces and punctuation ignored, and
    /// common lookalikes (Cyrillic and Greek letters that look Latin, 0 and o, 1 and l and i,
    /// the dotless ı) made one. Deliberately broad: a false match only adds an id to a name.
    public var skeleton: String { Self.skeleton(text) }

    /// The skeleton of any text (for comparing a name with a word such as "me").
    public static func skeleton(_ text: String) -> String {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        var result = String.UnicodeScalarView()
        for scalar in folded.unicodeScalars {
            if scalar.properties.isWhitespace || CharacterSet.punctuationCharacters.contains(scalar)
                || CharacterSet.symbols.contains(scalar)
            {
                continue
            }
            result.append(lookalikes[scalar] ?? scalar)
        }
        return String(result)
    }

    /// `text` safe to echo in a message: each character a name may not hold as `\u{HEX}`
    /// (a refused name may hold terminal escapes).
    public static func visible(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if isForbidden(scalar) {
                result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .privateUse, .surrogate, .unassigned, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }

    /// Letters of other scripts that look like Latin ones (after case folding), and digits that look like letters.
    static let lookalikes: [Unicode.Scalar: Unicode.Scalar] = {
        let pairs: [(String, String)] = [
            ("а", "a"), ("в", "b"), ("е", "e"), ("ё", "e"), ("к", "k"), ("м", "m"), ("н", "h"), ("о", "o"), ("р", "p"),
            ("с", "c"), ("т", "t"), ("у", "y"), ("х", "x"), ("і", "i"), ("ї", "i"), ("ј", "j"), ("ѕ", "s"), ("ԁ", "d"), ("ӏ", "i"),
            ("α", "a"), ("β", "b"), ("ε", "e"), ("η", "n"), ("ι", "i"), ("κ", "k"), ("ν", "v"), ("ο", "o"), ("ρ", "p"),
            ("τ", "t"), ("υ", "u"), ("χ", "x"), ("ı", "i"), ("l", "i"), ("1", "i"), ("|", "i"), ("0", "o"), ("5", "s"),
        ]
        var map: [Unicode.Scalar: Unicode.Scalar] = [:]
        for (from, to) in pairs {
            if let key = from.unicodeScalars.first, let value = to.unicodeScalars.first { map[key] = value }
        }
        return map
    }()
}

/// Why a display name is refused.
public enum DisplayNameError: Error, Sendable, Equatable, CustomStringConvertible {
    case empty
    case tooLong(characters: Int, bytes: Int)
    case forbiddenCharacter(Unicode.Scalar)
    case reservedCharacter(Character)

    public var description: String {
        switch self {
        case .empty:
            "a display name needs at least one visible character"
        case .tooLong(let characters, let bytes):
            "a display name has at most \(DisplayName.maxCharacters) characters and \(DisplayName.maxBytes) bytes (this one: \(characters), \(bytes))"
        case .forbiddenCharacter(let scalar):
            "a display name may not hold control, format or invisible characters (U+\(String(scalar.value, radix: 16, uppercase: true)))"
        case .reservedCharacter(let character):
            "a display name may not hold \(character) (one of \(DisplayName.reserved.sorted().map(String.init).joined(separator: " ")), which frame a sender where messages are shown)"
        }
    }
}
