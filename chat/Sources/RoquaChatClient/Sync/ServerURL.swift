import Foundation
import NIOSSL

/// Which server URLs a home may sign in to: `https://` anywhere; `http://` only to this machine
/// (127.0.0.0/8, `::1`, `localhost`), where nobody on a network can read or change the traffic,
/// unless the user says `--insecure`.
enum ServerURL {
    /// - Throws: `ChatClientError.invalidInput` naming the URL and the rule.
    static func check(_ text: String, insecure: Bool) throws {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
            ["http", "https"].contains(scheme)
        else {
            throw ChatClientError.invalidInput(
                field: "server", value: text, reason: "expected https://HOST[:PORT] (or http:// to this machine)")
        }
        guard scheme == "http", !insecure, !isLoopback(host) else { return }
        throw ChatClientError.invalidInput(
            field: "server", value: text,
            reason:
                "plain http:// to another machine lets anyone on the network read and change what is sent; use https://, or --insecure to accept that"
        )
    }

    /// The certificates of a PEM file the user trusts for this server (a private CA or the
    /// server's self-signed certificate), as text to keep in the session.
    /// - Throws: `ChatClientError.invalidInput` naming the file when it is unreadable or holds no certificate.
    static func trustedCertificates(path: String) throws -> String {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw ChatClientError.invalidInput(field: "ca-cert", value: path, reason: "cannot read it: \(error.localizedDescription)")
        }
        guard let certificates = try? NIOSSLCertificate.fromPEMBytes(Array(text.utf8)), !certificates.isEmpty else {
            throw ChatClientError.invalidInput(field: "ca-cert", value: path, reason: "no PEM certificate in it")
        }
        return text
    }

    /// TLS that trusts only `pem`'s certificates (nil: the system's trust store).
    static func tlsConfiguration(trusting pem: String?) -> TLSConfiguration? {
        guard let pem, let certificates = try? NIOSSLCertificate.fromPEMBytes(Array(pem.utf8)) else { return nil }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates(certificates)
        return configuration
    }

    static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare.lowercased() == "localhost" || bare == "::1" { return true }
        let parts = bare.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { part in UInt8(part).map { _ in true } ?? false }
    }
}
