import Foundation
import RoquaIO

/// Thumbnails made from pictures (`PhotoThumbnail.make`: tens of milliseconds each), kept in a
/// folder of their own beside the store — 0700, each file 0600 — under a name made from the
/// photo's path, size and modification time: a photo edited in place is made again, a photo
/// moved away is not looked at. `clear` empties the folder (a forget).
public struct ThumbnailCache: Sendable {
    public let directory: String

    public init(directory: String) { self.directory = directory }

    /// The cache of the store at `storePath`: `STORE.thumbnails`.
    public init(store storePath: String) { directory = storePath + ".thumbnails" }

    /// The thumbnail of the photo at `path` (a regular file reached without a link): the one
    /// kept, or made now and kept. A cache that cannot be written only costs the next request
    /// the making.
    /// - Throws: `PhotoThumbnail.Undecodable`.
    public func thumbnail(of path: String) throws -> [UInt8] {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw PhotoThumbnail.Undecodable(description: "not a regular file")
        }
        let identity = "\(path)\n\(info.st_size)\n\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        let file = (directory as NSString).appendingPathComponent(SHA256.hex(of: Array(identity.utf8)).prefix(40) + ".jpg")
        if let kept = Self.kept(file) { return kept }
        let made = try PhotoThumbnail.make(path: path)
        try? keep(made, as: file)
        return made
    }

    /// A kept thumbnail: a regular file (not a link) that is a JPEG of plausible size.
    private static func kept(_ file: String) -> [UInt8]? {
        guard let source = try? ByteSource(path: file, budget: 1 << 20, followingLinks: false), source.size <= 1 << 20,
            let bytes = try? source.read(at: 0, count: Int(source.size), "the thumbnail"), bytes.starts(with: [0xFF, 0xD8, 0xFF])
        else { return nil }
        return bytes
    }

    private func keep(_ bytes: [UInt8], as file: String) throws {
        let replace = try AtomicReplace(target: file)
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: replace.temporary))
            try replace.commit()
        } catch {
            replace.discard()
            throw error
        }
    }

    /// Removes every kept thumbnail (the folder stays; nothing but its regular files is touched).
    public func clear() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names {
            let file = (directory as NSString).appendingPathComponent(name)
            var info = stat()
            if lstat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG { unlink(file) }
        }
    }
}
