import Foundation

/// An exclusive advisory lock (`flock`) on the store file, held while a process checks and
/// migrates the store. SQLite's own locks are POSIX record locks, which `flock` does not touch.
/// Where the file cannot be opened for writing the lock is skipped and SQLite reports the
/// problem in its own words.
struct OpenLock {
    private let descriptor: Int32

    init(path: String) {
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return }
        while flock(descriptor, LOCK_EX) != 0, errno == EINTR {}
    }

    func release() {
        guard descriptor >= 0 else { return }
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
