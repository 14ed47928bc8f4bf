import CWriteback
import Foundation

/// Where a command writes its output. `-` is standard output. A regular file (or a new path) is
/// written beside the target and renamed into place on `commit`, so an interrupted command
/// leaves the old file whole; a device or FIFO (`/dev/null`, a named pipe) is written straight,
/// never replaced; a directory is refused. Writes are buffered.
package final class OutputFile {
    package let path: String
    private let fd: Int32
    private let replace: AtomicReplace?
    private var buffer: [UInt8] = []
    private var finished = false
    /// Bytes written to the file so far, and where the writeback not yet started begins.
    private var written = 0
    private var writebackFrom = 0
    /// A regular file's pages are sent to disk as they pile up, this many bytes at a time, so that
    /// the `fsync` of `commit` (which the atomic replace needs) waits for the last few only.
    package static let writebackBytes = 8 << 20

    package init(path: String) throws(OutputError) {
        self.path = path
        if path == "-" {
            fd = STDOUT_FILENO
            replace = nil
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
            fd = open(replace.temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw OutputError.errno(path) }
            self.replace = replace
        case _?:
            fd = open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw OutputError.errno(path) }
            replace = nil
        }
    }

    deinit {
        if !finished { discard() }
    }

    package func write(_ text: String) throws(OutputError) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { try flush() }
    }

    package func write(_ bytes: some Collection<UInt8>) throws(OutputError) {
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

    package func flush() throws(OutputError) {
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
        if replace != nil, written - writebackFrom >= Self.writebackBytes {
            // Advisory: where the kernel cannot start it early, `commit`'s fsync still writes everything.
            _ = roqua_start_writeback(fd, writebackFrom, written - writebackFrom)
            writebackFrom = written
        }
    }

    /// Writes what is buffered and, for a regular file, moves it into place.
    package func commit() throws(OutputError) {
        try flush()
        finished = true
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
    package func discard() {
        finished = true
        if fd != STDOUT_FILENO { close(fd) }
        replace?.discard()
    }

    /// Writes `data` to `path` as a whole, the same way.
    package static func write(_ data: some Collection<UInt8>, to path: String) throws(OutputError) {
        let file = try OutputFile(path: path)
        try file.write(data)
        try file.commit()
    }
}
