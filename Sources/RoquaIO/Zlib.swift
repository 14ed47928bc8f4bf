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
        let status = out.withUnsafeMutableBufferPointer { target in
            input.withUnsafeBufferPointer { source in
                uncompress(target.baseAddress, &size, source.baseAddress, uLong(source.count))
            }
        }
        guard status == Z_OK else {
            throw Failure(description: status == Z_BUF_ERROR ? "the data inflates to more than the \(expected) bytes it declares"
                                                             : "the compressed data is damaged (zlib status \(status))")
        }
        guard Int(size) == expected else {
            throw Failure(description: "the data inflates to \(size) bytes, not the \(expected) it declares")
        }
        out.removeLast(out.count - expected)
        return out
    }
}
