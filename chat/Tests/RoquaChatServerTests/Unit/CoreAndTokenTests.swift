import Crypto
import Foundation
import JWTKit
import RoquaChatCore
import Testing

@testable import RoquaChatServer

@Suite("Shared core and access tokens")
struct CoreAndTokenTests {
    @Test("phone numbers: normalized to E.164, refused with the value named, redacted for logs")
    func phones() throws {
        #expect(try PhoneNumber("+90 (555) 123-45.67").e164 == "+905551234567")
        #expect(try PhoneNumber("+905551234567").redacted == "+90••••••••67")
        for bad in ["05551234567", "+0555123456", "+1234567", "+1234567890123456", "+90555abc4567", ""] {
            #expect(throws: PhoneNumberError.invalid(bad)) { try PhoneNumber(bad) }
        }
        #expect("\(PhoneNumberError.invalid("0555"))".contains("'0555'"))
        // The national trunk prefix is dropped: one person, one account, however they write it.
        for (written, e164) in [
            ("+90 0555 123 45 67", "+905551234567"), ("+44 07700 900123", "+447700900123"),
            ("+49 030 1234567", "+49301234567"), ("+234 0803 123 4567", "+2348031234567"),
            ("+1 650 253 0000", "+16502530000"), ("+39 06 1234 5678", "+390612345678"),
            ("+225 07 12 34 56 78", "+2250712345678"),
        ] {
            #expect(try PhoneNumber(written).e164 == e164, "\(written)")
        }
        #expect(try PhoneNumber("+90 0555 123 45 67") == PhoneNumber("+905551234567"))
        #expect(throws: PhoneNumberError.self) { try PhoneNumber("+90 0") }
        #expect(throws: PhoneNumberError.self) { try PhoneNumber("+90 00555 123 45 67") }  // not a trunk prefix: refused, not guessed
    }

    @Test("calendar days: parsing, validity, UTC days from seconds")
    func days() throws {
        #expect(try CalendarDay("2024-02-29").description == "2024-02-29")
        for bad in ["2023-02-29", "2024-13-01", "2024-1-01", "tomorrow", "2024-04-31"] {
            #expect(throws: CalendarDayError.invalid(bad)) { try CalendarDay(bad) }
        }
        #expect(CalendarDay(utcSecondsSince1970: 0).description == "1970-01-01")
        #expect(CalendarDay(utcSecondsSince1970: 1_709_164_800).description == "2024-02-29")
        #expect(CalendarDay(utcSecondsSince1970: -1).description == "1969-12-31")
        #expect(try CalendarDay("2024-01-31") < CalendarDay("2024-02-01"))
    }

    @Test("UUIDv7: version and variant bits, time-ordered")
    func uuid() {
        let early = UUIDv7.make(at: Date(timeIntervalSince1970: 1_000))
        let late = UUIDv7.make(at: Date(timeIntervalSince1970: 2_000))
        #expect(early < late && early.count == 36)
        let chars = Array(early)
        #expect(chars[14] == "7" && "89ab".contains(chars[19]))
        #expect(
            ClientIdentifier.isValid(early) && !ClientIdentifier.isValid("a b")
                && !ClientIdentifier.isValid(String(repeating: "a", count: 65)))
    }

    @Test("times: milliseconds on the wire, with or without fractions")
    func times() throws {
        let date = Date(timeIntervalSince1970: 1_746_000_000.1239)
        #expect(ChatTime.format(date) == "2025-04-30T08:00:00.124Z")
        #expect(ChatTime.parse("2025-04-30T08:00:00.124Z").map(ChatTime.milliseconds) == 1_746_000_000_124)
        #expect(ChatTime.parse("2025-04-30T08:00:00Z") == Date(timeIntervalSince1970: 1_746_000_000))
        #expect(ChatTime.parse("30/04/2025") == nil)
    }

    @Test("signing fields: canonical metadata, every field matters, signatures verify only unaltered")
    func signing() throws {
        let key = Curve25519.Signing.PrivateKey()
        let a = PushMessage(
            localID: "l", groupID: "g", type: .location, content: "c", sentAt: Date(timeIntervalSince1970: 1),
            metadata: .object(["b": .number(2), "a": .string("x/y")]), deviceID: "d", keyEpoch: 3)
        let fields = try MessageSigningFields(a, senderID: "s")
        #expect(fields.canonicalMetadata == Data(#"{"a":"x/y","b":2}"#.utf8))
        let signature = try DeviceSignature.sign(fields, with: key)
        let publicKey = key.publicKey.rawRepresentation
        #expect(DeviceSignature.verify(signature, of: fields, publicKey: publicKey))
        var variants: [PushMessage] = []
        for change in 0..<6 {
            var b = a
            switch change {
            case 0: b.content = "C"
            case 1: b.groupID = "h"
            case 2: b.type = .text
            case 3: b.sentAt = Date(timeIntervalSince1970: 2)
            case 4: b.keyEpoch = 4
            default: b.metadata = .object(["a": .string("x/y")])
            }
            variants.append(b)
        }
        for variant in variants {
            let other = try MessageSigningFields(variant, senderID: "s")
            #expect(other.digest != fields.digest)
            #expect(!DeviceSignature.verify(signature, of: other, publicKey: publicKey))
        }
        #expect(!DeviceSignature.verify(signature, of: try MessageSigningFields(a, senderID: "t"), publicKey: publicKey))
        #expect(DeviceSignature.publicKey(base64: publicKey.base64EncodedString()) == publicKey)
        #expect(DeviceSignature.publicKey(base64: "AAAA") == nil)
    }

    @Test("access tokens: valid until expiry on the server's clock; alg none and foreign keys refused")
    func accessTokens() async throws {
        let clock = ManualClock()
        let secret = ServerSecret.random()
        let tokens = await AccessTokens(secret: secret, clock: clock, lifetime: 900)
        let token = try await tokens.issue(userID: "u", deviceID: "d", session: "s")
        let claims = try await tokens.verify(token)
        #expect(claims.sub.value == "u" && claims.did == "d" && claims.sid == "s" && claims.typ == "access")
        #expect(claims.aud.value == ["roqua-chat-api"] && !claims.jti.value.isEmpty)
        #expect(try await tokens.verify(try await tokens.issue(userID: "u", deviceID: "d", session: "s")).jti != claims.jti)
        clock.advance(by: 899)
        _ = try await tokens.verify(token)
        clock.advance(by: 1)
        await #expect(throws: ChatServerError.tokenExpired) { try await tokens.verify(token) }

        let parts = token.split(separator: ".").map(String.init)
        let none = Base64URL.encode(Data(#"{"alg":"none","typ":"JWT"}"#.utf8))
        await #expect(throws: ChatServerError.self) { try await tokens.verify(none + "." + parts[1] + ".") }
        let foreign = await AccessTokens(secret: .random(), clock: clock, lifetime: 900)
        await #expect(throws: ChatServerError.self) {
            try await tokens.verify(try await foreign.issue(userID: "u", deviceID: "d", session: "s"))
        }
        // Same key, other algorithm (HS384): refused too.
        let keyBytes = secret.key(for: .accessToken).withUnsafeBytes { Data($0) }
        let hs384 = await JWTKeyCollection().add(hmac: HMACKey(from: keyBytes + keyBytes), digestAlgorithm: .sha384)
        let other = try await hs384.sign(tokens.claims(userID: "u", deviceID: "d", session: "s"))
        await #expect(throws: ChatServerError.self) { try await tokens.verify(other) }
        // Another issuer with the right key: refused.
        let sameKey = await JWTKeyCollection().add(hmac: HMACKey(from: keyBytes), digestAlgorithm: .sha256)
        var claims2 = tokens.claims(userID: "u", deviceID: "d", session: "s")
        claims2.iss = "someone"
        await #expect(throws: ChatServerError.self) { try await tokens.verify(try await sameKey.sign(claims2)) }
        // Right key, but not an access token, or meant for another audience: refused.
        var refreshLike = tokens.claims(userID: "u", deviceID: "d", session: "s")
        refreshLike.typ = "refresh"
        await #expect(throws: ChatServerError.self) { try await tokens.verify(try await tokens.sign(refreshLike)) }
        var elsewhere = tokens.claims(userID: "u", deviceID: "d", session: "s")
        elsewhere.aud = "another-service"
        await #expect(throws: ChatServerError.self) { try await tokens.verify(try await tokens.sign(elsewhere)) }
        // Right key, issued in the future beyond the skew, or living longer than policy: refused.
        var future = tokens.claims(userID: "u", deviceID: "d", session: "s")
        future.iat.value += 120
        future.exp.value += 120
        await #expect(throws: ChatServerError.invalidToken("issued in the future")) {
            try await tokens.verify(try await tokens.sign(future))
        }
        future.iat.value -= 90
        future.exp.value -= 90
        _ = try await tokens.verify(try await tokens.sign(future))
        var forever = tokens.claims(userID: "u", deviceID: "d", session: "s")
        forever.exp.value = forever.iat.value.addingTimeInterval(10 * 365 * 86_400)
        await #expect(throws: ChatServerError.invalidToken("lives longer than the server issues tokens for")) {
            try await tokens.verify(try await tokens.sign(forever))
        }
    }

    @Test("MACs: the constant-time check accepts exactly the right text; secrets need 32 bytes")
    func macs() throws {
        let mac = KeyedMAC(ServerSecret.random().key(for: .signInCode))
        let stored = mac.mac("+905551112233|123456")
        #expect(mac.matches(stored, "+905551112233|123456"))
        for wrong in ["+905551112233|123457", "+905551112233|023456", "+905551112234|123456", "", "+905551112233|1234560"] {
            #expect(!mac.matches(stored, wrong))
        }
        #expect(!mac.matches(stored.prefix(16), "+905551112233|123456"), "a truncated MAC never matches")
        #expect(throws: ServerSecretError.tooShort(source: "the secret", bytes: 31)) { try ServerSecret(bytes: Data(count: 31)) }
        let codes = (0..<2000).map { _ in SecureRandom.signInCode() }
        #expect(codes.allSatisfy { $0.count == 6 && $0.allSatisfy(\.isNumber) })
        #expect(Set(codes).count > 1900, "codes are drawn at random")
        #expect(SecureRandom.inviteCode().count == 14 && SecureRandom.token(prefix: "rt_").count == 46)
    }
}
