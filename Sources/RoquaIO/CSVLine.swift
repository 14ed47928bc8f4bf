/// One line of delimited text (RFC 4180 quoting, a record on one line), shared by the track CSV
/// reader and the batch resolver.
package enum CSVLine {
    /// The fields of `bytes` split on `delimiter`, spaces and tabs around each trimmed; quoted
    /// fields may hold the delimiter and doubled quotes. Unquoted lines (nearly all) are sliced
    /// without copying. Nil when a quote is left open (the record does not end on this line).
    package static func split(_ bytes: [UInt8], delimiter: UInt8 = UInt8(ascii: ",")) -> [ArraySlice<UInt8>]? {
        var fields: [ArraySlice<UInt8>] = []
        guard bytes.contains(UInt8(ascii: "\"")) else {
            var start = 0
            for i in 0...bytes.count where i == bytes.count || bytes[i] == delimiter {
                fields.append(TextValues.trimmed(bytes[start..<i]))
                start = i + 1
            }
            return fields
        }
        var field: [UInt8] = []
        var quoted = false
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if quoted {
                if b == UInt8(ascii: "\"") {
                    if i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "\"") {
                        field.append(b)
                        i += 1
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(b)
                }
            } else if b == UInt8(ascii: "\"") {
                quoted = true
            } else if b == delimiter {
                fields.append(TextValues.trimmed(field[...]))
                field.removeAll(keepingCapacity: true)
            } else {
                field.append(b)
            }
            i += 1
        }
        guard !quoted else { return nil }
        fields.append(TextValues.trimmed(field[...]))
        return fields
    }

    /// True for a line of nothing but spaces and tabs.
    package static func isBlank(_ bytes: [UInt8]) -> Bool {
        bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 }
    }

    /// As `isBlank(_:)`, for a line in a reader's block: not generic, so a caller in another
    /// module runs it without looking up generic metadata per line.
    package static func isBlank(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes where byte != 0x20 && byte != 0x09 { return false }
        return true
    }

    /// Whether a value (as UTF-8) must be quoted as a CSV field: it holds a comma, a quote or a
    /// line break.
    @inlinable
    package static func needsQuotes(_ utf8: some Sequence<UInt8>) -> Bool {
        utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }
    }

    /// A value as a CSV field: quoted when it holds a comma, a quote or a line break.
    package static func quote(_ value: String) -> String {
        guard needsQuotes(value.utf8) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
