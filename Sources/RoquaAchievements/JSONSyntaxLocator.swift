import Foundation
import RoquaProgress

/// Finds where a JSON text first goes wrong, for error messages: Foundation's parser on Linux
/// does not say where. A small recursive-descent syntax check (no values are built).
enum JSONSyntaxLocator {
    /// The 1-based line of the first syntax error, or nil if the text parses.
    static func errorLine(in data: Data) -> Int? {
        let bytes = [UInt8](data)
        var scanner = Scanner(bytes: bytes)
        let ok =
            scanner.value()
            && {
                scanner.skipSpace()
                return scanner.index == bytes.count
            }()
        guard !ok else { return nil }
        return bytes.prefix(min(scanner.index, bytes.count)).reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        var depth = 0

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while let c = current, c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { index += 1 }
        }

        mutating func value() -> Bool {
            skipSpace()
            guard let c = current else { return false }
            switch c {
            case UInt8(ascii: "{"): return container(close: UInt8(ascii: "}"), keyed: true)
            case UInt8(ascii: "["): return container(close: UInt8(ascii: "]"), keyed: false)
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return number()
            }
        }

        mutating func container(close: UInt8, keyed: Bool) -> Bool {
            depth += 1
            guard depth < 512 else { return false }
            index += 1
            skipSpace()
            if current == close {
                index += 1
                depth -= 1
                return true
            }
            while true {
                if keyed {
                    skipSpace()
                    guard current == UInt8(ascii: "\""), string() else { return false }
                    skipSpace()
                    guard current == UInt8(ascii: ":") else { return false }
                    index += 1
                }
                guard value() else { return false }
                skipSpace()
                if current == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard current == close else { return false }
                index += 1
                depth -= 1
                return true
            }
        }

        mutating func string() -> Bool {
            index += 1
            while let c = current {
                index += 1
                if c == UInt8(ascii: "\"") { return true }
                if c == UInt8(ascii: "\\") {
                    index += 1
                } else if c < 0x20 {
                    index -= 1
                    return false
                }
            }
            return false
        }

        mutating func literal(_ word: String) -> Bool {
            for expected in word.utf8 {
                guard current == expected else { return false }
                index += 1
            }
            return true
        }

        mutating func number() -> Bool {
            let start = index
            while let c = current, (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || "+-.eE".utf8.contains(c) { index += 1 }
            return index > start
        }
    }
}
