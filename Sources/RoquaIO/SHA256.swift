import Foundation

/// SHA-256 (FIPS 180-4), for the provenance checksums of imported files. Kept here so the
/// package needs no crypto dependency; streaming, so large files never sit whole in memory.
package struct SHA256 {
    private var state: [UInt32] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    ]
    private var buffer: [UInt8] = []
    private var length: UInt64 = 0

    package init() {}

    package mutating func update(_ bytes: some Collection<UInt8>) {
        buffer.append(contentsOf: bytes)
        length += UInt64(bytes.count)
        var offset = 0
        let blocks = buffer
        while blocks.count - offset >= 64 {
            compress(blocks[offset..<(offset + 64)])
            offset += 64
        }
        buffer.removeFirst(offset)
    }

    package mutating func finalize() -> String {
        let bits = length * 8
        var tail: [UInt8] = [0x80]
        while (buffer.count + tail.count) % 64 != 56 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        buffer.append(contentsOf: tail)
        for offset in stride(from: 0, to: buffer.count, by: 64) { compress(buffer[offset..<(offset + 64)]) }
        buffer = []
        return state.map { String(format: "%08x", $0) }.joined()
    }

    package static func hex(of data: some Collection<UInt8>) -> String {
        var hasher = SHA256()
        hasher.update(data)
        return hasher.finalize()
    }

    package static func hex(ofFile path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw InputError(file: path, line: nil, message: "cannot be read for its checksum")
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(chunk) }
        return hasher.finalize()
    }

    private mutating func compress(_ block: ArraySlice<UInt8>) {
        // The message schedule lives on the stack: one heap array per 64-byte block made hashing
        // a 100 MB import file cost more than reading it.
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            block.withUnsafeBufferPointer { bytes in
                for i in 0..<16 {
                    w[i] = UInt32(bytes[4 * i]) << 24 | UInt32(bytes[4 * i + 1]) << 16 | UInt32(bytes[4 * i + 2]) << 8
                        | UInt32(bytes[4 * i + 3])
                }
            }
            for i in 16..<64 {
                let s0 = w[i - 15].rotatedRight(7) ^ w[i - 15].rotatedRight(18) ^ (w[i - 15] >> 3)
                let s1 = w[i - 2].rotatedRight(17) ^ w[i - 2].rotatedRight(19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = (state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7])
            Self.k.withUnsafeBufferPointer { k in
                for i in 0..<64 {
                    let s1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
                    let t1 = h &+ s1 &+ ((e & f) ^ (~e & g)) &+ k[i] &+ w[i]
                    let s0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
                    let t2 = s0 &+ ((a & b) ^ (a & c) ^ (b & c))
                    (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
                }
            }
            state[0] &+= a; state[1] &+= b; state[2] &+= c; state[3] &+= d
            state[4] &+= e; state[5] &+= f; state[6] &+= g; state[7] &+= h
        }
    }

    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]
}

extension UInt32 {
    fileprivate func rotatedRight(_ n: UInt32) -> UInt32 { (self >> n) | (self << (32 - n)) }
}
