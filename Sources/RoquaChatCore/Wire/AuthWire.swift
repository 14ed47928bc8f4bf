/// `POST /v1/auth/otp/request`: ask for a sign-in code by SMS. Always answered with 202.
public struct OTPRequestBody: Codable, Sendable, Equatable {
    /// The phone number (E.164).
    public var phone: PhoneNumber
    /// Creates the value from its parts.
    public init(phone: PhoneNumber) { self.phone = phone }
}

/// `POST /v1/auth/otp/verify`: trade the code for tokens. `device_public_key` (optional) is the
/// device's Ed25519 public key, 32 raw bytes in base64: the server then verifies that device's
/// message signatures and vouches for the key to peers (part 2).
public struct OTPVerifyBody: Codable, Sendable, Equatable {
    /// The phone number (E.164).
    public var phone: PhoneNumber
    /// The six-digit code from the SMS.
    public var code: String
    /// `device_id`: the device.
    public var deviceID: String
    /// `device_public_key`: base64 Ed25519 public key (32 bytes), optional.
    public var devicePublicKey: String?

    /// Creates the value from its parts.
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
    /// `refresh_token`: replaced on every refresh.
    public var refreshToken: String
    /// Creates the value from its parts.
    public init(refreshToken: String) { self.refreshToken = refreshToken }

    enum CodingKeys: String, CodingKey {
        case refreshToken = "refresh_token"
    }
}

/// A signed-in user as the API shows them.
public struct UserInfo: Codable, Sendable, Equatable {
    /// The user's id.
    public var id: String
    /// The phone number (E.164).
    public var phone: PhoneNumber
    /// What the user may do.
    public var role: Role

    /// Creates the value from its parts.
    public init(id: String, phone: PhoneNumber, role: Role) {
        self.id = id
        self.phone = phone
        self.role = role
    }
}

/// The answer to a successful verify or refresh: a short-lived access token (JWT, HS256) and a
/// refresh token that must be replaced by the one returned on every refresh.
public struct AuthTokens: Codable, Sendable, Equatable {
    /// `access_token`: the JWT to send as `Authorization: Bearer`.
    public var accessToken: String
    /// `refresh_token`: replaced on every refresh.
    public var refreshToken: String
    /// Seconds the access token stays valid.
    public var expiresIn: Int
    /// Always `Bearer`.
    public var tokenType: String
    /// The signed-in user.
    public var user: UserInfo

    /// Creates the value from its parts.
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
    /// The new role.
    public var role: Role
    /// Creates the value from its parts.
    public init(role: Role) { self.role = role }
}
