import Foundation
import JWTKit

/// The claims of an access token: who (`sub`), which device (`did`), until when (`exp`).
package struct AccessClaims: JWTPayload, Equatable {
    package var sub: SubjectClaim
    package var did: String
    package var iss: IssuerClaim
    package var iat: IssuedAtClaim
    package var exp: ExpirationClaim

    /// Expiry is checked by `AccessTokens.verify` against the server's clock, not here (jwt-kit
    /// would use the wall clock); the issuer is checked here.
    package func verify(using algorithm: some JWTAlgorithm) async throws {
        guard iss.value == AccessTokens.issuer else {
            throw JWTError.claimVerificationFailure(failedClaim: iss, reason: "unexpected issuer")
        }
    }
}

/// Issues and checks 15-minute access tokens: JWT, HS256 with a key derived from the server
/// secret (jwt-kit; tokens with `alg: none`, another algorithm or another key fail signature
/// verification).
package struct AccessTokens: Sendable {
    static let issuer = "roqua-chat"
    private let keys: JWTKeyCollection
    private let clock: any ChatClock
    package let lifetime: TimeInterval

    package init(secret: ServerSecret, clock: any ChatClock, lifetime: TimeInterval) async {
        let key = secret.key(for: .accessToken).withUnsafeBytes { Data($0) }
        keys = await JWTKeyCollection().add(hmac: HMACKey(from: key), digestAlgorithm: .sha256)
        self.clock = clock
        self.lifetime = lifetime
    }

    /// A signed token for `userID` on `deviceID`, valid for `lifetime` from now.
    /// - Throws: jwt-kit's error if signing fails.
    package func issue(userID: String, deviceID: String) async throws -> String {
        // Whole seconds, as JWT numeric dates usually are.
        let now = Date(timeIntervalSince1970: clock.now().timeIntervalSince1970.rounded(.down))
        let claims = AccessClaims(sub: .init(value: userID), did: deviceID, iss: .init(value: Self.issuer),
                                  iat: .init(value: now), exp: .init(value: now.addingTimeInterval(lifetime)))
        return try await keys.sign(claims)
    }

    /// The claims of a valid, unexpired token.
    /// - Throws: `ChatServerError.tokenExpired` or `.invalidToken` with jwt-kit's reason.
    package func verify(_ token: String) async throws -> AccessClaims {
        let claims: AccessClaims
        do {
            claims = try await keys.verify(token, as: AccessClaims.self)
        } catch let error as JWTError {
            throw ChatServerError.invalidToken(error.reason ?? error.errorType.description)
        } catch {
            throw ChatServerError.invalidToken("\(error)")
        }
        do {
            try claims.exp.verifyNotExpired(currentDate: clock.now())
        } catch {
            throw ChatServerError.tokenExpired
        }
        return claims
    }
}
