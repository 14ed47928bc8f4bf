import Foundation
import RoquaChatCore

/// What a home knows about its sign-in, kept in a 0600 file.
struct SessionState: Codable, Sendable, Equatable {
    var server: String
    var phone: String
    var user: UserInfo?
    var accessToken: String?
    var refreshToken: String?

    enum CodingKeys: String, CodingKey {
        case server, phone, user
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
    }
}

/// Holds the tokens and refreshes them at most once however many requests were refused with
/// the same stale token: the first caller starts the refresh, the others await the same task.
actor SessionKeeper {
    let path: String
    private(set) var state: SessionState?
    private var refreshing: Task<String, any Error>?
    /// Refreshes started (concurrent 401s with the same stale token share one).
    private(set) var refreshCount = 0

    /// - Throws: `ChatClientError.secretFile` when the file is unreadable or malformed.
    init(path: String) throws {
        self.path = path
        if let data = try SecretFile.read(path) {
            do {
                state = try ChatJSON.decoder().decode(SessionState.self, from: data)
            } catch {
                throw ChatClientError.secretFile(path: path, reason: "not a session file: \(error)")
            }
        }
    }

    func save(_ newState: SessionState) throws {
        try SecretFile.write(try ChatJSON.encoder().encode(newState), to: path)
        state = newState
    }

    func store(_ tokens: AuthTokens) throws {
        guard var next = state else { return }
        next.user = tokens.user
        next.accessToken = tokens.accessToken
        next.refreshToken = tokens.refreshToken
        try save(next)
    }

    /// A fresh access token to replace `stale`: the current one if someone already refreshed,
    /// else the result of the one refresh in flight (started here when none is).
    func token(replacing stale: String, refresh: @escaping @Sendable (String) async throws -> AuthTokens) async throws -> String {
        if let current = state?.accessToken, current != stale { return current }
        if let refreshing { return try await refreshing.value }
        guard let refreshToken = state?.refreshToken else {
            throw ChatClientError.authenticationError(reason: "no refresh token is held")
        }
        refreshCount += 1
        let task = Task<String, any Error> {
            let tokens = try await refresh(refreshToken)
            try self.store(tokens)
            return tokens.accessToken
        }
        refreshing = task
        defer { refreshing = nil }
        return try await task.value
    }
}
