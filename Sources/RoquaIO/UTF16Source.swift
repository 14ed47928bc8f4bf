/// UTF-16 text (little- or big-endian, its byte order mark already read) handed on as UTF-8, so
/// every reader of UTF-8 reads it unchanged (Windows tools save GPX and KML as UTF-16). Code
/// units split across reads, and surrogate pairs, are joined; an unpaired surrogate becomes
/// U+FFFD. Memory: one read of the inner source at a time.
package final class UTF16Source: ByteSource {
    private let inner: any ByteSource
    private let bigEndian: Bool
    /// Raw bytes read but not yet decoded (the start of the file after its mark, then an odd byte).
    private var raw: [UInt8]
    /// UTF-8 bytes decoded but not yet handed out.
    private var out: [UInt8] = []
    private var outIndex = 0
    private var highSurrogate: UInt16?
    private var innerDone = false
    private let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)

    /// `first`: bytes already read after the byte order mark.
    package init(inner: any ByteSource, bigEndian: Bool, first: [UInt8]) {
        self.inner = inner
        self.bigEndian = bigEndian
        raw = first
    }

    deinit { chunk.deallocate() }

    package func read(into buffer: UnsafeMutableRawBufferPointer, name: String) throws(InputError) -> Int {
        while outIndex == out.count {
            out.removeAll(keepingCapacity: true)
            outIndex = 0
            if innerDone && raw.count < 2 {
                if highSurrogate != nil || !raw.isEmpty {
                    append(0xFFFD)
                    highSurrogate = nil
                    raw.removeAll()
                }
                if out.isEmpty { return 0 }
                break
            }
            if !innerDone {
                let n = try inner.read(into: chunk, name: name)
                if n == 0 { innerDone = true } else { raw.append(contentsOf: chunk[..<n]) }
            }
            decode()
        }
        let n = min(buffer.count, out.count - outIndex)
        for i in 0..<n { buffer[i] = out[outIndex + i] }
        outIndex += n
        return n
    }

    private func decode() {
        var i = 0
        while i + 1 < raw.count {
            let unit = bigEndian ? UInt16(raw[i]) << 8 | UInt16(raw[i + 1]) : UInt16(raw[i + 1]) << 8 | UInt16(raw[i])
            i += 2
            if let high = highSurrogate {
                highSurrogate = nil
                if (0xDC00...0xDFFF).contains(unit) {
                    append(0x10000 + ((UInt32(high) - 0xD800) << 10) + (UInt32(unit) - 0xDC00))
                    continue
                }
                append(0xFFFD)
            }
            switch unit {
            case 0xD800...0xDBFF: highSurrogate = unit
            case 0xDC00...0xDFFF: append(0xFFFD)
            default: append(UInt32(unit))
            }
        }
        raw.removeFirst(i)
    }

    private func append(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80: out.append(UInt8(scalar))
        case 0x80..<0x800: out += [0xC0 | UInt8(scalar >> 6), 0x80 | UInt8(scalar & 0x3F)]
        case 0x800..<0x10000:
            out += [0xE0 | UInt8(scalar >> 12), 0x80 | UInt8((scalar >> 6) & 0x3F), 0x80 | UInt8(scalar & 0x3F)]
        default:
            out += [
                0xF0 | UInt8(scalar >> 18), 0x80 | UInt8((scalar >> 12) & 0x3F), 0x80 | UInt8((scalar >> 6) & 0x3F),
                0x80 | UInt8(scalar & 0x3F),
            ]
        }
    }
}
