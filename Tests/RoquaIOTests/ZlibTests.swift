import CZlib
import RoquaIO
import RoquaTestSupport
import Testing

/// `Zlib.deflate` sizes zlib's window and hash to the input: every size inflates back to itself,
/// is no larger than `compress2`'s stream by more than a little, and above 16 KB is that stream.
@Suite struct ZlibTests {
    /// Bytes like a map tile's or a fix block's payload: small varints, some repeats.
    static func payload(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededGenerator(state: seed)
        return (0..<count).map { i in UInt8.random(in: 0...(i % 3 == 0 ? 40 : 2), using: &random) }
    }

    static func compress2(_ bytes: [UInt8], level: Int32) -> [UInt8] {
        var size = compressBound(uLong(bytes.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        let status = out.withUnsafeMutableBufferPointer { target in
            bytes.withUnsafeBufferPointer { CZlib.compress2(target.baseAddress, &size, $0.baseAddress, uLong($0.count), level) }
        }
        #expect(status == Z_OK)
        return Array(out[..<Int(size)])
    }

    @Test(arguments: [0, 1, 47, 48, 400, 511, 512, 513, 1100, 5000, 16384, 16385, 40000, 200_000])
    func everySizeComesBackAndIsNoLarger(count: Int) throws {
        for level: Int32 in [1, 6, 9] {
            let bytes = Self.payload(count, seed: UInt64(count) &+ UInt64(level))
            let packed = Zlib.deflate(bytes, level: level)
            #expect(try Zlib.inflate(packed, expected: count) == bytes)
            let reference = Self.compress2(bytes, level: level)
            if count > 16384 {
                #expect(packed == reference)
            } else {
                #expect(packed.count <= reference.count + reference.count / 50 + 2, "\(count) bytes at level \(level)")
            }
        }
    }
}
