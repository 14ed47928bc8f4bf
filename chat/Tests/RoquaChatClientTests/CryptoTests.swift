import Crypto
import Foundation
import RoquaChatCore
import Testing

@testable import RoquaChatClient

@Suite("Client crypto: bodies, epoch secrets, chains, invites, safety numbers, key files")
struct CryptoTests {
    let key = Data(repeating: 9, count: 32)
    let context = BodyContext(
        groupID: "group-a", epoch: 3, senderID: "alice", deviceID: "phone-a", chainIndex: 5, localID: "id-1",
        type: .text, sentAtMilliseconds: 1_700_000_000_000)

    @Test("a body opens only with the same key, group, epoch, author, device, chain index, id, type and time")
    func associatedData() throws {
        let sealed = try BodyCipher.seal(Data("Göreme'de buluşalım".utf8), key: key, context: context)
        #expect(try BodyCipher.open(sealed, key: key, context: context) == Data("Göreme'de buluşalım".utf8))
        var variants: [BodyContext] = []
        for change in 0..<8 {
            var other = context
            switch change {
            case 0: other.groupID = "group-b"
            case 1: other.epoch = 4
            case 2: other.senderID = "mallory"
            case 3: other.deviceID = "phone-m"
            case 4: other.chainIndex = 6
            case 5: other.localID = "id-2"
            case 6: other.type = .location
            default: other.sentAtMilliseconds += 1
            }
            variants.append(other)
        }
        for other in variants { #expect(throws: ChatClientError.self) { try BodyCipher.open(sealed, key: key, context: other) } }
        #expect(throws: ChatClientError.self) { try BodyCipher.open(sealed, key: Data(repeating: 8, count: 32), context: context) }
        var bytes = try #require(Data(base64Encoded: sealed))
        bytes[bytes.count / 2] ^= 1
        #expect(throws: ChatClientError.self) { try BodyCipher.open(bytes.base64EncodedString(), key: key, context: context) }
        #expect(throws: ChatClientError.self) { try BodyCipher.open("not base64!", key: key, context: context) }
    }

    @Test("an epoch secret sealed with HPKE opens only on its device, for its group and epoch, and only unaltered")
    func epochSecret() throws {
        let device = Curve25519.Signing.PrivateKey(), agreement = Curve25519.KeyAgreement.PrivateKey()
        let record = try SignedDeviceRecord.sign(
            DeviceRecord(
                userID: "u", deviceID: "device-1", identityKey: device.publicKey.rawRepresentation.base64EncodedString(),
                agreementKey: agreement.publicKey.rawRepresentation.base64EncodedString(), created: 1), with: device)
        let secret = EpochCrypto.newSecret()
        let sealed = try EpochCrypto.seal(secret, to: record, group: "g", epoch: 2)
        #expect(try EpochCrypto.open(sealed, with: agreement, group: "g", epoch: 2, device: "device-1") == secret)
        #expect(throws: ChatClientError.self) { try EpochCrypto.open(sealed, with: .init(), group: "g", epoch: 2, device: "device-1") }
        #expect(throws: ChatClientError.self) { try EpochCrypto.open(sealed, with: agreement, group: "g", epoch: 3, device: "device-1") }
        #expect(throws: ChatClientError.self) { try EpochCrypto.open(sealed, with: agreement, group: "h", epoch: 2, device: "device-1") }
        #expect(throws: ChatClientError.self) { try EpochCrypto.open(sealed, with: agreement, group: "g", epoch: 2, device: "device-2") }
        var bytes = try #require(Data(base64Encoded: sealed))
        bytes[bytes.count - 1] ^= 1
        #expect(throws: ChatClientError.self) {
            try EpochCrypto.open(bytes.base64EncodedString(), with: agreement, group: "g", epoch: 2, device: "device-1")
        }
        // The record's self-signature binds the X25519 key to the identity key: swapping it breaks the record.
        var swapped = record
        swapped.record.agreementKey = Curve25519.KeyAgreement.PrivateKey().publicKey.rawRepresentation.base64EncodedString()
        #expect(record.verifiedIdentityKey != nil && swapped.verifiedIdentityKey == nil)
    }

    @Test("sender chains: every device derives the same keys from the secret; a later chain key gives no earlier message key")
    func chains() throws {
        let secret = EpochCrypto.newSecret()
        let chain = EpochCrypto.senderChain(secret, group: "g", epoch: 1, device: "d")
        #expect(chain == EpochCrypto.senderChain(secret, group: "g", epoch: 1, device: "d"))
        #expect(chain != EpochCrypto.senderChain(secret, group: "g", epoch: 1, device: "e"))
        #expect(chain != EpochCrypto.senderChain(secret, group: "g", epoch: 2, device: "d"))
        var keys: [Data] = []
        var at = chain
        for _ in 0..<50 {
            let (message, next) = EpochCrypto.step(at)
            keys.append(message)
            at = next
        }
        #expect(Set(keys).count == 50)
        // From the chain key after message 49, walking forward never yields one of the used keys.
        var forward = at
        for _ in 0..<200 {
            let (message, next) = EpochCrypto.step(forward)
            #expect(!keys.contains(message))
            forward = next
        }
    }

    @Test("invite secrets round-trip as 16 characters; proofs bind the group, the device record and the inviter")
    func inviteSecrets() throws {
        let secret = InviteSecret.random()
        #expect(secret.text.count == 19 && InviteSecret(text: secret.text) == secret)
        #expect(InviteSecret(text: secret.text.lowercased().replacingOccurrences(of: "-", with: " ")) == secret)
        #expect(InviteSecret(text: "ABCD") == nil && InviteSecret(text: String(repeating: "U", count: 16)) == nil)
        let record = DeviceRecord(userID: "u", deviceID: "d", identityKey: "k", agreementKey: "x", created: 1)
        let proof = secret.joinProof(group: "g", record: record)
        #expect(secret.isJoinProof(proof, group: "g", record: record))
        #expect(!secret.isJoinProof(proof, group: "h", record: record))
        #expect(!InviteSecret.random().isJoinProof(proof, group: "g", record: record))
        var other = record
        other.identityKey = "k2"
        #expect(!secret.isJoinProof(proof, group: "g", record: other))
        let add = secret.addProof(group: "g", record: record, actorIdentity: "guide-key")
        #expect(secret.isAddProof(add, group: "g", record: record, actorIdentity: "guide-key"))
        #expect(!secret.isAddProof(add, group: "g", record: record, actorIdentity: "server-key"))
        #expect(!secret.isAddProof(proof, group: "g", record: record, actorIdentity: "guide-key"))
    }

    @Test("a safety number is the same on both sides, 12 groups of 5 digits, and changes with either key")
    func safetyNumbers() throws {
        let (a, b) = (
            ("alice", Curve25519.Signing.PrivateKey().publicKey.rawRepresentation.base64EncodedString()),
            ("bob", Curve25519.Signing.PrivateKey().publicKey.rawRepresentation.base64EncodedString())
        )
        let number = SafetyNumber.between(a, b)
        #expect(number == SafetyNumber.between(b, a))
        let groups = number.split(separator: " ")
        #expect(groups.count == 12 && groups.allSatisfy { $0.count == 5 && $0.allSatisfy(\.isNumber) })
        #expect(
            number != SafetyNumber.between(a, ("bob", Curve25519.Signing.PrivateKey().publicKey.rawRepresentation.base64EncodedString())))
        // Its QR code's text: scanned, or read out and typed with any spacing, it matches; nothing else does.
        let seen = MemberIdentity(userID: "bob", identityKey: b.1, safetyNumber: number, confirmed: false, changed: false)
        #expect(seen.scanText == "ROQUA-SN1:" + number.filter { $0 != " " })
        for scanned in [seen.scanText, " " + number + "\n", "roqua-sn1:" + number] { #expect(try seen.matches(scanned: scanned)) }
        let other = SafetyNumber.between(a, ("bob", Curve25519.Signing.PrivateKey().publicKey.rawRepresentation.base64EncodedString()))
        #expect(try !seen.matches(scanned: SafetyNumber.scanText(other)))
        for garbage in ["", "ROQUA-SN1:123", "https://example.org/" + number.filter { $0 != " " }, String(number.dropLast()) + "x"] {
            #expect(throws: ChatClientError.self) { try seen.matches(scanned: garbage) }
        }
    }

    @Test("device and session files are 0600; a key file others can read is refused")
    func filePermissions() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.file("device.json")
        let identity = try DeviceIdentity.loadOrCreate(path: path)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        #expect(try DeviceIdentity.loadOrCreate(path: path).signingPublicKey == identity.signingPublicKey)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        #expect {
            try DeviceIdentity.loadOrCreate(path: path)
        } throws: { error in
            "\(error)".contains("device.json") && "\(error)".contains("readable by others")
        }
        try Data("{".utf8).write(to: URL(fileURLWithPath: scratch.file("broken.json")))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: scratch.file("broken.json"))
        #expect { try DeviceIdentity.loadOrCreate(path: scratch.file("broken.json")) } throws: { "\($0)".contains("not a device key file") }
    }
}
