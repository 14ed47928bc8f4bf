/// `POST /v1/auth/otp/request`: ask for a sign-in code by SMS. Always answered with 202.
public struct OTPRequestBody: Codable, Sendable, Equatable {
    public var phone: PhoneNumber
    public init(phone: PhoneNumber) { self.phone = phone }
}

/// `POST /v1/auth/otp/verify`: trade the code for tokens. `device_public_key` (optional) is the
/// device's Ed25519 public key, 32 raw bytes in base64: the server then verifies that device's
/// message signatures and vouches for the key to peers (part 2).
public struct OTPVerifyBody: Codable, Sendable, Equatable {
    public var phone: PhoneNumber
    public var code: String
    public var deviceID: String
    public var devicePublicKey: String?

    public init(phone: PhoneNumber, code: String, deviceID: String, devicePublicKey: String? = nil) {
        self.phone = phone
        self.code = code
        self.deviceID = deviceID
        self.devicePublicKey = devicePublicKey
    }

    enum CodingKeys: String, CodingKey {
        case phone, code
        case deviceID = "device_id"
        case devicePublicKey = "device_public_key"
    }
}

/// `POST /v1/auth/refresh` and `POST /v1/auth/logout`.
public struct RefreshBody: Codable, Sendable, Equatable {
    public var refreshToken: String
    public init(refreshToken: String) { self.refreshToken = refreshToken }

    enum CodingKeys: String, CodingKey {
        case refreshToken = "refresh_token"
    }
}

/// A signed-in user as the API shows them.
public struct UserInfo: Codable, Sendable, Equatable {
    public var id: String
    public var phone: PhoneNumber
    public var role: Role

    public init(id: String, phone: PhoneNumber, role: Role) {
        self.id = id
        self.phone = phone
        self.role = role
    }
}

/// The answer to a successful verify or refresh: a short-lived access token (JWT, HS256) and a
/// refresh token that must be replaced by the one returned on every refresh.
public struct AuthTokens: Codable, Sendable, Equatable {
    public var accessToken: String
    public var refreshToken: String
    /// Seconds the access token stays valid.
    public var expiresIn: Int
    public var tokenType: String
    public var user: UserInfo

    public init(accessToken: String, refreshToken: String, expiresIn: Int, user: UserInfo) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
        self.tokenType = "Bearer"
        self.user = user
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case expiresIn = "expires_in"
        case tokenType = "token_type"
        case user
    }
}

/// `PUT /v1/users/{id}/role` (admins only).
public struct SetRoleBody: Codable, Sendable, Equatable {
    public var role: Role
    public init(role: Role) { self.role = role }
}
