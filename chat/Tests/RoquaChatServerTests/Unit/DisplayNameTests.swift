import Foundation
import RoquaChatCore
import Testing

@Suite("Display names: what a name may hold, and which names could be mistaken for each other")
struct DisplayNameTests {
    @Test("canonical form: NFC, trimmed, inner spaces as one")
    func canonical() throws {
        #expect(try DisplayName("  Ays\u{0327}e \u{00A0} Yılmaz ").text == "Ayşe Yılmaz")
        #expect(try DisplayName("Ayşe 😀\u{FE0F}").text == "Ayşe 😀\u{FE0F}")
    }

    @Test("refused, each with its rule")
    func refused() {
        #expect(throws: DisplayNameError.empty) { try DisplayName(" \u{3000} ") }
        #expect(throws: DisplayNameError.tooLong(characters: 41, bytes: 41)) { try DisplayName(String(repeating: "a", count: 41)) }
        #expect(throws: DisplayNameError.tooLong(characters: 40, bytes: 280)) { try DisplayName(String(repeating: "😀\u{FE0F}", count: 40)) }
        #expect(throws: DisplayNameError.forbiddenCharacter("\u{1B}")) { try DisplayName("a\u{1B}[31mb") }
        #expect(throws: DisplayNameError.forbiddenCharacter("\u{202E}")) { try DisplayName("a\u{202E}b") }
        #expect(throws: DisplayNameError.forbiddenCharacter("\u{200B}")) { try DisplayName("Ay\u{200B}şe") }
        #expect(throws: DisplayNameError.forbiddenCharacter("\u{200D}")) { try DisplayName("👩\u{200D}👧 Aile") }
        #expect(throws: DisplayNameError.forbiddenCharacter("\n")) { try DisplayName("Ayşe\nMehmet: hi") }
        for reserved in ["Ahmet (guide)", "Ayşe: hi", "…87ab09", "[admin]"] {
            #expect(throws: DisplayNameError.self) { try DisplayName(reserved) }
        }
        #expect(DisplayName.visible("a\u{1B}b") == #"a\u{1B}b"#)
    }

    @Test("skeletons: case, accents, spacing, punctuation and lookalike letters ignored; different names differ")
    func skeletons() throws {
        let ahmet = try DisplayName("Ahmet Bey").skeleton
        for twin in ["ahmet bey", "AHMET-BEY", "Ahmét Bey", "\u{0410}hm\u{0435}t Bey", "Ahmet B\u{0435}y", "Ahmet.Bey"] {
            #expect(try DisplayName(twin).skeleton == ahmet, "\(twin)")
        }
        #expect(try DisplayName("Ayşe").skeleton == (try DisplayName("AYSE").skeleton))
        #expect(try DisplayName("Alı").skeleton == (try DisplayName("AL1").skeleton))
        #expect(try DisplayName("Mehmet").skeleton != ahmet)
        #expect(try DisplayName("Me").skeleton == DisplayName.skeleton("me"))
    }
}
