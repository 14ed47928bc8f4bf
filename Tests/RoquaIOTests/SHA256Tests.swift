import Foundation
import RoquaIO
import RoquaTestSupport
import Testing

@Suite struct SHA256Tests {
    /// FIPS 180-4 / NIST CAVP example messages.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ])
    func fipsVectors(message: String, digest: String) {
        #expect(SHA256.hex(of: Array(message.utf8)) == digest)
    }

    static let millionA = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"

    @Test func oneMillionAInOneGo() {
        #expect(SHA256.hex(of: [UInt8](repeating: 0x61, count: 1_000_000)) == Self.millionA)
    }

    /// Streamed in chunks of sizes that straddle the 64-byte block and the 56-byte padding edge.
    @Test(arguments: [[1, 3, 55, 56, 63, 64, 65, 127, 1000], [64], [4096, 7], [999_999, 1]])
    func oneMillionAStreamed(chunkSizes: [Int]) {
        var hasher = SHA256()
        var remaining = 1_000_000, turn = 0
        while remaining > 0 {
            let size = min(chunkSizes[turn % chunkSizes.count], remaining)
            hasher.update([UInt8](repeating: 0x61, count: size))
            remaining -= size
            turn += 1
        }
        #expect(hasher.finalize() == Self.millionA)
    }

    /// Every message length from 0 to 200 bytes (all padding cases), split or not, against coreutils.
    @Test func paddingEdgesAgainstSha256sum() throws {
        let dir = try TempDirectory()
        var expected: [String: String] = [:]
        for length in 0...200 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ length) }
            let name = "m\(length)"
            try Data(bytes).write(to: URL(fileURLWithPath: dir.file(name)))
            var split = SHA256()
            split.update(bytes.prefix(length / 3))
            split.update(bytes.dropFirst(length / 3))
            let oneShot = SHA256.hex(of: bytes)
            #expect(split.finalize() == oneShot, "length \(length)")
            expected[name] = oneShot
        }
        let names = expected.keys.sorted()
        let result = try CommandRunner.run("/usr/bin/env", ["sha256sum"] + names.map(dir.file))
        try #require(result.status == 0, "sha256sum failed: \(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == names.count)
        for line in lines {
            let parts = line.split(separator: " ", maxSplits: 1)
            let name = (String(parts[1]).trimmingCharacters(in: .whitespaces) as NSString).lastPathComponent
            #expect(expected[name] == String(parts[0]), "length \(name.dropFirst())")
        }
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
