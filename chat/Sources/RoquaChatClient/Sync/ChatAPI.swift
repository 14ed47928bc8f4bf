import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import RoquaChatCore

/// The server's HTTP API as the client uses it. Transport failures become `noInternet`, error
/// answers `serverError` (with `Retry-After`), and a 401 on an authorized call refreshes the
/// token (once for all callers holding the same stale token) and retries once.
struct ChatAPI: Sendable {
    let session: SessionKeeper
    let http: HTTPClient
    /// Signs refresh requests (the server revokes a sign-in whose token comes without it).
    let signingKey: Curve25519.Signing.PrivateKey
    var timeout: TimeAmount = .seconds(10)

    func call<Response: Decodable & Sendable>(
        _ method: HTTPMethod, _ path: String, body: (some Encodable & Sendable)? = Optional<Int>.none,
        authorized: Bool = true, as type: Response.Type = Response.self
    ) async throws -> Response {
        let data = try await send(method, path, body: body.map { try ChatJSON.encoder().encode($0) }, authorized: authorized)
        do {
            return try ChatJSON.decoder().decode(Response.self, from: data)
        } catch {
            throw ChatClientError.serverError(status: 200, code: nil, message: "unexpected answer to \(path): \(error)", retryAfter: nil)
        }
    }

    /// Asks the server to sign a fresh nonce and checks the answer against the pinned key
    /// (pinning it at the first sign-in): on every sign-in and at the end of every sync.
    /// - Throws: `serverIdentityChanged`, `authenticationError`; `noInternet`, `serverError`.
    func checkServerIdentity() async throws {
        let challenge = ServerIdentityChallenge()
        let proof: ServerIdentityProof = try await call(.POST, "/v1/server-identity", body: challenge)
        try await session.pin(proof, nonce: challenge.bytes ?? Data())
    }

    func send(_ method: HTTPMethod, _ path: String, body: Data?, authorized: Bool) async throws -> Data {
        guard let state = await session.state else { throw ChatClientError.notSignedIn(home: session.path) }
        var token = authorized ? state.accessToken : nil
        if authorized && token == nil { throw ChatClientError.notSignedIn(home: session.path) }
        var refreshed = false
        while true {
            let (status, headers, data) = try await exchange(state, method, path, body: body, token: token)
            if (200..<300).contains(status) { return data }
            let error = Self.error(status: status, headers: headers, body: data)
            if status == 401, authorized, !refreshed, let stale = token {
                refreshed = true
                token = try await session.token(replacing: stale) { refreshToken in
                    try await refresh(state, refreshToken: refreshToken)
                }
                continue
            }
            if status == 401 { throw ChatClientError.authenticationError(reason: error.description) }
            throw error
        }
    }

    private func refresh(_ state: SessionState, refreshToken: String) async throws -> AuthTokens {
        let proof = try DeviceSignature.sign(RefreshBody.proofPayload(refreshToken), with: signingKey)
        let body = try ChatJSON.encoder().encode(RefreshBody(refreshToken: refreshToken, proof: proof))
        let (status, headers, data) = try await exchange(state, .POST, "/v1/auth/refresh", body: body, token: nil)
        guard status == 200 else {
            throw ChatClientError.authenticationError(reason: Self.error(status: status, headers: headers, body: data).description)
        }
        do { return try ChatJSON.decoder().decode(AuthTokens.self, from: data) } catch {
            throw ChatClientError.authenticationError(reason: "unexpected refresh answer: \(error)")
        }
    }

    private func exchange(
        _ state: SessionState, _ method: HTTPMethod, _ path: String, body: Data?,
        token: String?
    ) async throws -> (Int, HTTPHeaders, Data) {
        let server = state.server
        var request = HTTPClientRequest(url: server + path)
        request.method = method
        request.tlsConfiguration = ServerURL.tlsConfiguration(trusting: state.serverCA)
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        do {
            let response = try await http.execute(request, timeout: timeout)
            let buffer = try await response.body.collect(upTo: 16 * 1024 * 1024)
            return (Int(response.status.code), response.headers, Data(buffer.readableBytesView))
        } catch {
            throw ChatClientError.noInternet(server: server, reason: Self.reason(error))
        }
    }

    /// A socket error's own words ("Connection refused") rather than NIO's wrapping of them.
    static func reason(_ error: any Error) -> String {
        if let io = error as? IOError { return String(cString: strerror(io.errnoCode)) }
        if let tls = error as? NIOSSLError, case .handshakeFailed = tls {
            return "\(error)".contains("CERTIFICATE_VERIFY_FAILED")
                ? "its TLS certificate is not trusted here (signed by a private CA? sign in again with --ca-cert FILE)"
                : "the TLS handshake failed (\(error))"
        }
        return "\(error)"
    }

    static func error(status: Int, headers: HTTPHeaders, body: Data) -> ChatClientError {
        let detail = try? ChatJSON.decoder().decode(APIErrorBody.self, from: body)  // nil: not an error body (a proxy's page)
        return .serverError(
            status: status, code: detail?.error.code,
            message: detail?.error.message ?? String(decoding: body.prefix(200), as: UTF8.self),
            retryAfter: headers.first(name: "Retry-After").flatMap { TimeInterval($0) })
    }
}
