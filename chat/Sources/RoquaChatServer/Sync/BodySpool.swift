import Foundation
import NIOCore

/// A request body kept for reading back by range: in memory up to `memoryLimit` bytes, beyond
/// that in a temporary file that is unlinked as soon as it is created (0600, nothing left behind
/// even after a crash), so a large push costs disk, not memory.
final class BodySpool {
    private var memory: [UInt8] = []
    private var descriptor: Int32 = -1
    private(set) var count = 0
    let memoryLimit: Int

    /// Whether the body went to the temporary file.
    var spilled: Bool { descriptor >= 0 }

    init(memoryLimit: Int) {
        self.memoryLimit = memoryLimit
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Adds the next bytes of the body.
    /// - Throws: `ChatServerError.storage` when the temporary file cannot be written.
    func append(_ buffer: ByteBuffer) throws {
        if descriptor < 0, count + buffer.readableBytes <= memoryLimit {
            memory.append(contentsOf: buffer.readableBytesView)
        } else {
            if descriptor < 0 { try spill() }
            try buffer.withUnsafeReadableBytes { bytes in try write(bytes) }
        }
        count += buffer.readableBytes
    }

    /// The bytes in `range` (which must lie within what was appended).
    /// - Throws: `ChatServerError.storage` when the temporary file cannot be read.
    func read(_ range: Range<Int>) throws -> Data {
        guard descriptor >= 0 else { return Data(memory[range]) }
        var data = Data(count: range.count)
        let done = data.withUnsafeMutableBytes { bytes -> Int in
            var done = 0
            while done < range.count {
                let got = pread(descriptor, bytes.baseAddress! + done, range.count - done, off_t(range.lowerBound + done))
                if got < 0, errno == EINTR { continue }
                guard got > 0 else { return -1 }
                done += got
            }
            return done
        }
        guard done == range.count else { throw ChatServerError.storage("cannot read back a spooled request body") }
        return data
    }

    private func spill() throws {
        var template = Array((NSTemporaryDirectory() + "/roqua-chat-body-XXXXXX").utf8CString)
        descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw ChatServerError.storage("cannot create a temporary file for a request body") }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        let held = memory
        memory = []
        try held.withUnsafeBytes { try write($0) }
    }

    private func write(_ bytes: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < bytes.count {
            let wrote = Foundation.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if wrote < 0, errno == EINTR { continue }
            guard wrote > 0 else { throw ChatServerError.storage("cannot spool a request body: \(String(cString: strerror(errno)))") }
            done += wrote
        }
    }
}
