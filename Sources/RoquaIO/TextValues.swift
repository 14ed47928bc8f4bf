import Foundation

/// Small value parsers shared by the readers.
package enum TextValues {
    /// A decimal number written the plain way (`-12.5`, `1e3`), whitespace around it allowed, refusing `nan`, `inf`, hex and empty text that `Double(String)` would otherwise
    /// accept or that mean a corrupt field.
    package static func number(_ text: some StringProtocol) -> Double? {
        number(bytes: trimmed(Array(text.utf8)[...]))
    }

    /// `bytes` without the spaces, tabs, CRs and LFs around it.
    package static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var bytes = bytes
        while let first = bytes.first, first == 0x20 || first == 0x09 || first == 0x0A || first == 0x0D { bytes.removeFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 || last == 0x0A || last == 0x0D { bytes.removeLast() }
        return bytes
    }

    /// As `number(_:)`, for bytes without surrounding spaces. Plain integers of up to 15 digits
    /// (the E7 coordinates and epoch times that dominate Google exports) skip `Double(String)`.
    package static func number(bytes: ArraySlice<UInt8>) -> Double? {
        guard !bytes.isEmpty else { return nil }
        var digits = bytes
        let negative = digits.first == 0x2D
        if negative { digits.removeFirst() }
        if !digits.isEmpty, digits.count <= 15 {
            var value = 0
            var allDigits = true
            for b in digits {
                guard b >= 0x30, b <= 0x39 else { allDigits = false; break }
                value = value * 10 + Int(b - 0x30)
            }
            if allDigits { return Double(negative ? -value : value) }
        }
        guard bytes.allSatisfy({ isNumberByte($0) }), let value = Double(String(decoding: bytes, as: UTF8.self)),
              value.isFinite else { return nil }
        return value
    }

    @inline(__always)
    package static func isNumberByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || byte == 0x2E || byte == 0x2D || byte == 0x2B || byte == 0x65 || byte == 0x45
    }
}
