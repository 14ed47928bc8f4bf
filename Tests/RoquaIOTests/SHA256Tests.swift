import Foundation
import RoquaIO
import RoquaTestSupport
import Testing

/// The checksum wrapper over swift-crypto: known vectors, files read in chunks, coreutils as referee.
@Suite struct SHA256Tests {
    /// FIPS 180-4 / NIST CAVP example messages.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ])
    func fipsVectors(message: String, digest: String) {
        #expect(SHA256.hex(of: Array(message.utf8)) == digest)
    }

    static let millionA = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"

    @Test func oneMillionAInOneGo() {
        #expect(SHA256.hex(of: [UInt8](repeating: 0x61, count: 1_000_000)) == Self.millionA)
    }

    @Test func hexOfFile() throws {
        let dir = try TempDirectory()
        let a = dir.file("a")
        try Data(repeating: 0x61, count: 1_000_000).write(to: URL(fileURLWithPath: a))
        #expect(try SHA256.hex(ofFile: a) == Self.millionA)

        let empty = dir.file("empty")
        try Data().write(to: URL(fileURLWithPath: empty))
        #expect(try SHA256.hex(ofFile: empty) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")

        // Larger than the 1 MiB read size: several reads must hash as one stream.
        let big = dir.file("big")
        let bytes = (0..<(3 << 20) + 17).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ ($0 >> 11)) }
        try Data(bytes).write(to: URL(fileURLWithPath: big))
        let digest = try SHA256.hex(ofFile: big)
        #expect(digest == SHA256.hex(of: bytes))
        let coreutils = try CommandRunner.run("/usr/bin/env", ["sha256sum", big])
        #expect(coreutils.stdout.hasPrefix(digest + " "))
    }

    @Test func hexOfMissingFileThrowsNamingIt() throws {
        let dir = try TempDirectory()
        let missing = dir.file("nope.shp")
        let error = try #require(throws: InputError.self) { try SHA256.hex(ofFile: missing) }
        #expect(error.file == missing)
    }
}
