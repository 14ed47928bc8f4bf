import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Files that hold keys and tokens: created with mode 0600 from the first byte (never widened
/// afterwards), replaced atomically, and refused when someone else could read them.
enum SecretFile {
    /// Writes `data` to `path` through a 0600 temporary file renamed over it.
    /// - Throws: `ChatClientError.secretFile` naming the path.
    static func write(_ data: Data, to path: String) throws {
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw ChatClientError.secretFile(path: path, reason: String(cString: strerror(errno))) }
        let written = data.withUnsafeBytes { buffer in
            buffer.baseAddress.map { Glibc.write(descriptor, $0, buffer.count) } ?? 0
        }
        let synced = fsync(descriptor)
        close(descriptor)
        guard written == data.count, synced == 0, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw ChatClientError.secretFile(path: path, reason: reason)
        }
    }

    /// The bytes of `path`, or nil when it does not exist.
    /// - Throws: `ChatClientError.secretFile` when it cannot be read or group/others may read it.
    static func read(_ path: String) throws -> Data? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw ChatClientError.secretFile(path: path, reason: String(cString: strerror(errno)))
        }
        guard info.st_mode & 0o077 == 0 else {
            throw ChatClientError.secretFile(
                path: path, reason: "readable by others (mode \(String(info.st_mode & 0o777, radix: 8))); chmod 600 it")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ChatClientError.secretFile(path: path, reason: "cannot be read")
        }
        return data
    }
}
