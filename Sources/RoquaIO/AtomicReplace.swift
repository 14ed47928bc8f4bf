import Foundation

/// A file that cannot be written, with the path and the system's reason.
public struct OutputError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The path that could not be written, as the caller gave it.
    public var path: String
    /// Why: the system's `strerror` text, or what was wrong with the path (a device, a missing directory).
    public var reason: String

    /// Creates an error for `path` with a human-readable `reason`.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// `PATH: cannot write: REASON`.
    public var description: String { "\(path): cannot write: \(reason)" }

    /// The error for the failed call that just set `errno`.
    public static func errno(_ path: String) -> OutputError {
        OutputError(path: path, reason: String(cString: strerror(Glibc.errno)))
    }
}

extension OutputError: InputFileError {
    /// `path`: the file that could not be written (an upload's spooled copy, for one).
    public var file: String { path }

    public func renaming(_ path: String, as name: String) -> OutputError {
        OutputError(path: InputFileName.renamed(self.path, from: path, to: name), reason: reason)
    }
}

/// Builds a file beside its target and moves it into place only when the build succeeded, so an
/// existing target is never half-written: a failure or a kill leaves it byte-identical. Only
/// regular files are replaced; a device, FIFO or directory at the target is refused, never
/// renamed over. Temporary files of builds killed earlier (their process gone) are removed.
public struct AtomicReplace {
    public let target: String
    public let temporary: String

    public init(target: String) throws(OutputError) {
        self.target = target
        let directory = (target as NSString).deletingLastPathComponent
        let dir = directory.isEmpty ? "." : directory
        if let kind = FileKind(path: target), kind != .regular {
            throw OutputError(path: target, reason: "is \(kind.description); give the path of a regular file")
        }
        do {
            try PrivateFiles.makeDirectory(dir)
        } catch {
            throw OutputError(path: target, reason: "cannot create the directory \(dir)")
        }
        let name = (target as NSString).lastPathComponent
        temporary = (dir as NSString).appendingPathComponent(".\(name).building-\(getpid())")
        Self.removeLeftovers(of: temporary)
        Self.removeStale(directory: dir, name: name)
        // Made here, empty and 0600, so whatever builds it (SQLite too) keeps it private.
        try PrivateFiles.createIfMissing(temporary)
    }

    /// Removes the temporary file and its SQLite companions.
    public static func removeLeftovers(of path: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(path + suffix) }
    }

    /// `.NAME.building-PID` files whose process no longer runs: what a killed build left behind.
    private static func removeStale(directory: String, name: String) {
        for stale in StaleFiles.names(in: directory, prefix: ".\(name).building-") {
            unlink((directory as NSString).appendingPathComponent(stale))
        }
    }

    public func discard() { Self.removeLeftovers(of: temporary) }

    /// Flushes the finished file to disk and renames it over the target (atomic on POSIX).
    public func commit() throws(OutputError) {
        let fd = open(temporary, O_RDONLY)
        if fd >= 0 {
            // The data must be on disk before the rename makes it the target: a failed fsync
            // (EIO, a full disk) fails the command and leaves the old file.
            let synced = fsync(fd) == 0
            let error = synced ? nil : OutputError.errno(target)
            close(fd)
            if let error {
                discard()
                throw error
            }
        }
        guard rename(temporary, target) == 0 else {
            let error = OutputError.errno(target)
            discard()
            throw error
        }
    }
}

/// What a path names, for deciding how output may be written to it.
public enum FileKind: Equatable, CustomStringConvertible {
    case regular, directory, characterDevice, blockDevice, fifo, socket, other

    /// nil when nothing is there (a symbolic link is followed).
    public init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .directory
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        case S_IFIFO: self = .fifo
        case S_IFSOCK: self = .socket
        default: self = .other
        }
    }

    public var description: String {
        switch self {
        case .regular: "a regular file"
        case .directory: "a directory"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .fifo: "a FIFO"
        case .socket: "a socket"
        case .other: "not a regular file"
        }
    }
}
