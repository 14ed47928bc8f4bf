import RoquaIO
import Testing

/// A value from outside input shown in a message: cut, quoted, and unable to steer the terminal.
@Suite struct EchoTests {
    @Test func controlCharactersAndBidiOverridesAreShownNotObeyed() {
        #expect(Echo.quoted("abc\u{1B}[2J\u{07}x") == #""abc\u{1B}[2J\u{7}x""#)
        #expect(Echo.quoted("a\u{202E}b\u{2066}c") == #""a\u{202E}b\u{2066}c""#)
        #expect(Echo.quoted("line\nnext\r\u{85}") == #""line\u{A}next\u{D}\u{85}""#)
        #expect(Echo.quoted("İstanbul, Kadıköy 40°59′") == "\"İstanbul, Kadıköy 40°59′\"")
        let long = Echo.quoted(String(repeating: "x", count: 100))
        #expect(long.hasPrefix("\"" + String(repeating: "x", count: 80) + "… (100 bytes)"))
    }
}
