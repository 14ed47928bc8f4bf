import Foundation

/// Matching names the way people type them: `istanbul`, `İSTANBUL`, `Istanbul` and
/// `İstanbul` are one name. Turkish dotted/dotless i fold to plain i; other marks are dropped.
package enum NameFolding {
    package static func fold(_ text: String) -> String {
        let dotless = text.replacingOccurrences(of: "ı", with: "i").replacingOccurrences(of: "İ", with: "I")
        return dotless.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .trimmingCharacters(in: .whitespaces)
    }
}
