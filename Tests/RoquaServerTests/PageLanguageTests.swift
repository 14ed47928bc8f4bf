import Foundation
import RoquaRegions
import Testing

@testable import RoquaServer

/// The page for a new user: its file picker offers every format the importer reads, and the
/// sign-in form speaks the browser's language (the page itself follows `navigator.languages`,
/// checked in Chromium by scripts/checks/browser-test.sh).
@Suite struct PageLanguageTests {
    @Test func thePickerOffersEveryFormatTheImporterReads() async throws {
        let server = try await SharedServer.get()
        let page = try await server.get("/").text
        let accept = try #require(page.firstMatch(of: /id="file" type="file" multiple accept="([^"]*)"/)?.1)
        let offered = Set(accept.split(separator: ",").map(String.init))
        for name in TrackInputs.trackExtensions.union(TrackInputs.archiveExtensions).union(["gz"]) {
            #expect(offered.contains("." + name), "the picker hides .\(name): \(accept)")
        }
        #expect(offered.isSuperset(of: [".fit", ".tcx", ".kml", ".kmz", ".zip", ".gz"]))
    }

    @Test func acceptLanguagePicksTurkishOrEnglish() {
        typealias L = StaticAssets.PageLanguage
        #expect(L.preferred(nil) == .en)
        #expect(L.preferred("tr-TR,tr;q=0.9,en-US;q=0.8,en;q=0.7") == .tr)
        #expect(L.preferred("de-DE,de;q=0.9,en;q=0.5,tr;q=0.4") == .en)
        #expect(L.preferred("en;q=0.2, TR;q=0.8") == .tr)
        #expect(L.preferred("fr, de") == .en)
        #expect(L.preferred("tr;q=0, en") == .en)  // q=0: not acceptable
        #expect(L.preferred(String(repeating: "x;q=1,", count: 10_000) + "tr") == .en)  // only the first 32 are read
    }

    /// The page is one document in either `<html lang>` (app.js puts its words in, following the
    /// browser or the switch); every `data-i18n` key it carries has a text in both languages.
    @Test func thePageIsMarkedInTheBrowsersLanguage() async throws {
        let server = try await SharedServer.get()
        let turkish = try await server.get("/", headers: ["Accept-Language": "tr-TR,tr;q=0.9,en;q=0.5"])
        #expect(turkish.text.contains(#"<html lang="tr">"#) && turkish.headers["vary"]?.contains("Accept-Language") == true)
        let english = try await server.get("/", headers: ["Accept-Language": "en-US,en;q=0.9"])
        #expect(english.text.contains(#"<html lang="en">"#) && !english.text.contains("{{"))
        #expect(try TestServer.pageToken(english.text) == TestServer.pageToken(turkish.text))
        let script = try await server.get("/app.js").text
        let keys = Set(english.text.matches(of: /data-i18n(?:-label)?="([A-Za-z]+)"/).map { String($0.1) })
        #expect(keys.count >= 20, "\(keys)")
        for language in ["tr", "en"] {
            let table = try #require(script.firstMatch(of: try Regex("\\n  \(language): \\{([^}]*)\\}"))?.output[1].substring)
            let defined = Set(table.matches(of: /([A-Za-z]+): '/).map { String($0.1) })
            #expect(keys.subtracting(defined).isEmpty, "\(language) lacks \(keys.subtracting(defined).sorted())")
        }
    }

    @Test func theSignInFormSpeaksTheBrowsersLanguage() async throws {
        let server = try await SharedServer.get()
        let turkish = try await server.get("/login", headers: ["Accept-Language": "tr-TR,tr;q=0.9"])
        #expect(turkish.status == 200 && turkish.text.contains(#"<html lang="tr">"#) && turkish.text.contains("Giriş"))
        #expect(turkish.headers["vary"]?.contains("Accept-Language") == true)
        let english = try await server.get("/login", headers: ["Accept-Language": "en-GB"])
        #expect(english.text.contains(#"<html lang="en">"#) && english.text.contains("Sign in") && !english.text.contains("{{"))
    }
}
