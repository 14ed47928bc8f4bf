import Foundation
import RoquaChatCore
import Testing

@testable import RoquaChatServer

/// The attacks of issue 51 on sign-in, each refused by one rule (each test fails without it).
enum SignInAbuseScenarios {
    static func request(_ h: ChatHarness, _ phone: String, headers: [(String, String)]) async throws -> HTTPResult {
        try await h.http.send(.POST, "/v1/auth/otp/request", json: OTPRequestBody(phone: try PhoneNumber(phone)), headers: headers)
    }

    static func check(
        _ h: ChatHarness, _ phone: String, request: String, code: String, headers: [(String, String)]
    ) async throws -> HTTPResult {
        try await h.http.send(
            .POST, "/v1/auth/otp/verify",
            json: OTPVerifyBody(phone: try PhoneNumber(phone), requestID: request, code: code, deviceID: "phone-1"),
            headers: headers)
    }

    /// As a trusted proxy on this machine forwards a request from `client`.
    static func via(_ client: String) -> [(String, String)] { [("X-Forwarded-For", client)] }

    /// The defaults, behind a trusted reverse proxy on this machine.
    static var proxied: ChatSettings {
        var settings = ChatSettings()
        settings.trustedProxies = ["127.0.0.1"]
        return settings
    }

    static var all: [Scenario] {
        [
            Scenario(
                "sign-in abuse: a proxy on this machine that is not trusted gets 503 naming --trusted-proxy on both routes, and sends nothing"
            ) { h in
                // Before: every client was 127.0.0.1, spared by the per-address limits (598 SMS in 0.48 s).
                for (index, header) in ["X-Forwarded-For", "Forwarded", "X-Real-IP"].enumerated() {
                    let refused = try await request(h, "+90555700000\(index)", headers: [(header, "203.0.113.\(index)")])
                    #expect(
                        refused.status == 503 && refused.errorCode == .unavailable && refused.text.contains("--trusted-proxy 127.0.0.1"),
                        "\(header): \(refused.status) \(refused.text)")
                }
                let guess = try await check(h, "+905557000000", request: "sr_none", code: "000000", headers: via("203.0.113.9"))
                #expect(guess.status == 503 && guess.errorCode == .unavailable)
                #expect(h.server.sms.sent.isEmpty)
                // A client on this machine itself (no proxy header) still signs in.
                #expect(try await request(h, "+905557000009", headers: []).status == 202)
            },
            Scenario(
                "sign-in abuse: IPv6 clients count per /64: 40 requests from one /64 get 10 codes sent, another /64 is on its own",
                settings: proxied
            ) { h in
                var answers: [Int] = []
                for index in 1...40 {
                    answers.append(
                        try await request(h, "+9055571\(String(format: "%05d", index))", headers: via("2001:db8:1:2::\(index)")).status)
                }
                #expect(answers.filter { $0 == 202 }.count == 10 && answers.dropFirst(10).allSatisfy { $0 == 429 }, "\(answers)")
                #expect(h.server.sms.sent.count == 10)
                // The same /64 written another way is the same client; the next /64 is another.
                #expect(try await request(h, "+905557200001", headers: via("2001:DB8:1:2:ffff::1")).status == 429)
                #expect(try await request(h, "+905557200002", headers: via("2001:db8:1:3::1")).status == 202)
            },
            Scenario("sign-in abuse: a second request for a number from the same address leaves the owner's code live", settings: proxied) {
                h in
                // Owner and stranger share one address (a hotel's network; before the 503 above, every
                // client of an untrusted local proxy): one "requester".
                let phone = "+905557300000"
                let shared = via("198.51.100.20")
                let owner = try await request(h, phone, headers: shared)
                let code = try #require(h.server.sms.lastCode(for: try PhoneNumber(phone)))
                h.clock.advance(by: 61)
                let stranger = try await request(h, phone, headers: shared)
                #expect(owner.status == 202 && stranger.status == 202 && h.server.sms.sent.count == 2)
                let theirs = try stranger.decode(OTPRequestAccepted.self).requestID
                #expect(
                    try await check(h, phone, request: theirs, code: code, headers: shared).errorCode == .invalidCode,
                    "the owner's code does not open the stranger's request")
                let signedIn = try await check(
                    h, phone, request: try owner.decode(OTPRequestAccepted.self).requestID, code: code, headers: shared)
                #expect(signedIn.status == 200, "\(signedIn.text)")
            },
            Scenario("sign-in abuse: the whole server checks at most 120 codes a minute, from however many addresses", settings: proxied) {
                h in
                // Before: no server-wide cap (120 checks in 1.2 s from one loopback client, none refused).
                var answers: [Int] = []
                for index in 0..<121 {
                    answers.append(
                        try await check(
                            h, "+905557400000", request: "sr_none", code: "000000", headers: via("10.1.\(index / 200).\(index % 200)")
                        ).status)
                }
                #expect(answers.dropLast().allSatisfy { $0 == 401 }, "\(Set(answers))")
                #expect(answers.last == 429)
                let refused = try await check(h, "+905557400000", request: "sr_none", code: "000000", headers: via("10.2.0.1"))
                #expect(refused.errorCode == .rateLimited && refused.text.contains("on this server"))
                h.clock.advance(by: 61)
                #expect(try await check(h, "+905557400000", request: "sr_none", code: "000000", headers: via("10.2.0.1")).status == 401)
            },
            Scenario(
                "sign-in abuse: by default the server sends at most 30 codes a minute and 300 an hour, from however many addresses",
                settings: proxied
            ) { h in
                var index = 0
                func next() async throws -> HTTPResult {
                    index += 1
                    return try await request(
                        h, "+9055575\(String(format: "%05d", index))", headers: via("10.3.\(index / 200).\(index % 200)"))
                }
                for minute in 0..<10 {
                    for _ in 0..<30 { #expect(try await next().status == 202, "minute \(minute)") }
                    let refused = try await next()
                    #expect(refused.status == 429 && refused.text.contains("on this server"), "minute \(minute): \(refused.text)")
                    h.clock.advance(by: 61)
                }
                let hour = try await next()
                #expect(
                    hour.status == 429 && hour.text.contains("this hour") && Int(hour.headers.first(name: "Retry-After") ?? "") ?? 0 > 2000,
                    "\(hour.text)")
                #expect(h.server.sms.sent.count == 300)
            },
        ]
    }
}
