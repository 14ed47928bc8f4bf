import Foundation

/// An exclusive advisory lock (`flock`) held while a process checks and migrates a store, taken
/// on the store's directory, never on the database file: closing any descriptor of the database
/// file would drop the POSIX locks SQLite holds on it in this process (SQLite's documented way to
/// corrupt a database). Where the directory cannot be opened the lock is skipped and SQLite's
/// own locking still serialises the writes.
struct OpenLock {
    private let descriptor: Int32

    init(path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        descriptor = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        while flock(descriptor, LOCK_EX) != 0, errno == EINTR {}
    }

    func release() {
        guard descriptor >= 0 else { return }
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
