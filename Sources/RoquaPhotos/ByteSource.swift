#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A bounded random-access byte source: a file (pread) or an in-memory buffer.
/// Every read is counted and the total per photo is capped by `budget`, so a hostile
/// file can never make the reader pull in more than `budget` bytes.
final class ByteSource {
    /// Default cap on metadata bytes read per photo.
    static let defaultBudget = 256 * 1024

    private enum Backing {
        case file(Int32)
        case memory([UInt8])
    }

    private let backing: Backing
    let size: UInt64
    let budget: Int
    private(set) var bytesRead = 0

    init(bytes: [UInt8], budget: Int = ByteSource.defaultBudget) {
        backing = .memory(bytes)
        size = UInt64(bytes.count)
        self.budget = budget
    }

    /// Opens a regular file read-only. Opened without blocking: a named pipe called `IMG_1.jpg`
    /// would otherwise hold the import until something wrote to it; it is refused instead.
    /// - Parameter followingLinks: false refuses a path whose last component is a symbolic link.
    init(path: String, budget: Int = ByteSource.defaultBudget, followingLinks: Bool = true) throws(ReadFailure) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (followingLinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else { throw .unreadable("open: \(Self.errnoText())") }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let text = Self.errnoText()
            close(fd)
            throw .unreadable("fstat: \(text)")
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw .unreadable("not a regular file")
        }
        backing = .file(fd)
        size = UInt64(max(0, st.st_size))
        self.budget = budget
    }

    deinit {
        if case .file(let fd) = backing { close(fd) }
    }

    /// Reads exactly `count` bytes at `offset`. Throws `.malformed` when the range is outside
    /// the source (`what` names the structure for the message) or would exceed the budget.
    func read(at offset: UInt64, count: Int, _ what: @autoclosure () -> String) throws(ReadFailure) -> [UInt8] {
        guard count >= 0 else { throw .malformed("\(what()): negative length") }
        guard offset <= size, UInt64(count) <= size - offset else {
            throw .malformed("\(what()) outside the file (offset \(offset), length \(count), file \(size) bytes)")
        }
        guard count <= budget - bytesRead else {
            throw .malformed("\(what()): metadata read budget of \(budget) bytes exceeded")
        }
        bytesRead += count
        if count == 0 { return [] }
        switch backing {
        case .memory(let bytes):
            let start = Int(offset)
            return Array(bytes[start..<start + count])
        case .file(let fd):
            var out = [UInt8](repeating: 0, count: count)
            var done = 0
            var failure: String?
            out.withUnsafeMutableBytes { raw in
                while done < count {
                    let n = pread(fd, raw.baseAddress! + done, count - done, off_t(offset) + off_t(done))
                    if n > 0 {
                        done += n
                    } else if n == 0 {
                        failure = "file shorter than its size"
                        return
                    } else if errno != EINTR {
                        failure = Self.errnoText()
                        return
                    }
                }
            }
            if let failure { throw .unreadable("read: \(failure)") }
            return out
        }
    }

    private static func errnoText() -> String {
        String(cString: strerror(errno))
    }
}

/// Big-endian / little-endian integer access on byte arrays, bounds-checked by the caller.
extension Array where Element == UInt8 {
    func be16(_ i: Int) -> UInt16 { UInt16(self[i]) << 8 | UInt16(self[i + 1]) }
    func be32(_ i: Int) -> UInt32 {
        UInt32(self[i]) << 24 | UInt32(self[i + 1]) << 16 | UInt32(self[i + 2]) << 8 | UInt32(self[i + 3])
    }
    func be64(_ i: Int) -> UInt64 { UInt64(be32(i)) << 32 | UInt64(be32(i + 4)) }
    func fourCC(_ i: Int) -> String {
        String(decoding: self[i..<i + 4].map { (0x20...0x7e).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }
}
