import Foundation
import RoquaChatCore

/// Everything a request can fail with. Each case knows its HTTP status and wire code (see
/// `HTTP/ErrorResponses.swift`); messages name the offending value but never a phone number or
/// a message's content.
package enum ChatServerError: Error, Sendable, Equatable, CustomStringConvertible {
    case malformedBody(String)
    case invalidField(field: String, reason: String)
    case bodyTooLarge(limit: Int)
    case missingToken
    case invalidToken(String)
    case tokenExpired
    case invalidCode
    case codeExpired
    case tooManyAttempts(retryAfterSeconds: Int)
    /// A per-address or server-wide request limit (what was limited, seconds to wait).
    case rateLimited(what: String, retryAfterSeconds: Int)
    /// A sign-in request forwarded (`X-Forwarded-For`, …) by `peer`, a proxy on this machine the
    /// server was not told to trust: sign-in is off until the operator names it.
    case untrustedProxy(peer: String)
    case refreshTokenInvalid
    case refreshTokenExpired
    case refreshTokenReused
    case refreshTokenSuperseded
    case forbidden(String)
    case groupNotFound(String)
    case userNotFound(String)
    case inviteNotFound
    case inviteUsed
    case inviteExpired
    case inviteForAnotherPhone
    case cannotRemoveGuide(String)
    case blobNotFound(String)
    case digestMismatch(expected: String, actual: String)
    /// Storing would take the uploader past their attachment quota (bytes held, quota).
    case quotaExceeded(used: Int64, quota: Int64)
    case routeNotFound(String)
    case methodNotAllowed(String)
    case storage(String)

    package var description: String {
        switch self {
        case .malformedBody(let reason): "malformed request body: \(reason)"
        case let .invalidField(field, reason): "\(field): \(reason)"
        case .bodyTooLarge(let limit): "the request body is larger than \(limit) bytes"
        case .missingToken: "this route needs 'Authorization: Bearer <access token>'"
        case .invalidToken(let reason): "the access token is not valid: \(reason)"
        case .tokenExpired: "the access token has expired; refresh it"
        case .invalidCode: "the code is wrong or no longer valid; request a new one"
        case .codeExpired: "the code has expired; request a new one"
        case .tooManyAttempts(let seconds): "too many wrong codes; try again in \(seconds) s"
        case .rateLimited(let what, let seconds): "too many \(what); try again in \(seconds) s"
        case .untrustedProxy(let peer):
            "sign-in is off: this server is reached through a reverse proxy at \(peer) that it does not trust, so it cannot tell clients apart; its operator must start roqua-chat-server with --trusted-proxy \(peer)"
        case .refreshTokenInvalid: "unknown or revoked refresh token; sign in again"
        case .refreshTokenExpired: "the refresh token has expired; sign in again"
        case .refreshTokenReused: "this refresh token was already used; the sign-in was revoked, sign in again"
        case .refreshTokenSuperseded: "a newer refresh token was issued for this one; use it"
        case .forbidden(let action): "not allowed: \(action)"
        case .groupNotFound(let id): "no group '\(id)'"
        case .userNotFound(let id): "no user '\(id)'"
        case .inviteNotFound: "no such invite code"
        case .inviteUsed: "this invite code was already used"
        case .inviteExpired: "this invite code has expired"
        case .inviteForAnotherPhone: "this invite code was issued for another phone number"
        case .cannotRemoveGuide(let id): "'\(id)' is the group's guide and cannot be removed"
        case .blobNotFound(let digest): "no blob '\(digest)'"
        case let .digestMismatch(expected, actual): "the body's SHA-256 is \(actual), not \(expected)"
        case let .quotaExceeded(used, quota): "attachment quota reached: you hold \(used) of \(quota) bytes"
        case .routeNotFound(let path): "no route '\(path)'"
        case .methodNotAllowed(let path): "method not allowed on '\(path)'"
        case .storage(let reason): "storage failure: \(reason)"
        }
    }
}
