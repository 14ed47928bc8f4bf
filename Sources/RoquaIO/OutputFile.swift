import Foundation

/// Where a command writes its output. `-` is standard output. A regular file (or a new path) is
/// written beside the target and renamed into place on `commit`, so an interrupted command
/// leaves the old file whole; a device or FIFO (`/dev/null`, a named pipe) is written straight,
/// never replaced; a directory is refused. Writes are buffered.
public final class OutputFile {
    public let path: String
    private let fd: Int32
    private let replace: AtomicReplace?
    private var buffer: [UInt8] = []
    private var finished = false
    /// Bytes written to the file so far.
    private var written = 0
    private let flusher: BackgroundFlush?
    /// A regular file is flushed to disk in the background each time this many more bytes have
    /// been written, so that the `fsync` of `commit` (which the atomic replace needs) has only
    /// the last few left: on a disk with a write cache, fsync's time grows with the unflushed data.
    public static let flushBytes = 8 << 20
    /// Each time this many more bytes have been written, the kernel is asked to start writing
    /// them back (`posix_fadvise`, which does not wait).
    static let writebackBytes = 1 << 20

    public init(path: String) throws(OutputError) {
        self.path = path
        if path == "-" {
            fd = STDOUT_FILENO
            replace = nil
            flusher = nil
            return
        }
        switch FileKind(path: path) {
        case .directory?:
            throw OutputError(path: path, reason: "is a directory; give a file name")
        case nil, .regular?:
            let directory = (path as NSString).deletingLastPathComponent
            if !directory.isEmpty, FileKind(path: directory) == nil {
                throw OutputError(path: path, reason: "the directory \(directory) does not exist")
            }
            let replace = try AtomicReplace(target: path)
            // Outputs hold coordinates (personal data): the owner's only (PrivateFiles).
            fd = open(replace.temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw OutputError.errno(path) }
            self.replace = replace
            flusher = BackgroundFlush(fd: fd)
        case _?:
            fd = open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw OutputError.errno(path) }
            replace = nil
            flusher = nil
        }
    }

    deinit {
        if !finished { discard() }
    }

    public func write(_ text: String) throws(OutputError) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { try flush() }
    }

    public func write(_ bytes: some Collection<UInt8>) throws(OutputError) {
        if bytes.count >= 1 << 16 {
            // A large block goes straight to the file: copying it into the buffer first would
            // only add a pass over every byte.
            try flush()
            let written = bytes.withContiguousStorageIfAvailable { block in
                Result { () throws(OutputError) in try writeAll(UnsafeRawBufferPointer(block)) }
            }
            if let written { return try written.get() }
        }
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { try flush() }
    }

    public func flush() throws(OutputError) {
        try buffer.withUnsafeBytes { bytes in Result { () throws(OutputError) in try writeAll(bytes) } }.get()
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws(OutputError) {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)  // count > 0: not empty
            if n < 0 {
                if errno == EINTR { continue }
                throw OutputError.errno(path)
            }
            offset += n
        }
        written += bytes.count
        flusher?.wrote(upTo: written)
    }

    /// Writes what is buffered and, for a regular file, moves it into place.
    public func commit() throws(OutputError) {
        try flush()
        finished = true
        flusher?.finish()
        guard let replace else {
            if fd != STDOUT_FILENO, close(fd) != 0 { throw OutputError.errno(path) }
            return
        }
        guard close(fd) == 0 else {
            let error = OutputError.errno(path)
            replace.discard()
            throw error
        }
        try replace.commit()
    }

    /// Drops a half-written regular file, leaving what was at the path before.
    public func discard() {
        finished = true
        flusher?.finish()
        if fd != STDOUT_FILENO { close(fd) }
        replace?.discard()
    }

    /// Writes `data` to `path` as a whole, the same way.
    public static func write(_ data: some Collection<UInt8>, to path: String) throws(OutputError) {
        let file = try OutputFile(path: path)
        try file.write(data)
        try file.commit()
    }
}

/// Flushes a file to disk on a background queue as it grows, one flush at a time; the writer
/// never waits for one except in `finish`, which must come before the file is closed. A flush
/// that fails is not reported here: the final fsync of `AtomicReplace.commit` is, and it covers
/// everything.
private final class BackgroundFlush {
    private let fd: Int32
    private let queue = DispatchQueue(label: "roqua.output-flush")
    private let group = DispatchGroup()
    /// Written bytes when the last flush started; touched only on the writer's thread.
    private var started = 0

    init(fd: Int32) { self.fd = fd }

    /// Written bytes up to which the kernel was last asked to start writing back.
    private var queued = 0

    func wrote(upTo written: Int) {
        if written - queued >= OutputFile.writebackBytes {
            // Start writing these pages back now, without waiting (on Linux, DONTNEED starts the
            // writeback of dirty pages and drops only those already clean): the flushes, and
            // above all the final fsync, then find most of the file already on its way.
            _ = posix_fadvise(fd, off_t(queued), off_t(written - queued), POSIX_FADV_DONTNEED)
            queued = written
        }
        guard written - started >= OutputFile.flushBytes, group.wait(timeout: .now()) == .success else { return }
        started = written
        let fd = fd
        queue.async(group: group) { _ = fdatasync(fd) }
    }

    func finish() { group.wait() }
}
