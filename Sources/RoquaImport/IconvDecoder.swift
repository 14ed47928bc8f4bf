import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Text in any encoding glibc's iconv knows, to a Swift string: the thin wrapper for the DBF
/// code pages Roqua does not decode itself. A converter is opened per call (glibc caches the
/// conversion modules), so it is safe from any thread.
enum IconvDecoder {
    /// Whether iconv can convert from `name` to UTF-8 here.
    static func isAvailable(_ name: String) -> Bool {
        let converter = iconv_open("UTF-8", name)
        guard converter != iconv_t(bitPattern: -1) else { return false }
        iconv_close(converter)
        return true
    }

    /// `bytes` decoded from `name`; nil when they are not valid text in it.
    static func decode(_ bytes: [UInt8], from name: String) -> String? {
        let converter = iconv_open("UTF-8", name)
        guard converter != iconv_t(bitPattern: -1) else { return nil }
        defer { iconv_close(converter) }
        var input = bytes.map { CChar(bitPattern: $0) }
        var output = [CChar](repeating: 0, count: bytes.count * 4 + 4)
        let outputCount = output.count
        let converted: Int? = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                var inPointer = inBuffer.baseAddress
                var inLeft = inBuffer.count
                var outPointer = outBuffer.baseAddress
                var outLeft = outputCount
                guard iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft) != -1, inLeft == 0,
                    iconv(converter, nil, nil, &outPointer, &outLeft) != -1
                else { return nil }
                return outputCount - outLeft
            }
        }
        guard let converted else { return nil }
        return String(validating: output[..<converted].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
