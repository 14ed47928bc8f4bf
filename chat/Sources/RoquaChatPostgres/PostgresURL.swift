import Foundation
import NIOSSL
import PostgresNIO

/// `postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=disable|prefer|require`, or a Unix
/// socket directory with `?host=/var/run/postgresql`. Defaults: user `postgres`, port 5432,
/// `sslmode=prefer` (TLS when the server offers it, with certificate verification).
package enum PostgresURL {
    /// The client configuration the URL describes.
    /// - Throws: `PostgresURLError` naming the URL (password removed) and what is wrong.
    package static func configuration(_ text: String) throws -> PostgresClient.Configuration {
        guard let url = URLComponents(string: text), url.scheme == "postgres" || url.scheme == "postgresql" else {
            throw PostgresURLError.invalid(redacted(text), "expected postgres://USER:PASSWORD@HOST:PORT/DATABASE")
        }
        let user = url.user.flatMap { $0.isEmpty ? nil : $0 } ?? "postgres"
        let password = url.password
        let path = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        let database = path.isEmpty ? nil : path
        let query = Dictionary((url.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        let port = url.port ?? 5432
        if let socketDirectory = query["host"], socketDirectory.hasPrefix("/") {
            return PostgresClient.Configuration(
                unixSocketPath: socketDirectory + "/.s.PGSQL.\(port)", username: user,
                password: password, database: database)
        }
        guard let host = url.host, !host.isEmpty else { throw PostgresURLError.invalid(redacted(text), "no host") }
        let tls: PostgresClient.Configuration.TLS
        switch query["sslmode"] ?? "prefer" {
        case "disable": tls = .disable
        case "prefer": tls = .prefer(.makeClientConfiguration())
        case "require": tls = .require(.makeClientConfiguration())
        case let other: throw PostgresURLError.invalid(redacted(text), "sslmode '\(other)' is not disable, prefer or require")
        }
        return PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
    }

    /// The URL with its password replaced, for messages and logs.
    package static func redacted(_ text: String) -> String {
        guard var url = URLComponents(string: text), url.password != nil else { return text }
        url.password = "•••"
        return url.string ?? "postgres://…"
    }
}

/// Why a PostgreSQL URL was refused.
package enum PostgresURLError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalid(String, String)

    package var description: String {
        switch self {
        case let .invalid(url, reason): "\(url): not a usable PostgreSQL URL: \(reason)"
        }
    }
}
