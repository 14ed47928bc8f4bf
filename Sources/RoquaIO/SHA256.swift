import Crypto
import Foundation

/// SHA-256 hex digests for provenance and import checksums, from swift-crypto (BoringSSL's
/// assembly on Linux, ~1.5 GB/s here), streamed so memory stays flat.
package struct SHA256 {
    private var hasher = Crypto.SHA256()

    package init() {}

    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        hasher.update(bufferPointer: bytes)
    }

    /// The digest's 32 bytes.
    package func finalizeBytes() -> [UInt8] { Array(hasher.finalize()) }

    /// The digest as 64 lower-case hex digits.
    package func finalize() -> String {
        hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    package static func hex(of bytes: some Collection<UInt8>) -> String {
        var hasher = SHA256()
        Array(bytes).withUnsafeBytes { hasher.update($0) }
        return hasher.finalize()
    }

    /// - Throws: `InputError` naming the file when it cannot be opened or read.
    package static func hex(ofFile path: String) throws(InputError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw InputError(file: path, line: nil, message: "cannot be read for its checksum: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var hasher = SHA256()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(fd, buffer.baseAddress, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw InputError(file: path, line: nil, message: "read failed during its checksum: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
        return hasher.finalize()
    }
}
