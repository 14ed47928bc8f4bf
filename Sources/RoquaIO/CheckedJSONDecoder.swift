import Foundation

/// A `JSONDecoder` that refuses nesting deeper than Foundation's own limit before Foundation
/// reads the bytes.
///
/// Foundation's decoder on Linux (swift-foundation 6.x) stops at 512 nested arrays or objects, but
/// it crashes the process (SIGILL in `JSONError.SourceLocation`) instead of throwing when the
/// bracket that crosses the limit is the text's last byte: 513 bytes of `[` from a stranger were
/// enough to stop a server. This decoder throws `DecodingError.dataCorrupted` for every text
/// nested deeper than 512, the same texts Foundation refuses, so none reaches that path. Every
/// `JSONDecoder` in the two packages is one of these (a test keeps it so).
public final class CheckedJSONDecoder: JSONDecoder, @unchecked Sendable {
    /// Foundation's limit: texts nested deeper are refused (by both decoders).
    public static let maximumDepth = 512

    public override func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try Self.checkNesting(data)
        return try super.decode(type, from: data)
    }

    /// Throws `DecodingError.dataCorrupted`, naming the line and column, if `data` opens more than
    /// `maximumDepth` arrays or objects at once (brackets inside strings do not count).
    public static func checkNesting(_ data: Data) throws {
        let found: (offset: Int, line: Int, column: Int)? = data.withUnsafeBytes { raw in
            var depth = 0, line = 1, lineStart = 0
            var inString = false, escaped = false
            for (offset, byte) in raw.enumerated() {
                if inString {
                    if escaped {
                        escaped = false
                    } else if byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                    }
                    continue
                }
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    depth += 1
                    if depth > maximumDepth { return (offset, line, offset - lineStart + 1) }
                case UInt8(ascii: "]"), UInt8(ascii: "}"): depth = max(0, depth - 1)
                case 0x0A:
                    line += 1
                    lineStart = offset + 1
                default: break
                }
            }
            return nil
        }
        guard let found else { return }
        throw DecodingError.dataCorrupted(
            DecodingError.Context(
                codingPath: [],
                debugDescription: "The given data was not valid JSON: more than \(maximumDepth) nested arrays or objects "
                    + "around line \(found.line), column \(found.column) (byte \(found.offset + 1))."))
    }
}
