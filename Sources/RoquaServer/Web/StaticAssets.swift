import Foundation
import Hummingbird
import RoquaRegions

/// The page's files: Roqua's own (compiled into the binary) and Leaflet's (read once at start
/// from Debian's `libjs-leaflet` or a copy installed beside Roqua). Requests are looked up by
/// exact name in this fixed table, so no path (`..`, `%2e%2e`, symlinks) can reach another file.
struct StaticAssets: Sendable {
    struct Asset: Sendable {
        var bytes: [UInt8]
        var contentType: String
        var cacheControl: String
    }

    let files: [String: Asset]
    /// Where Leaflet was found.
    let leafletDirectory: String

    /// Where Leaflet is looked for when `--leaflet` is not given.
    static func leafletCandidates(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        var candidates: [String] = []
        if let path = environment["ROQUA_LEAFLET"], !path.isEmpty { candidates.append(path) }
        let binary = Bundle.main.executableURL ?? URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        candidates.append(
            binary.resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("share/roqua/leaflet").path)
        candidates.append("/usr/share/javascript/leaflet")
        return candidates
    }

    /// `csrfToken` is written into the page (`<meta name="roqua-csrf">`), which only pages of this
    /// server's own origin can read. The page comes in both languages' `<html lang>` (its words
    /// are put in by app.js, which follows the browser); the picker's list is the importer's.
    /// - Throws: `ServerError.leafletMissing` naming every place looked in.
    /// `signOut`: the page shows a sign-out button (a server with a token).
    init(leaflet: String?, csrfToken: String, signOut: Bool) throws {
        let candidates = leaflet.map { [$0] } ?? Self.leafletCandidates()
        guard
            let directory = candidates.first(where: {
                FileManager.default.fileExists(atPath: ($0 as NSString).appendingPathComponent("leaflet.js"))
            })
        else { throw ServerError.leafletMissing(searched: candidates) }
        leafletDirectory = directory
        var files: [String: Asset] = [
            "index.html": Self.index(.en, csrfToken: csrfToken, signOut: signOut),
            "index.tr.html": Self.index(.tr, csrfToken: csrfToken, signOut: signOut),
            "login.html": Self.login(.en),
            "login.tr.html": Self.login(.tr),
            "app.js": Asset(bytes: PackageResources.app_js, contentType: "text/javascript; charset=utf-8", cacheControl: "no-cache"),
            "app.css": Asset(bytes: PackageResources.app_css, contentType: "text/css; charset=utf-8", cacheControl: "no-cache"),
        ]
        // Leaflet's marker images are optional (the page draws no markers): no folder, no images.
        let leafletFiles =
            ["leaflet.js", "leaflet.css"]
            + ((try? FileManager.default.contentsOfDirectory(atPath: directory + "/images")) ?? []).sorted().map { "images/" + $0 }
        for name in leafletFiles where Self.contentType(name) != nil {
            let path = (directory as NSString).appendingPathComponent(name)
            // Read through symlinks (Debian links some files); a file that cannot be read is simply not served.
            guard let data = FileManager.default.contents(atPath: path), let type = Self.contentType(name) else { continue }
            files["leaflet/" + name] = Asset(bytes: Array(data), contentType: type, cacheControl: "public, max-age=86400")
        }
        self.files = files
    }

    /// The languages the pages are written in.
    enum PageLanguage: String, Sendable {
        case en, tr

        /// The first of Turkish and English an `Accept-Language` header prefers (by q-value, then
        /// order); English when it names neither or there is no header.
        static func preferred(_ header: String?) -> PageLanguage {
            guard let header else { return .en }
            var best: (language: PageLanguage, q: Double)?
            for item in header.split(separator: ",").prefix(32) {
                let parts = item.split(separator: ";")
                let tag = parts.first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
                guard let language = PageLanguage(rawValue: String(tag.split(separator: "-").first ?? "")) else { continue }
                var q = 1.0
                for parameter in parts.dropFirst() {
                    let pair = parameter.trimmingCharacters(in: .whitespaces)
                    if pair.hasPrefix("q="), let value = Double(pair.dropFirst(2)), value.isFinite { q = min(1, max(0, value)) }
                }
                if q > 0, q > (best?.q ?? 0) { best = (language, q) }
            }
            return best?.language ?? .en
        }
    }

    /// The page for a browser preferring `language`.
    static func index(_ language: PageLanguage, csrfToken: String, signOut: Bool) -> Asset {
        let form =
            #"<form method="post" action="/logout"><button type="submit" data-i18n="signOut">"#
            + (language == .tr ? "Çıkış" : "Sign out") + "</button></form>"
        let page = String(decoding: PackageResources.index_html, as: UTF8.self)
            .replacingOccurrences(of: "{{signOut}}", with: signOut ? form : "")
            .replacingOccurrences(of: "{{lang}}", with: language.rawValue)
            .replacingOccurrences(of: "{{csrf}}", with: csrfToken)
            .replacingOccurrences(of: "{{accept}}", with: TrackInputs.pickerExtensions.joined(separator: ","))
        return Asset(bytes: Array(page.utf8), contentType: "text/html; charset=utf-8", cacheControl: "no-store")
    }

    /// The sign-in form in `language`.
    static func login(_ language: PageLanguage) -> Asset {
        let texts: [String: String] =
            language == .tr
            ? [
                "lang": "tr", "signIn": "Giriş", "token": "Anahtar",
                "needsToken": "Bu sunucu anahtarını istiyor (<code>roqua serve --token</code> ile verilen).",
            ]
            : [
                "lang": "en", "signIn": "Sign in", "token": "Token",
                "needsToken": "This server needs its token (the one given to <code>roqua serve --token</code>).",
            ]
        var page = String(decoding: PackageResources.login_html, as: UTF8.self)
        for (key, value) in texts { page = page.replacingOccurrences(of: "{{\(key)}}", with: value) }
        return Asset(bytes: Array(page.utf8), contentType: "text/html; charset=utf-8", cacheControl: "no-cache")
    }

    static func contentType(_ name: String) -> String? {
        switch (name as NSString).pathExtension {
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "png": "image/png"
        case "svg": "image/svg+xml"
        default: nil
        }
    }

    func response(for name: String) -> Response? {
        guard let asset = files[name] else { return nil }
        return Response(
            status: .ok, headers: [.contentType: asset.contentType, .cacheControl: asset.cacheControl],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }

    static func add<Context: RequestContext>(to router: Router<Context>, assets: StaticAssets) {
        router.get("/") { request, _ in
            let language = PageLanguage.preferred(request.headers[.acceptLanguage])
            var response = assets.response(for: language == .tr ? "index.tr.html" : "index.html") ?? Response(status: .notFound)
            response.headers[.vary] = "Accept-Language"
            return response
        }
        for name in assets.files.keys where !name.hasPrefix("index.") && !name.hasPrefix("login.") {
            router.get(RouterPath("/" + name)) { _, _ in assets.response(for: name) ?? Response(status: .notFound) }
        }
    }
}
