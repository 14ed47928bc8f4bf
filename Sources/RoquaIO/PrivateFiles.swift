import Foundation

/// Files that hold personal data (a store, an export, keys, a chat home) are readable by their
/// owner only: files 0600, new directories 0700, whatever the umask (which can only take bits
/// away from these modes). SQLite creates a database's `-wal` and `-shm` with the main file's
/// mode, so a database file made here first keeps its companions private too.
public enum PrivateFiles {
    /// Creates `path` and its missing parents with mode 0700; existing directories are left as
    /// they are (a shared parent such as `~/.local/share` is not ours to change).
    /// - Throws: `OutputError` naming the directory that could not be made.
    public static func makeDirectory(_ path: String) throws(OutputError) {
        guard !path.isEmpty else { return }
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + component
            guard mkdir(prefix, 0o700) == 0 || errno == EEXIST else { throw OutputError.errno(prefix) }
        }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw OutputError(path: path, reason: "is not a directory")
        }
    }

    /// Creates `path` empty with mode 0600 unless something is there already (which is left as
    /// it is: an existing store keeps its data, and never is anything but a new file created).
    /// - Throws: `OutputError` when it cannot be created.
    public static func createIfMissing(_ path: String) throws(OutputError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            close(descriptor)
        } else if errno != EEXIST {
            throw OutputError.errno(path)
        }
    }

    /// A warning when an existing file can be read or written by others than its owner, with the
    /// command that fixes it; nil for a private file or no file.
    public static func looseModeWarning(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & 0o077 != 0 else { return nil }
        let mode = String(info.st_mode & 0o777, radix: 8)
        return "\(path) holds personal data but other users may read it (mode \(mode)); make it private with: chmod 600 \(path)"
    }
}
