import CQRencode
import Foundation

/// A QR code made by libqrencode (byte mode, the smallest version that holds the text): the
/// module matrix, drawn as SVG for the browser app or as text for a terminal.
public struct QRCode: Sendable, Equatable {
    /// The error-correction level: how much of the symbol may be damaged or hidden and still read.
    public enum Correction: Sendable {
        case low, medium, quartile, high

        var level: QRecLevel {
            switch self {
            case .low: QR_ECLEVEL_L
            case .medium: QR_ECLEVEL_M
            case .quartile: QR_ECLEVEL_Q
            case .high: QR_ECLEVEL_H
            }
        }
    }

    /// Modules per side (21 for version 1, +4 per version), without the quiet zone.
    public let size: Int
    /// `size × size` modules, row by row; true is dark.
    public let modules: [Bool]

    /// - Throws: `QRCodeError` when the text is empty or more than a version-40 symbol holds at
    ///   this level (2,331 bytes at medium).
    public init(_ text: String, correction: Correction = .medium) throws {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw QRCodeError(message: "nothing to encode: the text is empty") }
        guard let code = bytes.withUnsafeBufferPointer({ QRcode_encodeData(Int32($0.count), $0.baseAddress, 0, correction.level) }) else {
            let reason = errno == ERANGE ? "too long for a QR code (\(bytes.count) bytes)" : "libqrencode failed (errno \(errno))"
            throw QRCodeError(message: reason)
        }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        size = width
        modules = (0..<width * width).map { code.pointee.data[$0] & 1 == 1 }
    }

    /// Whether the module at column `x`, row `y` is dark; outside the symbol (the quiet zone): false.
    public func isDark(x: Int, y: Int) -> Bool {
        x >= 0 && y >= 0 && x < size && y < size && modules[y * size + x]
    }

    /// An SVG of `scale` px per module with the 4-module quiet zone readers need: one path of
    /// dark runs, black on white.
    public func svg(scale: Int = 4) -> String {
        let side = size + 2 * Self.quietZone
        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard isDark(x: x, y: y) else {
                    x += 1
                    continue
                }
                let start = x
                while isDark(x: x, y: y) { x += 1 }
                path += "M\(start + Self.quietZone) \(y + Self.quietZone)h\(x - start)v1h-\(x - start)z"
            }
        }
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(side * scale)\" height=\"\(side * scale)\" "
            + "viewBox=\"0 0 \(side) \(side)\" shape-rendering=\"crispEdges\">"
            + "<rect width=\"\(side)\" height=\"\(side)\" fill=\"#fff\"/><path fill=\"#000\" d=\"\(path)\"/></svg>"
    }

    /// The symbol as terminal text, two module rows per line in half blocks, with the quiet
    /// zone. Black on white set by ANSI colours, so it reads on light and dark terminals alike.
    public func terminalLines() -> [String] {
        let range = -Self.quietZone..<(size + Self.quietZone)
        return stride(from: range.lowerBound, to: range.upperBound, by: 2).map { y in
            let row = String(
                range.map { x -> Character in
                    switch (isDark(x: x, y: y), isDark(x: x, y: y + 1)) {
                    case (true, true): "█"
                    case (true, false): "▀"
                    case (false, true): "▄"
                    case (false, false): " "
                    }
                })
            return "\u{1B}[30;47m" + row + "\u{1B}[0m"
        }
    }

    static let quietZone = 4
}

/// Why a text could not be made a QR code.
public struct QRCodeError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { message }
}
