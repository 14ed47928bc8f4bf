import Crypto
import Foundation
import RoquaChatCore
@testable import RoquaChatClient
import Testing

@Suite("Client crypto: bodies, wrapped keys, key files")
struct CryptoTests {
    let key = GroupKey.random(groupID: "group-a", epoch: 3)

    @Test("a body opens only with the same group, author, id, epoch and type")
    func associatedData() throws {
        let sealed = try GroupCipher.seal(Data("Göreme'de buluşalım".utf8), key: key, senderID: "alice", localID: "id-1", type: .text)
        #expect(try GroupCipher.open(sealed, key: key, senderID: "alice", localID: "id-1", type: .text) == Data("Göreme'de buluşalım".utf8))
        let otherGroup = GroupKey(groupID: "group-b", epoch: 3, key: key.key)
        let otherEpoch = GroupKey(groupID: "group-a", epoch: 4, key: key.key)
        #expect(throws: ChatClientError.self) { try GroupCipher.open(sealed, key: otherGroup, senderID: "alice", localID: "id-1", type: .text) }
        #expect(throws: ChatClientError.self) { try GroupCipher.open(sealed, key: otherEpoch, senderID: "alice", localID: "id-1", type: .text) }
        #expect(throws: ChatClientError.self) { try GroupCipher.open(sealed, key: key, senderID: "mallory", localID: "id-1", type: .text) }
        #expect(throws: ChatClientError.self) { try GroupCipher.open(sealed, key: key, senderID: "alice", localID: "id-2", type: .text) }
        #expect(throws: ChatClientError.self) { try GroupCipher.open(sealed, key: key, senderID: "alice", localID: "id-1", type: .location) }
        var bytes = try #require(Data(base64Encoded: sealed))
        bytes[bytes.count / 2] ^= 1
        #expect(throws: ChatClientError.self) {
            try GroupCipher.open(bytes.base64EncodedString(), key: key, senderID: "alice", localID: "id-1", type: .text)
        }
        #expect(throws: ChatClientError.self) { try GroupCipher.open("not base64!", key: key, senderID: "alice", localID: "id-1", type: .text) }
    }

    @Test("a wrapped key opens only on its device, and only unaltered")
    func keyWrap() throws {
        let device = Curve25519.KeyAgreement.PrivateKey()
        let wrapped = try WrappedGroupKey.wrap(key, for: "device-1", publicKey: device.publicKey.rawRepresentation)
        let opened = try wrapped.unwrap(with: device)
        #expect(opened.epoch == 3 && opened.groupID == "group-a" && opened.rawBytes == key.rawBytes)
        #expect(throws: ChatClientError.self) { try wrapped.unwrap(with: Curve25519.KeyAgreement.PrivateKey()) }
        var relabelled = wrapped
        relabelled.epoch = 4
        #expect(throws: ChatClientError.self) { try relabelled.unwrap(with: device) }
        var redirected = wrapped
        redirected.recipientDeviceID = "device-2"
        #expect(throws: ChatClientError.self) { try redirected.unwrap(with: device) }
        #expect(throws: ChatClientError.self) { try WrappedGroupKey.wrap(key, for: "d", publicKey: Data([1, 2, 3])) }
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
