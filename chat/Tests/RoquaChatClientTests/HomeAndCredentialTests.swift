import Foundation
import RoquaChatCore
@testable import RoquaChatClient
import Testing

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
        _ = try client.store.heldEpoch(groupID: "none")
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
