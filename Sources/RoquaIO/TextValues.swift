import Foundation

/// Small value parsers shared by the readers.
package enum TextValues {
    /// A decimal number written the plain way (`-12.5`, `1e3`), whitespace around it allowed, refusing `nan`, `inf`, hex and empty text that `Double(String)` would otherwise
    /// accept or that mean a corrupt field.
    package static func number(_ text: some StringProtocol) -> Double? {
        // A native string's bytes are read in place (an array of them was made per call before).
        if let found = text.utf8.withContiguousStorageIfAvailable({ number(buffer: trimmed($0)) }) { return found }
        return number(bytes: trimmed(Array(text.utf8)[...]))
    }

    /// `text.trimmingCharacters(in: .whitespacesAndNewlines)`, without Foundation for ASCII text
    /// (a track's every time and number: Foundation's trimming was a fifth of a GPX import).
    package static func trimmedWhitespace(_ text: String) -> String {
        let utf8 = text.utf8
        guard utf8.allSatisfy({ $0 < 0x80 }) else { return text.trimmingCharacters(in: .whitespacesAndNewlines) }
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || (0x09...0x0D).contains(b) }
        guard let first = utf8.firstIndex(where: { !isSpace($0) }), let last = utf8.lastIndex(where: { !isSpace($0) }) else { return "" }
        if first == utf8.startIndex, utf8.index(after: last) == utf8.endIndex { return text }
        return String(text[first...last])
    }

    /// `bytes` without the spaces, tabs, CRs and LFs around it.
    package static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> { trimmedBytes(bytes) }

    /// As `trimmed(_:)`, for bytes in place.
    package static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: trimmedBytes(bytes[...]))
    }

    private static func trimmedBytes<C: BidirectionalCollection<UInt8>>(_ bytes: C) -> C.SubSequence {
        var bytes = bytes[...]
        while let first = bytes.first, first == 0x20 || first == 0x09 || first == 0x0A || first == 0x0D { bytes.removeFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 || last == 0x0A || last == 0x0D { bytes.removeLast() }
        return bytes
    }

    /// As `number(_:)`, for bytes without surrounding spaces. Plain integers of up to 15 digits
    /// (the E7 coordinates and epoch times that dominate Google exports) skip `Double(String)`,
    /// and so do plain decimals of up to 15 digits (`41.0082000`, the coordinates of GPX, KML
    /// and CSV): digits ÷ a power of ten, both exact doubles, is one correctly rounded division,
    /// the very double `Double(String)` gives (Clinger's fast path).
    package static func number(bytes: ArraySlice<UInt8>) -> Double? {
        bytes.withUnsafeBufferPointer { number(buffer: $0) }
    }

    /// As `number(bytes:)`, for bytes in place.
    package static func number(buffer bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        guard !bytes.isEmpty else { return nil }
        let negative = bytes.first == 0x2D
        let digits = negative ? UnsafeBufferPointer(rebasing: bytes.dropFirst()) : bytes
        if !digits.isEmpty, digits.count <= 16 {
            var value = 0, count = 0, point = -1
            var plain = true
            for (k, b) in digits.enumerated() {
                if b >= 0x30, b <= 0x39 {
                    value = value * 10 + Int(b - 0x30)
                    count += 1
                } else if b == 0x2E, point < 0, k > 0, k < digits.count - 1 {
                    point = k
                } else {
                    plain = false
                    break
                }
            }
            if plain, count <= 15 {
                if point < 0 { return Double(negative ? -value : value) }
                let decimal = Double(value) / Self.powersOfTen[count - point]
                return negative ? -decimal : decimal
            }
        }
        guard bytes.allSatisfy({ isNumberByte($0) }), let value = Double(String(decoding: bytes, as: UTF8.self)),
            value.isFinite
        else { return nil }
        return value
    }

    /// 10⁰ … 10¹⁵, each exact as a double.
    private static let powersOfTen: [Double] = {
        var powers: [Double] = [1]
        for _ in 1...15 { powers.append(powers[powers.count - 1] * 10) }
        return powers
    }()

    @inline(__always)
    package static func isNumberByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || byte == 0x2E || byte == 0x2D || byte == 0x2B || byte == 0x65 || byte == 0x45
    }

    /// `value` with exactly `decimals` decimals, as `%.Nf` prints it, without Foundation's
    /// formatting (several µs a call, a large share of a reverse-geocoding request). The scaled
    /// value is rounded half away from zero, so an exact tie can differ from `%.Nf` in the last
    /// digit. Falls back to `%.Nf` beyond ±9e15 units.
    package static func fixed(_ value: Double, decimals: Int) -> String {
        let scale = (0..<decimals).reduce(1.0) { value, _ in value * 10 }
        let scaled = (abs(value) * scale).rounded()
        guard value.isFinite, decimals >= 0, decimals <= 15, scaled < 9e15 else {
            return String(format: "%.\(max(0, decimals))f", value)
        }
        let units = Int64(scaled)
        let divisor = Int64(scale)
        let whole = units / divisor, fraction = units % divisor
        var text = value.sign == .minus ? "-" : ""  // as printf: -0.4 with no decimals is "-0"
        text += String(whole)
        guard decimals > 0 else { return text }
        let digits = String(fraction)
        return text + "." + String(repeating: "0", count: decimals - digits.count) + digits
    }
}
