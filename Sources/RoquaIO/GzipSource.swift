import CZlib

/// The decompressed bytes of gzip data (`.gz`, including files of several gzip members, as
/// `cat a.gz b.gz` makes) read from another source, through zlib. Memory: zlib's 32 KiB window
/// and one input chunk.
package final class GzipSource: ByteSource {
    private let inner: any ByteSource
    /// On the heap: zlib keeps a pointer back to the stream and checks it on every call, so
    /// its address must never change (an inout class property promises no such thing).
    private let zstream: UnsafeMutablePointer<z_stream>
    private let input: UnsafeMutableRawBufferPointer
    private var initialised = false
    private var innerEnded = false
    private var finished = false
    /// Compressed bytes consumed, for error messages.
    private var consumed = 0

    package static let chunkSize = 256 << 10

    package init(inner: any ByteSource, name: String) throws(InputError) {
        self.inner = inner
        input = .allocate(byteCount: Self.chunkSize, alignment: 1)
        zstream = .allocate(capacity: 1)
        zstream.initialize(to: z_stream())
        // 15 + 16: a gzip header and trailer, with the largest window.
        let status = inflateInit2_(zstream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            throw InputError(file: name, line: nil, message: "cannot start gzip decompression (zlib status \(status))")
        }
        initialised = true
    }

    deinit {
        if initialised { inflateEnd(zstream) }
        zstream.deallocate()
        input.deallocate()
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer, name: String) throws(InputError) -> Int {
        guard !finished, let out = buffer.baseAddress, buffer.count > 0 else { return 0 }
        zstream.pointee.next_out = out.assumingMemoryBound(to: Bytef.self)
        zstream.pointee.avail_out = uInt(min(buffer.count, Int(UInt32.max)))
        while zstream.pointee.avail_out > 0 {
            if zstream.pointee.avail_in == 0, !innerEnded {
                let n = try inner.read(into: input, name: name)
                if n == 0 { innerEnded = true }
                zstream.pointee.next_in = input.baseAddress?.assumingMemoryBound(to: Bytef.self)
                zstream.pointee.avail_in = uInt(n)
            }
            let before = zstream.pointee.avail_in
            let status = inflate(zstream, Z_NO_FLUSH)
            consumed += Int(before - zstream.pointee.avail_in)
            switch status {
            case Z_STREAM_END:
                // Another member may follow; only whitespace-free end of input ends the data.
                if zstream.pointee.avail_in == 0, !innerEnded {
                    let n = try inner.read(into: input, name: name)
                    if n == 0 { innerEnded = true }
                    zstream.pointee.next_in = input.baseAddress?.assumingMemoryBound(to: Bytef.self)
                    zstream.pointee.avail_in = uInt(n)
                }
                if zstream.pointee.avail_in == 0 {
                    finished = true
                    return buffer.count - Int(zstream.pointee.avail_out)
                }
                guard inflateReset(zstream) == Z_OK else { throw corrupt(name, "cannot restart after a member") }
            case Z_OK:
                continue
            case Z_BUF_ERROR:
                // No progress possible: either the output is full (handled by the loop) or the
                // input ended inside the compressed data.
                if innerEnded, zstream.pointee.avail_in == 0 { throw corrupt(name, "the data ends early: truncated file?") }
            default:
                let message = zstream.pointee.msg.map { String(cString: $0) } ?? "zlib status \(status)"
                throw corrupt(name, message)
            }
        }
        return buffer.count
    }

    private func corrupt(_ name: String, _ detail: String) -> InputError {
        InputError(file: name, line: nil, message: "corrupt gzip data near compressed byte \(consumed): \(detail)")
    }
}
