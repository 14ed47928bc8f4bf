import Foundation
import Logging
import RoquaChatCore

/// Sign-in by SMS code, token refresh with rotation, sign-out, and turning an access token into
/// an `Actor`.
package struct AuthService: EnvironmentService {
    package let environment: ServiceEnvironment
    let sms: any SMSProvider
    let tokens: AccessTokens
    let codeMAC: KeyedMAC
    let successorMAC: KeyedMAC

    package init(_ environment: ServiceEnvironment, sms: any SMSProvider, secret: ServerSecret) async {
        self.environment = environment
        self.sms = sms
        tokens = await AccessTokens(secret: secret, clock: environment.clock, lifetime: environment.settings.accessTokenLifetime)
        codeMAC = KeyedMAC(secret.key(for: .signInCode))
        successorMAC = KeyedMAC(secret.key(for: .refreshSuccessor))
    }

    /// Sends a new code unless the phone's resend limits say no. The caller answers 202 either
    /// way, so nobody learns anything about a number from this route.
    package func requestCode(phone: PhoneNumber) async throws {
        let code = SecureRandom.signInCode()
        let mac = codeMAC.mac(phone.e164 + "|" + code)
        let now = clock.now()
        let settings = settings
        let outcome = try await store.updateOTP(phone: phone) { state in
            OTPRules.request(&state, codeMAC: mac, now: now, settings: settings)
        }
        switch outcome {
        case .send:
            do {
                try await sms.sendCode(code, to: phone, at: now)
                logger.info("sign-in code sent")
            } catch {
                logger.error("sign-in code not delivered", metadata: ["error": "\(error)"])
            }
        case .throttled:
            logger.info("sign-in code throttled")
            logger.debug("sign-in code throttled", metadata: ["phone": "\(phone.redacted)"])
        }
    }

    /// Trades a correct code for tokens (creating the user on first sign-in).
    /// - Throws: `invalidCode`, `codeExpired`, `tooManyAttempts`, or `invalidField` for a
    ///   malformed code, device id or key.
    package func verify(_ body: OTPVerifyBody) async throws -> AuthTokens {
        let code = body.code.trimmingCharacters(in: .whitespaces)
        guard code.count == 6, code.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw ChatServerError.invalidField(field: "code", reason: "'\(body.code)' is not six digits")
        }
        guard ClientIdentifier.isValid(body.deviceID) else {
            throw ChatServerError.invalidField(field: "device_id", reason: "'\(body.deviceID)' must be 1–64 characters of A–Z a–z 0–9 - _ .")
        }
        var publicKey: Data?
        if let text = body.devicePublicKey {
            guard let key = DeviceSignature.publicKey(base64: text) else {
                throw ChatServerError.invalidField(field: "device_public_key", reason: "not a base64 Ed25519 public key (32 bytes)")
            }
            publicKey = key
        }
        let now = clock.now()
        let settings = settings
        let codeMAC = codeMAC
        let guess = body.phone.e164 + "|" + code
        let outcome = try await store.updateOTP(phone: body.phone) { state in
            OTPRules.verify(&state, now: now, settings: settings) { stored in codeMAC.matches(stored, guess) }
        }
        switch outcome {
        case .success:
            break
        case .wrong, .noCode:
            logger.info("sign-in code rejected")
            throw ChatServerError.invalidCode
        case .expired:
            throw ChatServerError.codeExpired
        case .blocked(let until):
            throw ChatServerError.tooManyAttempts(retryAfterSeconds: max(1, Int(until.timeIntervalSince(now).rounded(.up))))
        }
        let user = try await store.signIn(phone: body.phone, deviceID: body.deviceID, publicKey: publicKey, now: now)
        let refreshToken = SecureRandom.token(prefix: "rt_")
        let family = RefreshFamilyRecord(id: UUIDv7.make(at: now), userID: user.id, deviceID: body.deviceID, createdAt: now)
        try await store.createRefreshFamily(family, firstToken: RefreshTokenRecord(
            tokenHash: TokenHash.sha256Hex(refreshToken), familyID: family.id, issuedAt: now,
            expiresAt: now.addingTimeInterval(settings.refreshTokenLifetime)))
        logger.info("signed in", metadata: ["user": "\(user.id)"])
        return try await issueTokens(for: user, deviceID: body.deviceID, refreshToken: refreshToken)
    }

    /// The token that succeeds `token`: derived, so that a repeated refresh within the grace
    /// window hands out the same one without the server storing it.
    func successor(of token: String) -> String {
        "rt_" + Base64URL.encode(successorMAC.mac(token))
    }

    /// Rotates a refresh token.
    /// - Throws: `refreshTokenInvalid`, `refreshTokenExpired`, `refreshTokenReused` (the sign-in
    ///   is revoked), or `refreshTokenSuperseded`.
    package func refresh(_ token: String) async throws -> AuthTokens {
        let next = successor(of: token)
        let decision = try await store.rotateRefreshToken(
            presentedHash: TokenHash.sha256Hex(token), successorHash: TokenHash.sha256Hex(next), now: clock.now(), settings: settings)
        switch decision {
        case .rotate(let family), .repeatWithinGrace(let family):
            guard let user = try await store.user(id: family.userID) else { throw ChatServerError.refreshTokenInvalid }
            return try await issueTokens(for: user, deviceID: family.deviceID, refreshToken: next)
        case .superseded:
            throw ChatServerError.refreshTokenSuperseded
        case .reused(let familyID):
            logger.warning("refresh token reused after rotation; sign-in revoked", metadata: ["family": "\(familyID)"])
            throw ChatServerError.refreshTokenReused
        case .expired:
            throw ChatServerError.refreshTokenExpired
        case .invalid:
            throw ChatServerError.refreshTokenInvalid
        }
    }

    /// Revokes the sign-in the token belongs to.
    /// - Throws: `refreshTokenInvalid` for an unknown token.
    package func logout(_ token: String) async throws {
        guard try await store.revokeRefreshFamily(tokenHash: TokenHash.sha256Hex(token), now: clock.now()) else {
            throw ChatServerError.refreshTokenInvalid
        }
    }

    /// The actor behind a bearer token; the role is read fresh, so role changes apply at once.
    /// - Throws: `invalidToken` or `tokenExpired`.
    package func authenticate(bearer token: String) async throws -> Actor {
        let claims = try await tokens.verify(token)
        guard let user = try await store.user(id: claims.sub.value) else {
            throw ChatServerError.invalidToken("unknown user")
        }
        return Actor(userID: user.id, role: user.role, deviceID: claims.did)
    }

    func issueTokens(for user: UserRecord, deviceID: String, refreshToken: String) async throws -> AuthTokens {
        AuthTokens(accessToken: try await tokens.issue(userID: user.id, deviceID: deviceID), refreshToken: refreshToken,
                   expiresIn: Int(settings.accessTokenLifetime), user: user.info)
    }
}
