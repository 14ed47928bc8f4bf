import Crypto
import Foundation
import RoquaChatCore
import Testing

@testable import RoquaChatServer

/// Access-token expiry, refresh rotation, reuse detection and the grace window.
enum TokenScenarios {
    static func refresh(_ h: ChatHarness, _ token: String, signedBy key: Curve25519.Signing.PrivateKey? = nil) async throws -> HTTPResult {
        let proof = try key.map { try DeviceSignature.sign(RefreshBody.proofPayload(token), with: $0) }
        return try await h.http.send(.POST, "/v1/auth/refresh", json: RefreshBody(refreshToken: token, proof: proof))
    }

    static func logout(_ h: ChatHarness, _ token: String, allDevices: Bool = false) async throws -> HTTPResult {
        try await h.http.send(.POST, "/v1/auth/logout", json: RefreshBody(refreshToken: token, allDevices: allDevices ? true : nil))
    }

    static var all: [Scenario] {
        [
            Scenario("tokens: an access token expires after 15 minutes; a refresh brings a working one") { h in
                let session = try await h.signIn("+905551110001")
                h.clock.advance(by: 14 * 60)
                #expect(try await session.get("/v1/me").status == 200)
                h.clock.advance(by: 61)
                let expired = try await session.get("/v1/me")
                #expect(expired.status == 401 && expired.errorCode == .tokenExpired)
                #expect(expired.headers.first(name: "WWW-Authenticate")?.contains("invalid_token") == true)
                let refreshed: AuthTokens = try await refresh(h, session.tokens.refreshToken).decode()
                #expect(try await h.http.send(.GET, "/v1/me", token: refreshed.accessToken).status == 200)
            },
            Scenario("tokens: every refresh rotates; an old token replayed after the grace window revokes the sign-in") { h in
                let session = try await h.signIn("+905551110002")
                let first = session.tokens.refreshToken
                let second: AuthTokens = try await refresh(h, first).decode()
                #expect(second.refreshToken != first)
                h.clock.advance(by: 31)
                let third: AuthTokens = try await refresh(h, second.refreshToken).decode()
                h.clock.advance(by: 31)
                let replay = try await refresh(h, first)
                #expect(replay.status == 401 && replay.errorCode == .refreshTokenReused)
                // The whole family is dead, including the newest token.
                #expect(try await refresh(h, third.refreshToken).errorCode == .refreshTokenInvalid)
                // Another sign-in of the same user is a different family and unaffected.
                let other = try await h.signIn("+905551110002", device: "tablet")
                #expect(try await refresh(h, other.tokens.refreshToken).status == 200)
            },
            Scenario("tokens: concurrent refreshes within the grace window get the same successor, nobody is logged out") { h in
                let session = try await h.signIn("+905551110003")
                let token = session.tokens.refreshToken
                async let a = refresh(h, token)
                async let b = refresh(h, token)
                let (first, second) = try await (a, b)
                #expect(first.status == 200 && second.status == 200)
                let next: AuthTokens = try first.decode()
                #expect(try second.decode(AuthTokens.self).refreshToken == next.refreshToken)
                h.clock.advance(by: 10)
                #expect(try await refresh(h, token).status == 200, "still within the grace window")
                h.clock.advance(by: 60)
                #expect(try await refresh(h, next.refreshToken).status == 200, "the successor is alive")
            },
            Scenario("tokens: a token whose successor was already used answers 409 within the grace window") { h in
                let session = try await h.signIn("+905551110004")
                let first = session.tokens.refreshToken
                let second: AuthTokens = try await refresh(h, first).decode()
                let third: AuthTokens = try await refresh(h, second.refreshToken).decode()
                let late = try await refresh(h, first)
                #expect(late.status == 409 && late.errorCode == .refreshTokenSuperseded)
                #expect(try await refresh(h, third.refreshToken).status == 200, "no revocation")
            },
            Scenario("tokens: a refresh token expires after 30 days; sign-out revokes it") { h in
                let session = try await h.signIn("+905551110005")
                h.clock.advance(by: 30 * 24 * 3600 + 1)
                #expect(try await refresh(h, session.tokens.refreshToken).errorCode == .refreshTokenExpired)
                let again = try await h.signIn("+905551110005")
                let logout = try await logout(h, again.tokens.refreshToken)
                #expect(logout.status == 200 && (try? logout.decode(LogoutResult.self).signInsEnded) == 1)
                #expect(try await refresh(h, again.tokens.refreshToken).errorCode == .refreshTokenInvalid)
                #expect(try await refresh(h, "rt_unknown").errorCode == .refreshTokenInvalid)
            },
            Scenario("tokens: signing out ends the access token at once, not when it expires") { h in
                let session = try await h.signIn("+905551110007")
                h.clock.advance(by: 60)  // the resend interval
                let other = try await h.signIn("+905551110007", device: "tablet")
                #expect(try await session.get("/v1/me").status == 200)
                #expect(try await logout(h, session.tokens.refreshToken).status == 200)
                let after = try await session.get("/v1/me")
                #expect(
                    after.status == 401 && after.errorCode == .unauthorized && after.text.contains("sign-in has ended"), "\(after.text)")
                #expect(try await other.get("/v1/me").status == 200, "the user's other device stays signed in")
            },
            Scenario("tokens: log out all devices ends every sign-in of the user and their access tokens at once") { h in
                let phone = try await h.signIn("+905551110008")
                h.clock.advance(by: 60)
                let tablet = try await h.signIn("+905551110008", device: "tablet")
                let stranger = try await h.signIn("+905551110009")
                let result = try await logout(h, phone.tokens.refreshToken, allDevices: true)
                #expect(result.status == 200 && (try? result.decode(LogoutResult.self).signInsEnded) == 2, "\(result.text)")
                #expect(try await tablet.get("/v1/me").status == 401)
                #expect(try await phone.get("/v1/me").status == 401)
                #expect(try await refresh(h, tablet.tokens.refreshToken).errorCode == .refreshTokenInvalid)
                #expect(try await stranger.get("/v1/me").status == 200, "another user is unaffected")
                // Signing in again works as before.
                h.clock.advance(by: 60)
                #expect(try await h.signIn("+905551110008").get("/v1/me").status == 200)
            },
            Scenario(
                "tokens: a refresh token copied off a device is useless without the device's key and ends the sign-in, even within the grace window"
            ) { h in
                let key = Curve25519.Signing.PrivateKey()
                let session = try await h.signIn("+905551110010", publicKey: key.publicKey.rawRepresentation.base64EncodedString())
                let stolen = session.tokens.refreshToken
                let renewed = try await refresh(h, stolen, signedBy: key)
                #expect(renewed.status == 200, "\(renewed.text)")
                let next: AuthTokens = try renewed.decode()
                // Within the 30 s grace window, from another device: no proof, then a proof by another key.
                h.clock.advance(by: 5)
                let thief = try await refresh(h, stolen)
                #expect(thief.status == 401 && thief.errorCode == .refreshTokenReused, "\(thief.text)")
                #expect(try await refresh(h, next.refreshToken, signedBy: key).errorCode == .refreshTokenInvalid, "the sign-in is over")
                #expect(try await h.http.send(.GET, "/v1/me", token: next.accessToken).status == 401, "and its access token with it")
                h.clock.advance(by: 60)
                let again = try await h.signIn("+905551110010", publicKey: key.publicKey.rawRepresentation.base64EncodedString())
                let forged = try await refresh(h, again.tokens.refreshToken, signedBy: Curve25519.Signing.PrivateKey())
                #expect(forged.errorCode == .refreshTokenReused)
                #expect(try await again.get("/v1/me").status == 401)
            },
            Scenario("tokens: alg none, a foreign key, a tampered payload and garbage are all 401") { h in
                let session = try await h.signIn("+905551110006")
                let parts = session.token.split(separator: ".").map(String.init)
                let noneHeader = Base64URL.encode(Data(#"{"alg":"none","typ":"JWT"}"#.utf8))
                for token in [noneHeader + "." + parts[1] + ".", noneHeader + "." + parts[1]] {
                    #expect(try await h.http.send(.GET, "/v1/me", token: token).status == 401)
                }
                let foreign = await AccessTokens(secret: .random(), clock: h.clock, lifetime: 900)
                let forged = try await foreign.issue(userID: session.userID, deviceID: "x", session: "s")
                #expect(try await h.http.send(.GET, "/v1/me", token: forged).status == 401)
                let admin = Base64URL.encode(Data(#"{"sub":"someone-else","did":"x","iss":"roqua-chat","iat":1,"exp":9999999999}"#.utf8))
                #expect(try await h.http.send(.GET, "/v1/me", token: parts[0] + "." + admin + "." + parts[2]).status == 401)
                #expect(try await h.http.send(.GET, "/v1/me", token: "garbage").status == 401)
                let missing = try await h.http.send(.GET, "/v1/me")
                #expect(missing.status == 401 && missing.headers.first(name: "WWW-Authenticate") == "Bearer")
            },
            Scenario("tokens: a header or payload nested past 512 brackets is a 401, not a crash, before any signature is checked") { h in
                // jwt-kit decodes both before it verifies: with Foundation's decoder these crashed the server.
                let session = try await h.signIn("+905551110012")
                let parts = session.token.split(separator: ".").map(String.init)
                let deep = Base64URL.encode(Data(String(repeating: "[", count: 513).utf8))
                for token in [deep + "." + parts[1] + "." + parts[2], parts[0] + "." + deep + "." + parts[2]] {
                    #expect(try await h.http.send(.GET, "/v1/me", token: token).status == 401)
                }
                #expect(try await h.http.send(.GET, "/v1/me", token: session.token).status == 200)
            },
        ]
    }
}
