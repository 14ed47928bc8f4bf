import Foundation

/// A coordinate pair as people copy it: `40.9879 29.0281`, `41.0054,28.9768` (what map apps
/// copy), `41.0054, 28.9768`, with hemisphere letters (`41.0054N 28.9768E`, `N41.0054 E28.9768`),
/// or in degrees, minutes and seconds (`41°00'19"N 28°58'36"E`, `41° 0.32' N, 28° 58.6' E`).
/// Latitude first unless hemisphere letters say otherwise (`28°58'36"E 41°00'19"N`).
public enum CoordinateText {
    /// Why a text is not a coordinate pair.
    public struct Failure: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    /// The latitude and longitude the text names (checked for range by `Coordinate.validated`).
    /// - Throws: `Failure` naming the text and the forms that are read.
    public static func parse(_ text: String) throws(Failure) -> (latitude: Double, longitude: Double) {
        let parts = components(of: normalized(text))
        guard let parts, parts.count == 2 else {
            throw Failure(
                description: "cannot read \"\(text.prefix(80))\" as a coordinate pair: give LAT LON (40.9879 29.0281), "
                    + "LAT,LON (40.9879,29.0281) or degrees, minutes and seconds (40°59'16\"N 29°01'41\"E)")
        }
        var (first, second) = (parts[0], parts[1])
        if first.axis == .longitude || second.axis == .latitude { swap(&first, &second) }
        guard first.axis != .longitude, second.axis != .latitude else {
            throw Failure(description: "\"\(text.prefix(80))\" names two latitudes or two longitudes")
        }
        return (first.value, second.value)
    }

    enum Axis { case latitude, longitude, either }

    struct Component {
        var value: Double
        var axis: Axis
    }

    /// Prime and double-prime marks, typographic minus and quotes as plain ASCII, the degree sign
    /// (and the ordinal and ring used for it) as `D`; upper case, for the hemisphere letters.
    static func normalized(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "′", "’", "‘", "´", "`": out += "'"
            case "″", "”", "“": out += "\""
            case "°", "º", "˚": out += "D"  // one ASCII byte for the scanner
            case "−", "‒", "–": out += "-"  // U+2212 is also the minus the command line marks (NegativeNumberMark)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out.uppercased()
    }

    /// Splits the text into coordinate components: a number of degrees, optionally minutes and
    /// seconds, and a hemisphere letter before or after; separated by spaces, a comma or a
    /// semicolon. Nil when anything else is left over.
    static func components(of text: String) -> [Component]? {
        var scanner = Scanner(text)
        var parts: [Component] = []
        scanner.skipSeparators(first: true)
        while !scanner.atEnd {
            guard let part = scanner.component() else { return nil }
            parts.append(part)
            guard parts.count <= 2 else { return nil }
            scanner.skipSeparators(first: false)
        }
        return parts
    }

    struct Scanner {
        let bytes: [UInt8]
        var at = 0

        init(_ text: String) { bytes = Array(text.utf8) }

        var atEnd: Bool { at >= bytes.count }

        mutating func skipSpaces() {
            while at < bytes.count, bytes[at] == 0x20 || bytes[at] == 0x09 { at += 1 }
        }

        /// Spaces, and between two components one comma or semicolon.
        mutating func skipSeparators(first: Bool) {
            skipSpaces()
            if !first, at < bytes.count, bytes[at] == UInt8(ascii: ",") || bytes[at] == UInt8(ascii: ";") { at += 1 }
            skipSpaces()
        }

        mutating func hemisphere() -> (Axis, Double)? {
            guard at < bytes.count else { return nil }
            switch bytes[at] {
            case UInt8(ascii: "N"):
                at += 1
                return (.latitude, 1)
            case UInt8(ascii: "S"):
                at += 1
                return (.latitude, -1)
            case UInt8(ascii: "E"):
                at += 1
                return (.longitude, 1)
            case UInt8(ascii: "W"):
                at += 1
                return (.longitude, -1)
            default: return nil
            }
        }

        /// An unsigned decimal number (`41`, `41.0054`, `.5`) of at most 32 characters (no degree
        /// needs more; `Double(String)` on a very long one can exhaust the stack).
        mutating func number() -> Double? {
            let start = at
            while at < bytes.count, (0x30...0x39).contains(bytes[at]) || bytes[at] == UInt8(ascii: ".") { at += 1 }
            guard at > start, at - start <= 32, let value = Double(String(decoding: bytes[start..<at], as: UTF8.self)), value.isFinite
            else {
                at = start
                return nil
            }
            return value
        }

        mutating func mark(_ ascii: Character) -> Bool {
            skipSpaces()
            guard at < bytes.count, bytes[at] == UInt8(ascii: ascii.unicodeScalars.first!) else { return false }
            at += 1
            return true
        }

        /// `[H] [-|+]DEG[°] [MIN' [SEC"]] [H]` (the degree sign arrives as `D`).
        mutating func component() -> Component? {
            var axis = Axis.either
            var sign = 1.0
            if let (leading, s) = hemisphere() {
                (axis, sign) = (leading, s)
                skipSpaces()
            }
            if at < bytes.count, bytes[at] == UInt8(ascii: "-") || bytes[at] == UInt8(ascii: "+") {
                if bytes[at] == UInt8(ascii: "-") { sign = -sign }
                at += 1
            }
            guard let degrees = number() else { return nil }
            var value = degrees
            _ = mark("D")
            let save = at
            skipSpaces()
            if let minutes = number() {
                if mark("'") {
                    guard degrees == degrees.rounded(), minutes < 60 else { return nil }
                    value += minutes / 60
                    let beforeSeconds = at
                    skipSpaces()
                    if let seconds = number() {
                        guard mark("\""), minutes == minutes.rounded(), seconds < 60 else { return nil }
                        value += seconds / 3600
                    } else {
                        at = beforeSeconds
                    }
                } else {
                    at = save  // the next component's number, not minutes
                }
            } else {
                at = save
            }
            skipSpaces()
            if axis == .either, let (trailing, s) = hemisphere() {
                guard sign > 0 else { return nil }  // "-41N" says two things
                (axis, sign) = (trailing, s)
            }
            return Component(value: sign * value, axis: axis)
        }
    }
}
