import Foundation
import JWTKit
import RoquaIO

/// The claims of an access token: who (`sub`), which device (`did`), which sign-in (`sid`, the
/// refresh family: signing out revokes it), what it is (`typ`, `aud`, `iss`), which token (`jti`)
/// and when (`iat`, `exp`).
package struct AccessClaims: JWTPayload, Equatable {
    package var sub: SubjectClaim
    package var did: String
    package var sid: String
    package var typ: String
    package var aud: AudienceClaim
    package var iss: IssuerClaim
    package var jti: IDClaim
    package var iat: IssuedAtClaim
    package var exp: ExpirationClaim

    /// Type, audience and issuer are checked here; the times by `AccessTokens.verify` against the
    /// server's clock (jwt-kit would use the wall clock).
    package func verify(using algorithm: some JWTAlgorithm) async throws {
        guard iss.value == AccessTokens.issuer else {
            throw JWTError.claimVerificationFailure(failedClaim: iss, reason: "unexpected issuer")
        }
        guard typ == AccessTokens.type else {
            throw JWTError.generic(identifier: "typ", reason: "not an access token")
        }
        try aud.verifyIntendedAudience(includes: AccessTokens.audience)
    }
}

/// Issues and checks 15-minute access tokens: JWT, HS256 with a key derived from the server
/// secret (jwt-kit; tokens with `alg: none`, another algorithm or another key fail signature
/// verification). A token issued in the future (beyond `skew`) or living longer than the policy
/// is refused even with a good signature: only this server's key could have made one, so it
/// means a leaked key or a clock gone wrong.
package struct AccessTokens: Sendable {
    static let issuer = "roqua-chat"
    static let audience = "roqua-chat-api"
    static let type = "access"
    /// Clock difference tolerated between server processes.
    static let skew: TimeInterval = 60
    private let keys: JWTKeyCollection
    private let clock: any ChatClock
    package let lifetime: TimeInterval

    package init(secret: ServerSecret, clock: any ChatClock, lifetime: TimeInterval) async {
        let key = secret.key(for: .accessToken).withUnsafeBytes { Data($0) }
        // jwt-kit decodes a token's header and payload before it checks the signature: with
        // Foundation's decoder a stranger's token nested past 512 brackets crashed the server.
        let decoder = CheckedJSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        keys = await JWTKeyCollection(defaultJWTParser: DefaultJWTParser(jsonDecoder: decoder))
            .add(hmac: HMACKey(from: key), digestAlgorithm: .sha256)
        self.clock = clock
        self.lifetime = lifetime
    }

    /// The claims a token for `userID` on `deviceID` in sign-in `session` gets, valid for
    /// `lifetime` from now.
    package func claims(userID: String, deviceID: String, session: String) -> AccessClaims {
        // Whole seconds, as JWT numeric dates usually are.
        let now = Date(timeIntervalSince1970: clock.now().timeIntervalSince1970.rounded(.down))
        return AccessClaims(
            sub: .init(value: userID), did: deviceID, sid: session, typ: Self.type,
            aud: .init(value: Self.audience), iss: .init(value: Self.issuer),
            jti: .init(value: SecureRandom.token(prefix: "")), iat: .init(value: now),
            exp: .init(value: now.addingTimeInterval(lifetime)))
    }

    /// A signed token with `claims`.
    /// - Throws: jwt-kit's error if signing fails.
    package func sign(_ claims: AccessClaims) async throws -> String {
        try await keys.sign(claims)
    }

    /// A signed token for `userID` on `deviceID` in sign-in `session`.
    /// - Throws: jwt-kit's error if signing fails.
    package func issue(userID: String, deviceID: String, session: String) async throws -> String {
        try await sign(claims(userID: userID, deviceID: deviceID, session: session))
    }

    /// The claims of a valid, unexpired token.
    /// - Throws: `ChatServerError.tokenExpired` or `.invalidToken` with the reason.
    package func verify(_ token: String) async throws -> AccessClaims {
        let claims: AccessClaims
        do {
            claims = try await keys.verify(token, as: AccessClaims.self)
        } catch let error as JWTError {
            throw ChatServerError.invalidToken(error.reason ?? error.errorType.description)
        } catch {
            throw ChatServerError.invalidToken("\(error)")
        }
        let now = clock.now()
        guard claims.iat.value.timeIntervalSince(now) <= Self.skew else {
            throw ChatServerError.invalidToken("issued in the future")
        }
        guard claims.exp.value.timeIntervalSince(claims.iat.value) <= lifetime + 1 else {
            throw ChatServerError.invalidToken("lives longer than the server issues tokens for")
        }
        do {
            try claims.exp.verifyNotExpired(currentDate: now)
        } catch {
            throw ChatServerError.tokenExpired
        }
        return claims
    }
}
