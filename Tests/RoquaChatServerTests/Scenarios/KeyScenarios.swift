import Crypto
import Foundation
import Testing
import RoquaChatCore
@testable import RoquaChatServer

/// Group key epochs: the server stores sealed keys per device and hands each device its own.
enum KeyScenarios {
    static func agreementKey(_ byte: UInt8) -> String { Data(repeating: byte, count: 32).base64EncodedString() }

    static var all: [Scenario] { [
        Scenario("keys: the guide seals epochs for member devices; each device gets only its own; removal drops the device") { h in
            let (guide, group, members) = try await h.groupWithMembers(2)
            for (index, session) in ([guide] + members).enumerated() {
                let put = try await session.http.send(.PUT, "/v1/devices/agreement-key",
                                                      json: AgreementKeyBody(agreementKey: agreementKey(UInt8(index + 1))), token: session.token)
                #expect(put.status == 204)
            }
            let devices: GroupDeviceList = try await guide.get("/v1/groups/\(group.id)/devices").decode()
            #expect(devices.epoch == 0 && devices.devices.count == 3 && devices.devices.allSatisfy { $0.keyEpoch == nil })
            #expect(devices.devices.contains { $0.userID == members[0].userID && $0.agreementKey == agreementKey(2) })
            func entries(_ epoch: Int, _ sessions: [Session]) -> GroupKeysBody {
                GroupKeysBody(epoch: epoch, keys: sessions.map {
                    WrappedKeyEntry(userID: $0.userID, deviceID: $0.deviceID, epoch: epoch, sealed: "sealed-\(epoch)-\($0.userID)")
                })
            }
            let put1 = try await guide.http.send(.PUT, "/v1/groups/\(group.id)/keys", json: entries(1, [guide] + members), token: guide.token)
            #expect(put1.status == 200)
            let mine: GroupKeysBody = try await members[0].get("/v1/groups/\(group.id)/keys").decode()
            #expect(mine.epoch == 1 && mine.keys == entries(1, [members[0]]).keys)
            // Members may not hand out keys or list devices.
            #expect(try await members[0].http.send(.PUT, "/v1/groups/\(group.id)/keys", json: entries(2, members), token: members[0].token).status == 403)
            #expect(try await members[0].get("/v1/groups/\(group.id)/devices").status == 403)
            // Removal: the removed member's device is no longer a target, epoch 2 goes to the others only.
            #expect(try await guide.delete("/v1/groups/\(group.id)/members/\(members[1].userID)").status == 204)
            let after: GroupDeviceList = try await guide.get("/v1/groups/\(group.id)/devices").decode()
            #expect(Set(after.devices.map(\.userID)) == [guide.userID, members[0].userID] && after.devices.allSatisfy { $0.keyEpoch == 1 })
            let toRemoved = try await guide.http.send(.PUT, "/v1/groups/\(group.id)/keys", json: entries(2, [members[1]]), token: guide.token)
            #expect(toRemoved.status == 400 && toRemoved.errorCode == .invalidRequest)
            #expect(try await guide.http.send(.PUT, "/v1/groups/\(group.id)/keys", json: entries(2, [guide, members[0]]), token: guide.token).status == 200)
            #expect(try await members[1].get("/v1/groups/\(group.id)/keys").status == 403)
            let rotated: GroupKeysBody = try await members[0].get("/v1/groups/\(group.id)/keys").decode()
            #expect(rotated.epoch == 2 && rotated.keys.map(\.epoch) == [1, 2])
            // An older epoch cannot come back; a bad agreement key is refused.
            let stale = try await guide.http.send(.PUT, "/v1/groups/\(group.id)/keys", json: entries(1, [guide]), token: guide.token)
            #expect(stale.status == 400 && stale.text.contains("older"))
            let bad = try await guide.http.send(.PUT, "/v1/devices/agreement-key", json: AgreementKeyBody(agreementKey: "AAAA"), token: guide.token)
            #expect(bad.status == 400)
        },
    ] }
}

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
