import Foundation
import RoquaChatCore

/// What a home knows about its sign-in, kept in a 0600 file.
struct SessionState: Codable, Sendable, Equatable {
    var server: String
    var phone: String
    var user: UserInfo?
    var accessToken: String?
    var refreshToken: String?
    /// The server's Ed25519 key, pinned at the first identity proof after sign-in.
    var serverKey: String?
    /// The id of the last code request (the code is checked under it).
    var signInRequest: String?
    /// PEM certificates trusted for this server instead of the system's (`--ca-cert`).
    var serverCA: String?

    enum CodingKeys: String, CodingKey {
        case server, phone, user
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case serverKey = "server_key"
        case signInRequest = "sign_in_request"
        case serverCA = "server_ca"
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
        next.signInRequest = nil
        next.user = tokens.user
        next.accessToken = tokens.accessToken
        next.refreshToken = tokens.refreshToken
        try save(next)
    }

    /// Forgets the tokens after signing out (the server and its pinned key stay).
    func signedOut() throws {
        guard var next = state else { return }
        next.accessToken = nil
        next.refreshToken = nil
        next.user = nil
        try save(next)
    }

    /// Checks the server's answer to `nonce` against the pinned key (pinning it now when none is).
    /// - Throws: `serverIdentityChanged` when the server's key changed; `authenticationError`
    ///   when the answer is not a signature over this nonce (replayed, forged).
    func pin(_ proof: ServerIdentityProof, nonce: Data) throws {
        guard var next = state else { throw ChatClientError.notSignedIn(home: path) }
        let pinned = next.serverKey ?? proof.serverKey
        guard pinned == proof.serverKey else { throw ChatClientError.serverIdentityChanged(pinned: pinned, offered: proof.serverKey) }
        guard let key = Data(base64Encoded: pinned), proof.verifies(nonce: nonce, trusted: key) else {
            throw ChatClientError.authenticationError(
                reason: "the server's identity proof is not its key's signature over this request's nonce")
        }
        guard next.serverKey == nil else { return }
        next.serverKey = pinned
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
