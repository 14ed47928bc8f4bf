import Foundation
import RoquaChatCore
@testable import RoquaChatClient
import Testing

@Suite("Group key epochs through the real server")
struct KeyEpochTests {
    @Test("a removed member cannot decrypt what is sent after the removal; the others can")
    func removedMember() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await LiveServer(directory: scratch)
        let party = try await TourParty.make(server, in: scratch)
        let (guide, stays, leaves) = (party.guide, party.travellers[0], party.travellers[1])
        let group = party.group.id
        try await guide.send(groupID: group, text: "Herkese günaydın")
        _ = try await guide.engine.sync()
        try await guide.removeMember(groupID: group, userID: try await leaves.user().id)
        let after = try await guide.send(groupID: group, text: "Yarınki rota değişti")
        #expect(after.keyEpoch == 2)
        for client in [guide, stays, leaves] { _ = try await client.engine.sync() }
        #expect(try stays.messages(groupID: group).map(\.body) == ["Herkese günaydın", "Yarınki rota değişti"])
        #expect(try leaves.messages(groupID: group).map(\.body) == ["Herkese günaydın"])
        // Even holding the ciphertext (a relay, a copy of the server's database), the removed
        // member has no key of epoch 2, and its epoch-1 key does not open it.
        let stored = try await server.store.messages(groupID: group, after: 0, upTo: nil, limit: 10)
        let secret = try #require(stored.first { $0.localID == after.localID })
        #expect(try leaves.store.groupKey(groupID: group, epoch: 2) == nil)
        let old = try #require(try leaves.store.groupKey(groupID: group, epoch: 1))
        #expect(throws: ChatClientError.self) {
            try GroupCipher.open(secret.content, key: GroupKey(groupID: group, epoch: 2, key: old.key),
                                 senderID: secret.senderID, localID: secret.localID, type: .text)
        }
        #expect(leaves.codec.incoming(secret, key: nil).body == nil)
        await server.stop()
    }

    @Test("a member who joins later gets the current epoch only, and reads messages sent before the key arrived")
    func lateJoiner() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await LiveServer(directory: scratch)
        let party = try await TourParty.make(server, in: scratch)
        let group = party.group.id
        try await party.guide.removeMember(groupID: group, userID: try await party.travellers[1].user().id)
        let late = try ChatClient(home: scratch.file("late"))
        try await server.signIn(late, phone: "+905551000003")
        _ = try await late.join(code: try await party.guide.invite(groupID: group, phone: "+905551000003").code)
        await #expect(throws: ChatClientError.noGroupKey(group: group, epoch: 0)) { try await late.send(groupID: group, text: "erken") }
        // A member who already holds epoch 2 writes before the guide's device has sealed it for
        // the newcomer: the newcomer holds the message but cannot read it yet.
        let stays = party.travellers[0]
        _ = try await stays.engine.sync()
        try await stays.send(groupID: group, text: "Hoş geldin")
        _ = try await stays.engine.sync()
        _ = try await late.engine.sync()
        #expect(try late.messages(groupID: group).map(\.body) == [nil])
        _ = try await party.guide.engine.sync()
        _ = try await late.engine.sync()
        #expect(try late.messages(groupID: group).map(\.body) == ["Hoş geldin"])
        #expect(try late.store.groupKey(groupID: group, epoch: 1) == nil)
        #expect(try late.store.groupKey(groupID: group, epoch: 2) != nil)
        await server.stop()
    }
}

@Suite("Peer credential at sign-in")
struct CredentialTests {
    @Test("sign-in pins the server key and keeps a credential naming this device's key and groups")
    func credential() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await LiveServer(directory: scratch)
        let party = try await TourParty.make(server, in: scratch)
        let traveller = party.travellers[0]
        let (signed, serverKey) = try #require(await traveller.credential)
        let credential = try signed.verified(serverKey: try #require(Data(base64Encoded: serverKey)), now: Date())
        #expect(credential.deviceID == traveller.identity.deviceID && credential.signingKey == traveller.identity.signingPublicKey)
        #expect(credential.groups == [party.group.id])
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: traveller.home + "/session.json")[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        await server.stop()
    }
}

@Suite("A device's home is private")
struct HomePrivacyTests {
    @Test("the home is 0700; its database (and -wal, -shm), keys and session are 0600, whatever the umask")
    func privateHome() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let home = scratch.file("phone/home")
        let previous = umask(0o022)
        defer { umask(previous) }
        let client = try ChatClient(home: home)
        _ = try client.store.groupKey(groupID: "none", epoch: 1)
        var info = stat()
        for folder in [scratch.file("phone"), home] {
            #expect(stat(folder, &info) == 0 && info.st_mode & 0o777 == 0o700, "\(folder)")
        }
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: home)) ?? []).filter { $0 != "blobs" }
        #expect(files.contains("chat.sqlite") && files.contains("device.json"), "\(files)")
        for name in files {
            #expect(stat(home + "/" + name, &info) == 0 && info.st_mode & 0o777 == 0o600, "\(name): \(String(info.st_mode & 0o777, radix: 8))")
        }
    }
}
