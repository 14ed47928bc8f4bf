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

    let sessions: SessionCheck

    package init(_ environment: ServiceEnvironment, sms: any SMSProvider, secret: ServerSecret) async {
        self.environment = environment
        self.sms = sms
        tokens = await AccessTokens(secret: secret, clock: environment.clock, lifetime: environment.settings.accessTokenLifetime)
        codeMAC = KeyedMAC(secret.key(for: .signInCode))
        successorMAC = KeyedMAC(secret.key(for: .refreshSuccessor))
        sessions = SessionCheck(store: environment.store)
    }

    /// The keyed hash a request id is stored under (the id itself is known only to the requester).
    func requestKey(_ requestID: String) -> String {
        Hex.encode(codeMAC.mac("request|" + requestID))
    }

    /// The keyed hash a client address is counted under (addresses are not stored).
    func requesterKey(_ address: String) -> String {
        String(Hex.encode(codeMAC.mac("requester|" + address)).prefix(32))
    }

    /// Sends a new code unless the number's send limits say no, and returns the id of this
    /// request either way: the caller answers 202 with it, so nobody learns anything about a
    /// number from this route (a throttled request's id simply never verifies).
    package func requestCode(phone: PhoneNumber, from address: String) async throws -> String {
        let code = SecureRandom.signInCode()
        let requestID = SecureRandom.token(prefix: "sr_")
        let mac = codeMAC.mac(phone.e164 + "|" + code)
        let now = clock.now()
        let settings = settings
        let request = requestKey(requestID)
        let requester = requesterKey(address)
        let outcome = try await store.updateOTP(phone: phone) { state in
            OTPRules.request(&state, request: request, requester: requester, codeMAC: mac, now: now, settings: settings)
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
        return requestID
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
            throw ChatServerError.invalidField(
                field: "device_id", reason: "'\(body.deviceID)' must be 1–64 characters of A–Z a–z 0–9 - _ .")
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
        guard !body.requestID.isEmpty, body.requestID.utf8.count <= 100 else {
            throw ChatServerError.invalidField(field: "request_id", reason: "not a sign-in request id")
        }
        let request = requestKey(body.requestID)
        let outcome = try await store.updateOTP(phone: body.phone) { state in
            OTPRules.verify(&state, request: request, now: now, settings: settings) { stored in codeMAC.matches(stored, guess) }
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
        try await store.createRefreshFamily(
            family,
            firstToken: RefreshTokenRecord(
                tokenHash: TokenHash.sha256Hex(refreshToken), familyID: family.id, issuedAt: now,
                expiresAt: now.addingTimeInterval(settings.refreshTokenLifetime)))
        logger.info("signed in", metadata: ["user": "\(user.id)"])
        return try await issueTokens(for: user, family: family, refreshToken: refreshToken)
    }

    /// The token that succeeds `token`: derived, so that a repeated refresh within the grace
    /// window hands out the same one without the server storing it.
    func successor(of token: String) -> String {
        "rt_" + Base64URL.encode(successorMAC.mac(token))
    }

    /// Rotates a refresh token. When the sign-in's device registered a key, the request must
    /// carry the device's signature over the token (`RefreshBody.proof`): a token presented
    /// without it — copied off the device, replayed from elsewhere, even within the grace window
    /// — ends the sign-in.
    /// - Throws: `refreshTokenInvalid`, `refreshTokenExpired`, `refreshTokenReused` (the sign-in
    ///   is revoked), or `refreshTokenSuperseded`.
    package func refresh(_ body: RefreshBody) async throws -> AuthTokens {
        let token = body.refreshToken
        let hash = TokenHash.sha256Hex(token)
        if let family = try await store.refreshFamily(tokenHash: hash), family.revokedAt == nil {
            let device = DeviceRef(userID: family.userID, deviceID: family.deviceID)
            if let key = try await store.deviceKeys([device])[device],
                !(body.proof.map { DeviceSignature.verify($0, of: RefreshBody.proofPayload(token), publicKey: key) } ?? false)
            {
                if let revoked = try await store.revokeRefreshFamily(tokenHash: hash, now: clock.now()) {
                    await sessions.revoke([revoked.id])
                }
                logger.warning("refresh token presented without its device's proof; sign-in revoked", metadata: ["family": "\(family.id)"])
                throw ChatServerError.refreshTokenReused
            }
        }
        let next = successor(of: token)
        let decision = try await store.rotateRefreshToken(
            presentedHash: hash, successorHash: TokenHash.sha256Hex(next), now: clock.now(), settings: settings)
        switch decision {
        case .rotate(let family), .repeatWithinGrace(let family):
            guard let user = try await store.user(id: family.userID) else { throw ChatServerError.refreshTokenInvalid }
            return try await issueTokens(for: user, family: family, refreshToken: next)
        case .superseded:
            throw ChatServerError.refreshTokenSuperseded
        case .reused(let familyID):
            await sessions.revoke([familyID])
            logger.warning("refresh token reused after rotation; sign-in revoked", metadata: ["family": "\(familyID)"])
            throw ChatServerError.refreshTokenReused
        case .expired:
            throw ChatServerError.refreshTokenExpired
        case .invalid:
            throw ChatServerError.refreshTokenInvalid
        }
    }

    /// Ends the sign-in the token belongs to — or, with `allDevices`, every sign-in of its user.
    /// Their access tokens stop working at once. Returns how many sign-ins ended.
    /// - Throws: `refreshTokenInvalid` for an unknown token.
    package func logout(_ body: RefreshBody) async throws -> Int {
        let now = clock.now()
        guard let family = try await store.revokeRefreshFamily(tokenHash: TokenHash.sha256Hex(body.refreshToken), now: now) else {
            throw ChatServerError.refreshTokenInvalid
        }
        var ended = [family.id]
        if body.allDevices == true {
            ended += try await store.revokeRefreshFamilies(userID: family.userID, now: now)
        }
        await sessions.revoke(ended)
        logger.info("signed out", metadata: ["user": "\(family.userID)", "sign-ins": "\(Set(ended).count)"])
        return Set(ended).count
    }

    /// The actor behind a bearer token; the role is read fresh, so role changes apply at once,
    /// and the sign-in must still be live (`SessionCheck`).
    /// - Throws: `invalidToken` or `tokenExpired`.
    package func authenticate(bearer token: String) async throws -> Actor {
        let claims = try await tokens.verify(token)
        guard try await sessions.isLive(claims.sid, now: clock.now()) else {
            throw ChatServerError.invalidToken("the sign-in has ended")
        }
        guard let user = try await store.user(id: claims.sub.value) else {
            throw ChatServerError.invalidToken("unknown user")
        }
        return Actor(userID: user.id, role: user.role, deviceID: claims.did)
    }

    func issueTokens(for user: UserRecord, family: RefreshFamilyRecord, refreshToken: String) async throws -> AuthTokens {
        AuthTokens(
            accessToken: try await tokens.issue(userID: user.id, deviceID: family.deviceID, session: family.id),
            refreshToken: refreshToken, expiresIn: Int(settings.accessTokenLifetime), user: user.info)
    }
}
