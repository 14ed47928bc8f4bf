import Foundation
import RoquaBoundaries
import RoquaIO

/// Turns one CSV or NDJSON line into a coordinate (or the row's error), on any worker thread:
/// everything it needs to know about the file (columns, count) is fixed by the reader first.
package struct BatchRowParser: Sendable {
    let path: String
    let format: BatchFormat
    var latColumn = 0, lonColumn = 1
    /// Columns every CSV row must have: the header's, else the first row's.
    var columnCount: Int?

    init(path: String, format: BatchFormat) {
        self.path = path
        self.format = format
    }

    func failure(_ row: Int, _ message: String) -> Result<Coordinate, BatchRowError> {
        .failure(BatchRowError(file: path, row: row, message: message))
    }

    func coordinate(_ row: Int, _ latitude: Double, _ longitude: Double) -> Result<Coordinate, BatchRowError> {
        do {
            return .success(try Coordinate(latitude: latitude, longitude: longitude).validated())
        } catch {
            return failure(row, error.description)
        }
    }

    /// The coordinate of one non-blank line.
    func coordinate(line: UnsafeBufferPointer<UInt8>, row: Int) -> Result<Coordinate, BatchRowError> {
        format == .csv ? csvCoordinate(line, row) : ndjsonCoordinate(line, row)
    }

    // MARK: - CSV

    private func csvCoordinate(_ line: UnsafeBufferPointer<UInt8>, _ row: Int) -> Result<Coordinate, BatchRowError> {
        if let fast = unquotedFields(line) {
            let expected = columnCount ?? fast.count
            guard fast.count == expected else { return failure(row, "expected \(expected) columns, found \(fast.count)") }
            guard fast.count > max(latColumn, lonColumn) else { return tooFewColumns(row, fast.count) }
            return coordinate(row, lat: UnsafeBufferPointer(rebasing: line[fast.lat]), lon: UnsafeBufferPointer(rebasing: line[fast.lon]))
        }
        guard let fields = CSVLine.split(Array(line)) else {
            return failure(row, "unterminated quote (a row must fit on one line)")
        }
        let expected = columnCount ?? fields.count
        guard fields.count == expected else { return failure(row, "expected \(expected) columns, found \(fields.count)") }
        guard fields.count > max(latColumn, lonColumn) else { return tooFewColumns(row, fields.count) }
        return fields[latColumn].withUnsafeBufferPointer { lat in
            fields[lonColumn].withUnsafeBufferPointer { lon in coordinate(row, lat: lat, lon: lon) }
        }
    }

    private func tooFewColumns(_ row: Int, _ found: Int) -> Result<Coordinate, BatchRowError> {
        failure(row, "expected at least \(max(latColumn, lonColumn) + 1) columns (lat, lon), found \(found)")
    }

    /// For a line without quotes (nearly all): the field count and the trimmed latitude and
    /// longitude fields, found in one pass without copying; nil when the line has a quote.
    private func unquotedFields(_ line: UnsafeBufferPointer<UInt8>) -> (count: Int, lat: Range<Int>, lon: Range<Int>)? {
        var count = 0, start = 0
        var lat = 0..<0, lon = 0..<0
        for i in 0...line.count {
            let b: UInt8 = i < line.count ? line[i] : UInt8(ascii: ",")
            if b == UInt8(ascii: "\"") { return nil }
            guard b == UInt8(ascii: ",") else { continue }
            if count == latColumn || count == lonColumn {
                var lo = start, hi = i
                while lo < hi, Self.isSpace(line[lo]) { lo += 1 }
                while hi > lo, Self.isSpace(line[hi - 1]) { hi -= 1 }
                if count == latColumn { lat = lo..<hi } else { lon = lo..<hi }
            }
            count += 1
            start = i + 1
        }
        return (count, lat, lon)
    }

    @inline(__always)
    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    private func coordinate(
        _ row: Int, lat: UnsafeBufferPointer<UInt8>, lon: UnsafeBufferPointer<UInt8>
    ) -> Result<Coordinate, BatchRowError> {
        guard let latitude = Self.number(lat) else {
            return failure(row, "latitude \(Echo.quoted(String(decoding: lat, as: UTF8.self))) is not a number")
        }
        guard let longitude = Self.number(lon) else {
            return failure(row, "longitude \(Echo.quoted(String(decoding: lon, as: UTF8.self))) is not a number")
        }
        return coordinate(row, latitude, longitude)
    }

    private static let powersOfTen: [Double] = (0...22).map { pow(10, Double($0)) }

    /// `TextValues.number`, with a fast path for plain decimals (`-41.0123456`): up to 2⁵³ as
    /// digits and at most 22 after the point, the value is the digits divided by a power of ten,
    /// which IEEE division rounds exactly as `Double(String)` does. Everything else (exponents,
    /// signs, long digit strings, junk) goes to `TextValues.number`, so both accept and give the same.
    package static func number(_ field: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0
        while i < field.count, isSpace(field[i]) { i += 1 }
        var end = field.count
        while end > i, isSpace(field[end - 1]) { end -= 1 }
        let negative = i < end && field[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        var mantissa: UInt64 = 0, digits = 0, decimals = 0
        var point = false
        while i < end {
            let b = field[i]
            if b >= 0x30, b <= 0x39 {
                guard digits < 19 else { return slowNumber(field) }
                mantissa = mantissa * 10 + UInt64(b - 0x30)
                digits += 1
                if point { decimals += 1 }
            } else if b == UInt8(ascii: "."), !point {
                point = true
            } else {
                return slowNumber(field)
            }
            i += 1
        }
        guard digits > 0, mantissa <= 1 << 53, decimals <= 22 else { return slowNumber(field) }
        if !point {  // as TextValues: an integer is read as an Int, so "-0" is 0.0
            let value = Int(mantissa)
            return Double(negative ? -value : value)
        }
        let value = Double(mantissa) / powersOfTen[decimals]
        return negative ? -value : value
    }

    private static func slowNumber(_ field: UnsafeBufferPointer<UInt8>) -> Double? {
        TextValues.number(bytes: TextValues.trimmed(Array(field)[...]))
    }

    // MARK: - NDJSON

    private func ndjsonCoordinate(_ line: UnsafeBufferPointer<UInt8>, _ row: Int) -> Result<Coordinate, BatchRowError> {
        if let (latitude, longitude) = JSONRecordScan.ndjson(line) { return coordinate(row, latitude, longitude) }
        return ndjsonCoordinateParsed(line, row)
    }

    /// For tests and the fuzzer: an NDJSON row read with the fast path (nil when it leaves the
    /// row to the full parse) and with the full parse alone, each as the coordinate or the error.
    package static func ndjsonBothWays(_ line: [UInt8]) -> (fast: String?, full: String) {
        let parser = BatchRowParser(path: "f", format: .ndjson)
        func render(_ result: Result<Coordinate, BatchRowError>) -> String {
            switch result {
            case let .success(c): "\(c.latitude.bitPattern),\(c.longitude.bitPattern)"
            case let .failure(error): error.message
            }
        }
        return line.withUnsafeBufferPointer { buffer in
            (
                JSONRecordScan.ndjson(buffer).map { render(parser.coordinate(1, $0.latitude, $0.longitude)) },
                render(parser.ndjsonCoordinateParsed(buffer, 1))
            )
        }
    }

    /// The full parse of an NDJSON row: what the fast path leaves, and the errors' wording.
    func ndjsonCoordinateParsed(_ line: UnsafeBufferPointer<UInt8>, _ row: Int) -> Result<Coordinate, BatchRowError> {
        let scanner = JSONScanner(stream: ByteStream(bytes: line, name: path, line: row))
        // A row that is not one JSON object is that row's error, whatever the scanner's reason.
        guard let object = try? scanner.readValue(), case .object = object, (try? scanner.expectEnd()) != nil else {
            return failure(row, "not a JSON object")
        }
        func value(_ name: String, _ keys: [String]) -> Result<Double, BatchRowError> {
            guard let found = keys.lazy.compactMap({ object[$0] }).first else {
                return .failure(BatchRowError(file: path, row: row, message: "no \(name)"))
            }
            switch found {
            case let .number(number, _): return .success(number)
            case let .string(text, _):
                guard let number = TextValues.number(text) else {
                    return .failure(BatchRowError(file: path, row: row, message: "\(name) \(Echo.quoted(text)) is not a number"))
                }
                return .success(number)
            default: return .failure(BatchRowError(file: path, row: row, message: "\(name) is \(found.kind), not a number"))
            }
        }
        return value("latitude", ["lat", "latitude"]).flatMap { lat in
            value("longitude", ["lon", "lng", "longitude"]).flatMap { lon in coordinate(row, lat, lon) }
        }
    }
}
