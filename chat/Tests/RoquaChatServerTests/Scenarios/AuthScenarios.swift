import Foundation
import RoquaChatCore
import Testing

@testable import RoquaChatServer

/// Sign-in by SMS code: always 202, resend limits, expiry, lockout, back-off.
enum AuthScenarios {
    static let phone = "+905551112233"

    static func request(_ h: ChatHarness, _ phone: String = phone) async throws -> HTTPResult {
        try await h.http.send(.POST, "/v1/auth/otp/request", json: OTPRequestBody(phone: try PhoneNumber(phone)))
    }

    /// Asks for a code; the request id the server answered.
    static func ask(_ h: ChatHarness, _ phone: String = phone) async throws -> String {
        let result = try await request(h, phone)
        guard result.status == 202 else { throw TestFailure("otp request: HTTP \(result.status)") }
        return try result.decode(OTPRequestAccepted.self).requestID
    }

    static func verify(
        _ h: ChatHarness, _ request: String, code: String, phone: String = phone,
        device: String = "phone-1"
    ) async throws -> HTTPResult {
        try await h.http.send(
            .POST, "/v1/auth/otp/verify",
            json: OTPVerifyBody(phone: try PhoneNumber(phone), requestID: request, code: code, deviceID: device))
    }

    static func wrongCode(for code: String) -> String {
        String(format: "%06d", (Int(code)! + 1) % 1_000_000)
    }

    static var limited: ChatSettings {
        var settings = ChatSettings()
        settings.limitLoopback = true
        settings.codeRequestsPerAddress = 3
        settings.codeChecksPerAddress = 4
        return settings
    }

    static func fromProxy(_ h: ChatHarness, _ phone: String, client: String) async throws -> HTTPResult {
        try await h.http.send(
            .POST, "/v1/auth/otp/request", json: OTPRequestBody(phone: try PhoneNumber(phone)),
            headers: [("X-Forwarded-For", "198.51.100.1, \(client)")])
    }

    static var behindProxy: ChatSettings {
        var settings = ChatSettings()
        settings.trustedProxies = ["127.0.0.1"]
        settings.codeRequestsPerAddress = 2
        return settings
    }

    static var serverWide: ChatSettings {
        var settings = ChatSettings()
        settings.codeRequestsPerServer = 5
        return settings
    }

    static var all: [Scenario] {
        [
            Scenario(
                "sign-in abuse: one address gets codes sent to 3 numbers a minute, then 429 with Retry-After and nothing sent",
                settings: limited
            ) { h in
                for index in 0..<3 { #expect(try await request(h, "+90555300000\(index)").status == 202) }
                let refused = try await request(h, "+905553000009")
                #expect(
                    refused.status == 429 && refused.errorCode == .rateLimited
                        && Int(refused.headers.first(name: "Retry-After") ?? "") ?? 0 > 0, "\(refused.text)")
                #expect(try h.server.sms.sent.count == 3 && h.server.sms.lastCode(for: PhoneNumber("+905553000009")) == nil)
                // Guessing: 4 checks a minute from one address, then 429 (not counted against the number).
                // (Spread over numbers, so that no number's own back-off answers first.)
                for index in 0..<4 { #expect(try await verify(h, "sr_none", code: "000000", phone: "+90555300000\(index)").status == 401) }
                let guessing = try await verify(h, "sr_none", code: "000000", phone: "+905553000005")
                #expect(guessing.status == 429 && guessing.errorCode == .rateLimited)
                h.clock.advance(by: 61)
                #expect(try await request(h, "+905553000009").status == 202)
            },
            Scenario("sign-in abuse: behind a trusted proxy each client's forwarded address is counted on its own", settings: behindProxy) {
                h in
                for index in 0..<2 { #expect(try await fromProxy(h, "+90555500000\(index)", client: "203.0.113.5").status == 202) }
                let third = try await fromProxy(h, "+905555000002", client: "203.0.113.5")
                #expect(third.status == 429 && third.errorCode == .rateLimited, "\(third.text)")
                #expect(try await fromProxy(h, "+905555000003", client: "203.0.113.6").status == 202, "another client behind the proxy")
            },
            // A client that is no trusted proxy and sends X-Forwarded-For is counted by its own address
            // (ClientAddressTests: tests reach only 127.0.0.1, where such a client is refused outright,
            // SignInAbuseScenarios).
            Scenario("sign-in abuse: the whole server sends at most its limit of codes a minute, whoever asks", settings: serverWide) { h in
                for index in 0..<5 { #expect(try await request(h, "+90555400000\(index)").status == 202) }
                let refused = try await request(h, "+905554000009")
                #expect(refused.status == 429 && refused.text.contains("on this server"))
                #expect(h.server.sms.sent.count == 5)
            },
            Scenario("sign-in: a verified code creates the user with role user and returns working tokens") { h in
                let asked = try await ask(h)
                let code = try #require(h.server.sms.lastCode(for: try PhoneNumber(phone)))
                #expect(code.count == 6 && code.allSatisfy(\.isNumber))
                let result = try await verify(h, asked, code: code)
                #expect(result.status == 200)
                let tokens: AuthTokens = try result.decode()
                #expect(tokens.user.role == .user && tokens.user.phone.e164 == phone)
                #expect(tokens.expiresIn == 900 && tokens.tokenType == "Bearer")
                let me = try await h.http.send(.GET, "/v1/me", token: tokens.accessToken)
                #expect(me.status == 200)
                #expect(try me.decode(UserInfo.self) == tokens.user)
                // Single use: the same code does not sign in twice.
                #expect(try await verify(h, asked, code: code).errorCode == .invalidCode)
            },
            Scenario("sign-in: requests always answer 202; resends need 60 s and at most 5 go out per hour") { h in
                let number = try PhoneNumber(phone)
                func sent() -> Int { h.server.sms.sent.filter { $0.phone == number }.count }
                #expect(try await request(h).status == 202)
                h.clock.advance(by: 59)
                #expect(try await request(h).status == 202)
                #expect(sent() == 1, "a resend before 60 s is silently dropped")
                h.clock.advance(by: 1)
                #expect(try await request(h).status == 202)
                #expect(sent() == 2)
                for _ in 0..<3 {
                    h.clock.advance(by: 60)
                    _ = try await request(h)
                }
                #expect(sent() == 5)
                h.clock.advance(by: 60)
                #expect(try await request(h).status == 202)
                #expect(sent() == 5, "a sixth code within the hour is dropped")
                // An hour after the first send, one slot frees up.
                h.clock.advance(by: 3600 - 5 * 60)
                _ = try await request(h)
                #expect(sent() == 6)
                // Another phone is unaffected.
                _ = try await request(h, "+905559998877")
                #expect(h.server.sms.sent.count == 7)
            },
            Scenario("sign-in: a code expires after 5 minutes") { h in
                let asked = try await ask(h)
                let code = try #require(h.server.sms.lastCode(for: try PhoneNumber(phone)))
                h.clock.advance(by: 5 * 60 + 1)
                #expect(try await verify(h, asked, code: code).errorCode == .codeExpired)
            },
            Scenario("sign-in: 5 wrong guesses kill the code; the right one then fails too") { h in
                let asked = try await ask(h)
                let code = try #require(h.server.sms.lastCode(for: try PhoneNumber(phone)))
                for guess in 0..<5 {
                    let result = try await verify(h, asked, code: wrongCode(for: code))
                    #expect(result.status == 401 && result.errorCode == .invalidCode, "guess \(guess)")
                    h.clock.advance(by: 20)
                }
                #expect(try await verify(h, asked, code: code).errorCode == .invalidCode)
                // A new code works at once: attempts and back-off belong to the code.
                let again = try await ask(h)
                let fresh = try #require(h.server.sms.lastCode(for: try PhoneNumber(phone)))
                #expect(try await verify(h, again, code: fresh).status == 200)
            },
            Scenario("sign-in: wrong guesses back off, doubling per failure, with Retry-After") { h in
                let asked = try await ask(h)
                let code = try #require(h.server.sms.lastCode(for: try PhoneNumber(phone)))
                var waits: [String] = []
                for _ in 0..<4 {
                    #expect(try await verify(h, asked, code: wrongCode(for: code)).errorCode == .invalidCode)
                    let blocked = try await verify(h, asked, code: code)
                    #expect(blocked.status == 429 && blocked.errorCode == .tooManyAttempts)
                    waits.append(blocked.headers.first(name: "Retry-After") ?? "-")
                    h.clock.advance(by: Double(Int(waits.last!) ?? 0))
                }
                #expect(waits == ["1", "2", "4", "8"])
                // Blocked guesses do not count: the right code still works on the fifth try.
                #expect(try await verify(h, asked, code: code).status == 200)
            },
            Scenario(
                "sign-in abuse: a stranger's guesses never touch the owner's code or its back-off (the code is locked, not the person)"
            ) { h in
                let asked = try await ask(h)
                let code = try #require(h.server.sms.lastCode(for: try PhoneNumber(phone)))
                // The stranger asks too (throttled: the owner's code stays the live one) and guesses
                // on their own request, on made-up ones, and with the owner's right code on theirs.
                let theirs = try await ask(h)
                #expect(theirs != asked)
                for guess in 0..<12 {
                    let request = guess % 2 == 0 ? theirs : "sr_made-up-\(guess)"
                    let result = try await verify(h, request, code: guess == 11 ? code : wrongCode(for: code))
                    #expect(result.status == 401 && result.errorCode == .invalidCode, "guess \(guess): \(result.text)")
                }
                // No lockout, no lost attempts: the owner signs in at once with the code they got.
                let owner = try await verify(h, asked, code: code)
                #expect(owner.status == 200, "\(owner.text)")
            },
            Scenario("sign-in: the code is stored only as a 32-byte HMAC") { h in
                let asked = try await ask(h)
                let number = try PhoneNumber(phone)
                let code = try #require(h.server.sms.lastCode(for: number))
                let state = try await h.store.updateOTP(phone: number) { $0 }
                let stored = try #require(state.codes.first)
                #expect(state.codes.count == 1 && stored.mac.count == 32)
                #expect(stored.mac.range(of: Data(code.utf8)) == nil)
                #expect(stored.attemptsLeft == 5)
                // Neither the request id nor the client address is stored as such.
                let text = try state.encoded()
                #expect(!text.contains(asked) && !text.contains("127.0.0.1") && !text.contains(code))
            },
            Scenario("sign-in: malformed codes, phones and device ids are 400s; unknown phones get the same 401") { h in
                let asked = try await ask(h)
                #expect(try await verify(h, asked, code: "12a456").status == 400)
                #expect(try await verify(h, asked, code: "1234567").status == 400)
                #expect(try await verify(h, asked, code: "123456", device: "bad device id!").status == 400)
                let badPhone = try await h.http.send(.POST, "/v1/auth/otp/request", data: Data(#"{"phone":"0555 111"}"#.utf8))
                #expect(badPhone.status == 400 && badPhone.errorCode == .invalidRequest)
                #expect(badPhone.text.contains("0555 111"))
                #expect(try await verify(h, asked, code: "123456", phone: "+905550001111").errorCode == .invalidCode)
            },
            Scenario("sign-in: a body nested past 512 brackets, the last byte crossing the limit, is a 400 and the server lives") { h in
                // Foundation's decoder crashed the process on exactly these bodies (anyone could send one).
                for body in [String(repeating: "[", count: 513), String(repeating: #"{"phone":"#, count: 512) + "["] {
                    let refused = try await h.http.send(.POST, "/v1/auth/otp/request", data: Data(body.utf8))
                    #expect(refused.status == 400 && refused.errorCode == .invalidRequest)
                }
                _ = try await ask(h)
            },
        ]
    }
}
