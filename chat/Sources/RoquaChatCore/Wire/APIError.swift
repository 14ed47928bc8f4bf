/// Stable error codes in every error body, for clients to act on (`message` is for people).
public enum ChatErrorCode: String, Codable, Sendable, Equatable, CaseIterable {
    case invalidRequest = "invalid_request"
    case payloadTooLarge = "payload_too_large"
    case unauthorized
    case tokenExpired = "token_expired"
    case invalidCode = "invalid_code"
    case codeExpired = "code_expired"
    case tooManyAttempts = "too_many_attempts"
    /// Too many requests of this kind from this address, or for the whole server, this minute.
    case rateLimited = "rate_limited"
    case refreshTokenInvalid = "refresh_token_invalid"
    case refreshTokenExpired = "refresh_token_expired"
    /// A used refresh token came back after the grace window: the whole sign-in was revoked.
    case refreshTokenReused = "refresh_token_reused"
    /// A concurrent refresh already moved on; use the newest refresh token you hold.
    case refreshTokenSuperseded = "refresh_token_superseded"
    case forbidden
    case notFound = "not_found"
    case methodNotAllowed = "method_not_allowed"
    case inviteUsed = "invite_used"
    case inviteExpired = "invite_expired"
    case inviteForAnotherPhone = "invite_for_another_phone"
    case cannotRemoveGuide = "cannot_remove_guide"
    case digestMismatch = "digest_mismatch"
    /// The uploader's or the group's attachment bytes would exceed the server's quota.
    case quotaExceeded = "quota_exceeded"
    case internalError = "internal_error"
    case unavailable
}

/// Every error answer: `{"error": {"code": "...", "message": "..."}}`.
public struct APIErrorBody: Codable, Sendable, Equatable {
    /// The code and the human message.
    public struct Detail: Codable, Sendable, Equatable {
        /// The stable code to act on.
        public var code: ChatErrorCode
        /// For people; not stable.
        public var message: String

        /// Creates the value from its parts.
        public init(code: ChatErrorCode, message: String) {
            self.code = code
            self.message = message
        }
    }

    /// What went wrong.
    public var error: Detail

    /// Creates the value from its parts.
    public init(code: ChatErrorCode, message: String) {
        error = Detail(code: code, message: message)
    }
}
