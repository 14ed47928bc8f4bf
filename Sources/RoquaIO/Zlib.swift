import CZlib

/// Whole buffers through zlib (raw deflate streams with zlib's header and checksum), for data
/// Roqua keeps compressed: the history's fix blocks and backups. Streams read from outside go
/// through `GzipSource` instead.
package enum Zlib {
    /// Why a buffer could not be inflated: damaged, or not what its header says.
    package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        package let description: String
    }

    /// `bytes` compressed at `level` (1 fastest … 9 smallest).
    package static func deflate(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8] {
        var size = compressBound(uLong(bytes.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        let status = out.withUnsafeMutableBufferPointer { target in
            bytes.withUnsafeBufferPointer { source in
                compress2(target.baseAddress, &size, source.baseAddress, uLong(source.count), level)
            }
        }
        // compressBound is enough by zlib's contract and the arguments are ours: Z_OK always.
        precondition(status == Z_OK, "zlib compress2 failed with status \(status)")
        out.removeLast(out.count - Int(size))
        return out
    }

    /// The `expected` bytes `bytes` inflates to.
    /// - Throws: `Failure` when the data is damaged or inflates to any other length (a limit:
    ///   nothing larger than `expected` is ever written).
    package static func inflate(_ bytes: some Collection<UInt8>, expected: Int) throws(Failure) -> [UInt8] {
        guard expected >= 0, expected <= Int(UInt32.max) else { throw Failure(description: "an impossible length (\(expected) bytes)") }
        var out = [UInt8](repeating: 0, count: max(expected, 1))
        var size = uLong(expected)
        let input = Array(bytes)
        var consumed = uLong(input.count)
        let status = out.withUnsafeMutableBufferPointer { target in
            input.withUnsafeBufferPointer { source in
                uncompress2(target.baseAddress, &size, source.baseAddress, &consumed)
            }
        }
        guard status == Z_OK else {
            throw Failure(
                description: status == Z_BUF_ERROR
                    ? "the data inflates to more than the \(expected) bytes it declares"
                    : "the compressed data is damaged (zlib status \(status))")
        }
        guard Int(consumed) == input.count else {
            throw Failure(description: "\(input.count - Int(consumed)) bytes after the compressed data")
        }
        guard Int(size) == expected else {
            throw Failure(description: "the data inflates to \(size) bytes, not the \(expected) it declares")
        }
        out.removeLast(out.count - expected)
        return out
    }
}

/// A gzip stream written a chunk at a time (what `GzipSource` reads back), memory flat: zlib's
/// window and one output chunk.
package final class GzipWriter {
    /// On the heap: zlib keeps a pointer back to the stream and checks it on every call.
    private let zstream: UnsafeMutablePointer<z_stream>
    private var output = [UInt8](repeating: 0, count: 256 << 10)

    package init(level: Int32 = 6) {
        zstream = .allocate(capacity: 1)
        zstream.initialize(to: z_stream())
        // 15 + 16: the largest window, with a gzip header and trailer. With our own arguments
        // this fails only when memory does.
        let status = deflateInit2_(
            zstream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
            Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "zlib deflateInit2 failed with status \(status)")
    }

    deinit {
        deflateEnd(zstream)
        zstream.deallocate()
    }

    /// Compresses `bytes`, handing every compressed chunk to `sink`.
    package func write(_ bytes: UnsafeRawBufferPointer, _ sink: ([UInt8]) throws -> Void) rethrows {
        try run(bytes, flush: Z_NO_FLUSH, sink)
    }

    /// Ends the stream (its trailer: CRC-32 and length).
    package func finish(_ sink: ([UInt8]) throws -> Void) rethrows {
        try run(UnsafeRawBufferPointer(start: nil, count: 0), flush: Z_FINISH, sink)
    }

    private func run(_ bytes: UnsafeRawBufferPointer, flush: Int32, _ sink: ([UInt8]) throws -> Void) rethrows {
        zstream.pointee.next_in = UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: Bytef.self))
        zstream.pointee.avail_in = uInt(bytes.count)
        repeat {
            let produced = output.withUnsafeMutableBytes { out -> Int in
                zstream.pointee.next_out = out.baseAddress?.assumingMemoryBound(to: Bytef.self)
                zstream.pointee.avail_out = uInt(out.count)
                let status = deflate(zstream, flush)
                precondition(status != Z_STREAM_ERROR, "zlib deflate: stream error")
                return out.count - Int(zstream.pointee.avail_out)
            }
            if produced > 0 { try sink(Array(output[0..<produced])) }
        } while zstream.pointee.avail_out == 0 || (flush == Z_FINISH && zstream.pointee.avail_in > 0)
    }
}
