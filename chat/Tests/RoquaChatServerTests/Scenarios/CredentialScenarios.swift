import Crypto
import Foundation
import Testing
import RoquaChatCore
@testable import RoquaChatServer

/// Peer credentials: signed by the server's key, checked offline.
enum CredentialScenarios {
    static var all: [Scenario] { [
        Scenario("credential: names the device's key and groups, verifies with the server key, not when altered or expired") { h in
            let deviceKey = Curve25519.Signing.PrivateKey()
            let guide = try await h.signIn("+905550000001", role: .guide, publicKey: deviceKey.publicKey.rawRepresentation.base64EncodedString())
            let group = try await guide.createGroup()
            let signed: SignedPeerCredential = try await guide.get("/v1/peer-credential").decode()
            let serverKey = try #require(Data(base64Encoded: signed.serverKey))
            let credential = try signed.verified(serverKey: serverKey, now: h.clock.now())
            #expect(credential.userID == guide.userID && credential.deviceID == guide.deviceID && credential.role == .guide)
            #expect(credential.groups == [group.id] && credential.signingKey == deviceKey.publicKey.rawRepresentation.base64EncodedString())
            #expect(credential.expiresAt == h.clock.now().addingTimeInterval(24 * 3600))
            // Same server key on every issue.
            let again: SignedPeerCredential = try await guide.get("/v1/peer-credential").decode()
            #expect(again.serverKey == signed.serverKey)
            var altered = signed
            var bytes = try #require(Data(base64Encoded: signed.credential))
            bytes[bytes.count / 2] ^= 0x01
            altered.credential = bytes.base64EncodedString()
            #expect(throws: PeerCredentialError.badSignature) { try altered.verified(serverKey: serverKey, now: h.clock.now()) }
            let impostor = try SignedPeerCredential.issue(credential, key: Curve25519.Signing.PrivateKey())
            #expect(throws: PeerCredentialError.badSignature) { try impostor.verified(serverKey: serverKey, now: h.clock.now()) }
            #expect(throws: PeerCredentialError.self) { try signed.verified(serverKey: serverKey, now: h.clock.now().addingTimeInterval(25 * 3600)) }
            // A device that registered no key gets none.
            let keyless = try await h.signIn("+905551112233")
            #expect(try await keyless.get("/v1/peer-credential").status == 400)
        },
    ] }
}
