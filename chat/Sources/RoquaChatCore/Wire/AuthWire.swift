import Foundation

/// `POST /v1/auth/otp/request`: ask for a sign-in code by SMS. Always answered with 202.
public struct OTPRequestBody: Codable, Sendable, Equatable {
    /// The phone number (E.164).
    public var phone: PhoneNumber
    /// Creates the value from its parts.
    public init(phone: PhoneNumber) { self.phone = phone }
}

/// `POST /v1/auth/otp/verify`: trade the code for tokens. `device_public_key` (optional) is the
/// device's Ed25519 public key, 32 raw bytes in base64: the server then verifies that device's
/// message signatures and vouches for the key to peers.
public struct OTPVerifyBody: Codable, Sendable, Equatable {
    /// The phone number (E.164).
    public var phone: PhoneNumber
    /// `request_id`: what `POST /v1/auth/otp/request` answered; the code belongs to that request.
    public var requestID: String
    /// The six-digit code from the SMS.
    public var code: String
    /// `device_id`: the device.
    public var deviceID: String
    /// `device_public_key`: base64 Ed25519 public key (32 bytes), optional.
    public var devicePublicKey: String?

    /// Creates the value from its parts.
    public init(phone: PhoneNumber, requestID: String, code: String, deviceID: String, devicePublicKey: String? = nil) {
        self.phone = phone
        self.requestID = requestID
        self.code = code
        self.deviceID = deviceID
        self.devicePublicKey = devicePublicKey
    }

    enum CodingKeys: String, CodingKey {
        case phone, code
        case requestID = "request_id"
        case deviceID = "device_id"
        case devicePublicKey = "device_public_key"
    }
}

/// `202` to `POST /v1/auth/otp/request`, whether a code went out or not (nobody learns anything
/// about a number from it): the id the code will be checked under.
public struct OTPRequestAccepted: Codable, Sendable, Equatable {
    /// Always `accepted`.
    public var status: String
    /// `request_id`: to send back with the code.
    public var requestID: String

    /// Creates the value from its parts.
    public init(requestID: String) {
        status = "accepted"
        self.requestID = requestID
    }

    enum CodingKeys: String, CodingKey {
        case status
        case requestID = "request_id"
    }
}

/// `POST /v1/auth/refresh` and `POST /v1/auth/logout`.
public struct RefreshBody: Codable, Sendable, Equatable {
    /// `refresh_token`: replaced on every refresh.
    public var refreshToken: String
    /// `proof`: the signed-in device's Ed25519 signature over `RefreshBody.proofPayload(token)`,
    /// base64. Required to refresh when the device registered a key at sign-in: a copied refresh
    /// token without the device's key revokes the sign-in instead of renewing it.
    public var proof: String?
    /// `all_devices` (logout only): end every sign-in of the user, not only this one.
    public var allDevices: Bool?

    /// Creates the value from its parts.
    public init(refreshToken: String, proof: String? = nil, allDevices: Bool? = nil) {
        self.refreshToken = refreshToken
        self.proof = proof
        self.allDevices = allDevices
    }

    /// What the device signs to prove it holds the key the sign-in registered.
    public static func proofPayload(_ refreshToken: String) -> Data {
        Data("roqua-chat refresh v1\n\(refreshToken)".utf8)
    }

    enum CodingKeys: String, CodingKey {
        case refreshToken = "refresh_token"
        case proof
        case allDevices = "all_devices"
    }
}

/// The answer to `POST /v1/auth/logout`.
public struct LogoutResult: Codable, Sendable, Equatable {
    /// `sign_ins_ended`: 1, or with `all_devices` every sign-in the user had.
    public var signInsEnded: Int

    /// Creates the value from its parts.
    public init(signInsEnded: Int) { self.signInsEnded = signInsEnded }

    enum CodingKeys: String, CodingKey {
        case signInsEnded = "sign_ins_ended"
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
    /// `display_name`: the name the user gave themselves for their groups, if any (`DisplayName`'s rules).
    public var displayName: String?

    /// Creates the value from its parts.
    public init(id: String, phone: PhoneNumber, role: Role, displayName: String? = nil) {
        self.id = id
        self.phone = phone
        self.role = role
        self.displayName = displayName
    }

    enum CodingKeys: String, CodingKey {
        case id, phone, role
        case displayName = "display_name"
    }
}

/// `PUT /v1/me/display-name`: the name the signed-in user gives themselves for their groups
/// (`null` removes it). Answered with the user (`UserInfo`).
public struct DisplayNameBody: Codable, Sendable, Equatable {
    /// `display_name`: checked against `DisplayName`'s rules as it is decoded.
    public var displayName: DisplayName?

    /// Creates the value from its parts.
    public init(displayName: DisplayName?) { self.displayName = displayName }

    enum CodingKeys: String, CodingKey {
        case displayName = "display_name"
    }

    // Written out so that the key must be there (`null` clears the name; an empty body is a mistake)
    // and is sent as `null` rather than left out.
    public init(from decoder: any Decoder) throws {
        displayName = try decoder.container(keyedBy: CodingKeys.self).decode(DisplayName?.self, forKey: .displayName)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(displayName, forKey: .displayName)
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
