import Crypto
import Foundation
import RoquaChatCore
import Testing

@testable import RoquaChatClient
@testable import RoquaChatServer

@Suite("The server's identity")
struct ServerIdentityTests {
    @Test(
        "sign-in pins the server's key (0600); an answer copied from another exchange, or signed by another key under the pinned one's name, is refused"
    )
    func pinnedAndChecked() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await LiveServer(directory: scratch)
        let traveller = try ChatClient(home: scratch.file("traveller"))
        _ = try await server.signIn(traveller, phone: "+905551000001")
        let key = ServerIdentityService(secret: server.secret).signingKey.publicKey.rawRepresentation.base64EncodedString()
        #expect(await traveller.serverKey == key)
        let mode = try #require(
            try FileManager.default.attributesOfItem(atPath: traveller.home + "/session.json")[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        let session = traveller.api.session
        let earlier = ServerIdentityChallenge()
        let captured = try ServerIdentityService(secret: server.secret).prove(earlier)
        try await session.pin(captured, nonce: try #require(earlier.bytes))
        await #expect { try await session.pin(captured, nonce: try #require(ServerIdentityChallenge().bytes)) } throws: { error in
            guard case ChatClientError.authenticationError = error else { return false }
            return "\(error)".contains("nonce")
        }
        let fresh = try #require(ServerIdentityChallenge().bytes)
        var forged = try ServerIdentityProof.sign(nonce: fresh, key: Curve25519.Signing.PrivateKey())
        forged.serverKey = captured.serverKey
        await #expect { try await session.pin(forged, nonce: fresh) } throws: { error in
            guard case ChatClientError.authenticationError = error else { return false }
            return true
        }
        await server.stop()
    }

    @Test("every sync proves the server's identity first: against another key, nothing pending goes up")
    func everySync() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await LiveServer(directory: scratch)
        let party = try await TourParty.make(server, in: scratch)
        let traveller = party.travellers[0]
        _ = try await traveller.send(groupID: party.group.id, text: "Otel lobisinde buluşalım")
        // As if this home had pinned another server's key (the server at its URL was replaced).
        let session = traveller.api.session
        var state = try #require(await session.state)
        state.serverKey = Curve25519.Signing.PrivateKey().publicKey.rawRepresentation.base64EncodedString()
        try await session.save(state)
        await #expect { _ = try await traveller.engine.syncOnce() } throws: { error in
            guard case ChatClientError.serverIdentityChanged = error else { return false }
            return true
        }
        #expect(try traveller.pendingCount() == 1)
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
            #expect(
                stat(home + "/" + name, &info) == 0 && info.st_mode & 0o777 == 0o600, "\(name): \(String(info.st_mode & 0o777, radix: 8))")
        }
    }
}
