import Foundation

/// Where a `ByteStream` gets its bytes: a file, standard input, a decompressor, an archive
/// entry. Sources are pulled from one thread at a time.
public protocol ByteSource: AnyObject {
    /// Fills the front of `buffer` and returns how many bytes were written; 0 only at the end.
    /// `name` is what errors call the input.
    func read(into buffer: UnsafeMutableRawBufferPointer, name: String) throws(InputError) -> Int
}

/// A file opened read-only (or standard input, as `-`); the descriptor is closed with the object.
public final class FileSource: ByteSource {
    private let fd: Int32
    private let ownsDescriptor: Bool
    /// The size of a regular file, nil for pipes and devices.
    public let size: Int?

    public init(path: String) throws(InputError) {
        if path == "-" {
            fd = STDIN_FILENO
            ownsDescriptor = false
        } else {
            fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw InputError(file: path, line: nil, message: "cannot open: \(String(cString: strerror(errno)))")
            }
            ownsDescriptor = true
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            if ownsDescriptor { close(fd) }
            throw InputError(file: path, line: nil, message: "cannot read: \(reason)")
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            if ownsDescriptor { close(fd) }
            throw InputError(file: path, line: nil, message: "is a directory, not a file")
        }
        size = (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil
    }

    deinit {
        if ownsDescriptor { close(fd) }
    }

    /// The whole content of `path` (a file, device or FIFO), refused once it passes `limit`
    /// bytes: a regular file by its size before any read, anything else after at most one
    /// 64 KiB read beyond the limit, so `/dev/zero` or a huge file costs no more memory than that.
    /// - Throws: `InputError` when it cannot be read or is larger than `limit`.
    public static func contents(of path: String, limit: Int) throws(InputError) -> [UInt8] {
        let source = try FileSource(path: path)
        if let size = source.size, size > limit {
            throw InputError(file: path, line: nil, message: "is \(size) bytes, over the \(limit)-byte limit")
        }
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 1)
        defer { chunk.deallocate() }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(source.size ?? 0, limit))
        while true {
            let n = try source.read(into: chunk, name: path)
            if n == 0 { return bytes }
            guard bytes.count + n <= limit else { throw InputError(file: path, line: nil, message: "is over the \(limit)-byte limit") }
            bytes.append(contentsOf: chunk[..<n])
        }
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer, name: String) throws(InputError) -> Int {
        guard buffer.count > 0 else { return 0 }
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw InputError(file: name, line: nil, message: "read failed: \(String(cString: strerror(errno)))")
        }
    }
}

/// No bytes at all (for streams over memory, which never refill).
public final class EmptySource: ByteSource {
    public init() {}
    public func read(into buffer: UnsafeMutableRawBufferPointer, name: String) throws(InputError) -> Int { 0 }
}

/// Bytes in memory handed out in reads of whatever size the stream asks for: a `ByteStream`
/// with a small chunk size over it refills as often as a file's would (tests, fuzz targets).
package final class MemorySource: ByteSource {
    private let bytes: [UInt8]
    private var offset = 0

    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    package func read(into buffer: UnsafeMutableRawBufferPointer, name: String) throws(InputError) -> Int {
        let n = min(buffer.count, bytes.count - offset)
        bytes[offset..<(offset + n)].withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[..<n])) }
        offset += n
        return n
    }
}
