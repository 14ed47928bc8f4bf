import CZlib

/// Whole buffers through zlib (raw deflate streams with zlib's header and checksum), for data
/// Roqua keeps compressed: the history's fix blocks and backups. Streams read from outside go
/// through `GzipSource` instead.
package enum Zlib {
    /// Why a buffer could not be inflated: damaged, or not what its header says.
    package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        package let description: String
    }

    /// `bytes` compressed at `level` (1 fastest … 9 smallest), with zlib's window and hash table
    /// sized to them: `compress2` sets up ~256 KB of state and clears a 64 KB table for every
    /// call, ~50 µs, which was most of the cost of a map tile's few hundred bytes (4-8 µs this
    /// way, and no larger: 226 against 229 bytes for a 400-byte tile payload). Above 16 KB it is
    /// `compress2`'s stream to the byte.
    package static func deflate(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8] {
        var bits: Int32 = 9  // zlib's smallest window that works
        while bits < MAX_WBITS && (1 << bits) < bytes.count { bits += 1 }
        let memoryLevel = min(max(bits - 7, 4), 8)  // 8, zlib's default, at the largest window
        var stream = z_stream()
        return withUnsafeMutablePointer(to: &stream) { stream in
            // zlib keeps a pointer back to the stream: it must not move between the calls.
            // With our own arguments this fails only when memory does.
            let status = deflateInit2_(
                stream, level, Z_DEFLATED, bits, memoryLevel, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
            precondition(status == Z_OK, "zlib deflateInit2 failed with status \(status)")
            defer { deflateEnd(stream) }
            var out = [UInt8](repeating: 0, count: Int(deflateBound(stream, uLong(bytes.count))))
            let finished = out.withUnsafeMutableBufferPointer { target in
                bytes.withUnsafeBufferPointer { source in
                    stream.pointee.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                    stream.pointee.avail_in = uInt(source.count)
                    stream.pointee.next_out = target.baseAddress
                    stream.pointee.avail_out = uInt(target.count)
                    return CZlib.deflate(stream, Z_FINISH)
                }
            }
            // deflateBound is enough by zlib's contract: the stream ends in one call.
            precondition(finished == Z_STREAM_END, "zlib deflate did not finish: status \(finished)")
            out.removeLast(out.count - Int(stream.pointee.total_out))
            return out
        }
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
