import Foundation
import GRDB
import RoquaChatCore
import Testing

@testable import RoquaChatClient

@Suite("Images and files: sealed blobs through peers and the server")
struct AttachmentTests {
    /// A PNG-looking file of `size` bytes (the signature, then seeded noise).
    static func png(_ size: Int, seed: UInt64) -> Data {
        var random = SplitMix64(seed: seed)
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            + Data((8..<size).map { _ in UInt8(truncatingIfNeeded: random.next()) })
    }

    @Test("a small image reaches peers with the server down; a large file waits for the server; the server holds only ciphertext")
    func throughPeersAndServer() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let (server, party) = try await TourParty.offline(in: scratch)
        let group = party.group.id
        let small = Self.png(300_000, seed: 1)
        let large = Data("%PDF-1.7\n".utf8) + Self.png(800_000, seed: 2)
        try small.write(to: URL(fileURLWithPath: scratch.file("kapadokya.png")))
        try large.write(to: URL(fileURLWithPath: scratch.file("program.pdf")))
        let image = try await party.guide.send(groupID: group, file: scratch.file("kapadokya.png"))
        let document = try await party.guide.send(groupID: group, file: scratch.file("program.pdf"))
        #expect(image.type == .image && image.attachment?.mime == "image/png" && image.attachment?.size == 300_000)
        #expect(document.type == .file && document.attachment?.mime == "application/pdf")

        let hub = InMemoryHub(seed: 7, loss: 0.2, duplication: 0.2)
        let nodes = party.everyone.map { PeerNode(client: $0) }
        for (name, node) in zip(["guide", "ayse", "mehmet"], nodes) { hub.join(name, node) }
        hub.partition("guide", "mehmet")  // Mehmet gets the image through Ayşe
        for _ in 0..<12 { try await hub.round() }
        for traveller in party.travellers {
            let (body, file) = try traveller.attachment(groupID: group, localID: image.localID)
            #expect(body.name == "kapadokya.png" && file == small)
            // Over the peer limit: the message arrives, its file does not.
            let (_, missing) = try traveller.attachment(groupID: group, localID: document.localID)
            #expect(missing == nil)
        }
        #expect(await nodes[2].stats.blobs == 1)

        try await server.restart()
        let pushed = try await party.guide.engine.sync()
        #expect(pushed.blobsUp == 2)
        for traveller in party.travellers {
            let report = try await traveller.engine.sync()
            #expect(report.blobsDown == 1)
            #expect(try traveller.attachment(groupID: group, localID: document.localID).file == large)
        }
        // The server's blobs are the sealed bytes: not the files, nor any stretch of them.
        let stored = try await DatabaseQueue(path: scratch.file("server.sqlite")).read { db in
            try Data.fetchAll(db, sql: "SELECT data FROM blobs")
        }
        #expect(stored.count == 2)
        for blob in stored {
            #expect(
                blob != small && blob != large && blob.range(of: small[1000..<1064]) == nil && blob.range(of: large[1000..<1064]) == nil)
        }
        await server.stop()
    }

    @Test("an empty, missing or oversize file is refused before anything is kept; a blob that is not its digest's is dropped")
    func refusals() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let (_, party) = try await TourParty.offline(in: scratch)
        try Data().write(to: URL(fileURLWithPath: scratch.file("empty")))
        await #expect { try await party.guide.send(groupID: party.group.id, file: scratch.file("empty")) } throws: {
            "\($0)".contains("the file is empty")
        }
        await #expect { try await party.guide.send(groupID: party.group.id, file: scratch.file("nope")) } throws: {
            "\($0)".contains("cannot be read")
        }
        #expect(throws: ChatClientError.self) { try AttachmentBody.seal(Data(count: AttachmentBody.maxBytes + 1), name: "big") }
        // Sizes are checked before a byte is kept in memory: a huge (sparse) file by its size, a
        // device that never ends after one read past the limit.
        let huge = scratch.file("huge.bin")
        #expect(FileManager.default.createFile(atPath: huge, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: huge))
        try handle.truncate(atOffset: 8 << 30)
        try handle.close()
        await #expect { try await party.guide.send(groupID: party.group.id, file: huge) } throws: {
            "\($0)".contains("over the \(AttachmentBody.maxBytes)-byte limit")
        }
        await #expect { try await party.guide.send(groupID: party.group.id, file: "/dev/zero") } throws: {
            "\($0)".contains("is over the \(AttachmentBody.maxBytes)-byte limit")
        }
        await #expect { try await party.guide.send(groupID: party.group.id, file: scratch.path) } throws: {
            "\($0)".contains("is a directory")
        }
        #expect(try party.guide.messages(groupID: party.group.id).isEmpty)
        let folder = try BlobFolder(home: scratch.file("blobs-test"))
        #expect(try folder.keep(Data("x".utf8), as: String(repeating: "0", count: 64)) == false)
        #expect(try folder.keep(Data("x".utf8), as: "../../etc/passwd") == false)
        let (body, blob) = try AttachmentBody.seal(Data("hello".utf8), name: "a.txt")
        #expect(try folder.keep(blob, as: body.sha256) && folder.holds(body.sha256))
        var wrongKey = body
        wrongKey.key = Data(count: 32).base64EncodedString()
        #expect(throws: ChatClientError.self) { try wrongKey.open(blob) }
        #expect(try body.open(blob) == Data("hello".utf8))
    }

    @Test(
        "one member's attachment with a malformed digest, or one the server refuses, is skipped and counted; every member's sync still succeeds"
    )
    func badAttachmentDoesNotBreakSync() async throws {
        try await TourParty.run { _, party, _ in
            let (sender, receiver, group) = (party.travellers[0], party.travellers[1], party.group.id)
            var bad = AttachmentBody(
                name: "x.png", mime: "image/png", size: 1, sha256: "not-a-digest",
                key: Data(repeating: 1, count: 32).base64EncodedString())
            _ = try await sender.send(groupID: group, type: .image, body: String(decoding: try JSONEncoder().encode(bad), as: UTF8.self))
            bad.sha256 = String(repeating: "ab", count: 32)  // well formed, never uploaded: tried again later
            _ = try await sender.send(groupID: group, type: .file, body: String(decoding: try JSONEncoder().encode(bad), as: UTF8.self))
            try await sender.send(groupID: group, text: "ve bir metin")
            _ = try await sender.engine.sync()
            let report = try await receiver.engine.sync()
            #expect(report.pulled == 3 && report.blobsSkipped == 1 && report.blobsDown == 0, "\(report)")
            #expect(try receiver.messages(groupID: group).last?.body == "ve bir metin")
            #expect(try await receiver.engine.sync().blobsSkipped == 1)  // and every later sync goes on too
        }
    }

    @Test("sign-in to plain http:// on another machine is refused unless insecure; loopback and https are fine")
    func plainHTTPRefused() async throws {
        for refused in [
            "http://203.0.113.5:8080", "http://chat.example.com", "http://127.0.0.1.evil.example", "ftp://127.0.0.1", "not a url",
        ] {
            #expect(throws: ChatClientError.self, "\(refused)") { try ServerURL.check(refused, insecure: false) }
        }
        for allowed in ["https://chat.example.com", "http://127.0.0.1:8080", "http://localhost:1", "http://[::1]:8080", "HTTP://127.0.0.2"]
        {
            #expect(throws: Never.self, "\(allowed)") { try ServerURL.check(allowed, insecure: false) }
        }
        #expect(throws: Never.self) { try ServerURL.check("http://203.0.113.5:8080", insecure: true) }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let client = try ChatClient(home: scratch.file("home"))
        await #expect { try await client.requestCode(server: "http://203.0.113.5:8080", phone: "+905551234567") } throws: {
            "\($0)".contains("use https://, or --insecure")
        }
    }
}
