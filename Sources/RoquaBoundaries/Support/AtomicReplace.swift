import Foundation

/// Builds a file beside its target and moves it into place only when the build succeeded, so an
/// existing target is never half-written: a failure or a kill leaves it byte-identical.
public struct AtomicReplace {
    public let target: String
    public let temporary: String

    public init(target: String) throws {
        self.target = target
        let directory = (target as NSString).deletingLastPathComponent
        let dir = directory.isEmpty ? "." : directory
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        } catch {
            throw ImportError.cannotWrite(path: target, reason: error.localizedDescription)
        }
        let name = (target as NSString).lastPathComponent
        temporary = (dir as NSString).appendingPathComponent(".\(name).building-\(getpid())")
        Self.removeLeftovers(of: temporary)
    }

    /// Removes the temporary file and its SQLite companions.
    public static func removeLeftovers(of path: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    public func discard() { Self.removeLeftovers(of: temporary) }

    /// Flushes the finished file to disk and renames it over the target (atomic on POSIX).
    public func commit() throws {
        let fd = open(temporary, O_RDONLY)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
        guard rename(temporary, target) == 0 else {
            let reason = String(cString: strerror(errno))
            discard()
            throw ImportError.cannotWrite(path: target, reason: reason)
        }
    }
}
