import Foundation

/// Which server URLs a home may sign in to: `https://` anywhere; `http://` only to this machine
/// (127.0.0.0/8, `::1`, `localhost`), where nobody on a network can read or change the traffic,
/// unless the user says `--insecure`.
enum ServerURL {
    /// - Throws: `ChatClientError.invalidInput` naming the URL and the rule.
    static func check(_ text: String, insecure: Bool) throws {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
              ["http", "https"].contains(scheme) else {
            throw ChatClientError.invalidInput(field: "server", value: text, reason: "expected https://HOST[:PORT] (or http:// to this machine)")
        }
        guard scheme == "http", !insecure, !isLoopback(host) else { return }
        throw ChatClientError.invalidInput(field: "server", value: text,
                                           reason: "plain http:// to another machine lets anyone on the network read and change what is sent; use https://, or --insecure to accept that")
    }

    static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare.lowercased() == "localhost" || bare == "::1" { return true }
        let parts = bare.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { part in UInt8(part).map { _ in true } ?? false }
    }
}
