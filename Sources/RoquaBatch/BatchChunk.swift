import Foundation
import RoquaBoundaries
import RoquaIO

/// What the output keeps of an input row: a GeoJSON feature's properties object, as its text
/// when that is already written as `JSONValue.jsonText` would write it, else as a value.
package enum KeptProperties {
    case none
    case text(UnsafeBufferPointer<UInt8>)
    case value(JSONValue)

    /// The object's members followed by a comma, as the output writes them before its own
    /// member; nothing for no properties, an empty object or a value that is not an object.
    func appendMembers(to out: inout [UInt8]) {
        switch self {
        case let .text(text) where text.count > 2:  // `{…}` written as jsonText writes it
            out.append(contentsOf: text[1..<(text.count - 1)])
            out.append(UInt8(ascii: ","))
        case let .value(value):
            if case let .object(members, _) = value, !members.isEmpty {
                var text = String(value.jsonText.dropFirst().dropLast()) + ","
                text.withUTF8 { out.append(contentsOf: $0) }
            }
        case .text, .none: break
        }
    }
}

/// A run of input in file order, read by one thread and handed whole to a worker: raw lines
/// (CSV, NDJSON) or raw features of a GeoJSON FeatureCollection, parsed by the worker.
package struct BatchChunk: Sendable {
    /// One line: where its bytes are in `bytes` (`length` -1: longer than the row limit, not kept).
    struct Line: Sendable {
        var start: Int
        var length: Int
        var number: Int
    }

    /// One GeoJSON feature: where its bytes are in `bytes`, its number in the collection and
    /// the line it starts on.
    struct Feature: Sendable {
        var start: Int
        var length: Int
        var number: Int
        var line: Int
    }

    enum Content: Sendable {
        /// Whole lines as they are in the file (`\n`s, `\r`s, blank lines), the first on line
        /// `firstLine`, split by the worker; `tooLong` are the numbers of lines between them
        /// longer than the row limit (not kept).
        case block(bytes: [UInt8], firstLine: Int, tooLong: [Int])
        case lines(bytes: [UInt8], lines: [Line])
        case features(bytes: [UInt8], features: [Feature])
    }

    var content: Content
    /// How to read the lines (columns, format): fixed by the rows read before this chunk.
    var parser: BatchRowParser
    /// How far through the input the chunk ends, when the size is known.
    var fraction: Double?

    /// Parses each row in order: its number, its coordinate or why there is none, the CSV line
    /// it came from (kept in CSV output) and a GeoJSON feature's properties.
    /// - Throws: `BatchError.notGeoJSON` for a feature that is not valid JSON (it ends the batch).
    package func forEachRow(
        _ body: (Int, Result<Coordinate, BatchRowError>, UnsafeBufferPointer<UInt8>?, KeptProperties) throws -> Void
    ) throws {
        switch content {
        case let .block(bytes, firstLine, tooLong):
            try forEachLine(bytes, firstLine: firstLine, tooLong: tooLong, body)
        case let .lines(bytes, lines):
            try bytes.withUnsafeBufferPointer { all in
                for line in lines {
                    guard line.length >= 0 else {
                        try body(line.number, tooLongFailure(line.number), nil, .none)
                        continue
                    }
                    let text = UnsafeBufferPointer(rebasing: all[line.start..<(line.start + line.length)])
                    try body(line.number, parser.coordinate(line: text, row: line.number), parser.format == .csv ? text : nil, .none)
                }
            }
        case let .features(bytes, features):
            try bytes.withUnsafeBufferPointer { all in
                for feature in features {
                    let text = UnsafeBufferPointer(rebasing: all[feature.start..<(feature.start + feature.length)])
                    let (coordinate, properties) = try read(text, feature: feature)
                    try body(feature.number, coordinate, nil, properties)
                }
            }
        }
    }

    /// One feature's point (or why it has none) and properties: by `JSONRecordScan` when the
    /// feature is plain, else (or when `fast` is off) by the full parse.
    /// - Throws: `BatchError.notGeoJSON` for a feature that is not valid JSON.
    private func read(
        _ text: UnsafeBufferPointer<UInt8>, feature: Feature, fast: Bool = true
    ) throws
        -> (Result<Coordinate, BatchRowError>, KeptProperties)
    {
        if fast, let plain = JSONRecordScan.feature(text) {
            var properties = KeptProperties.none
            if let range = plain.properties {
                properties = .text(UnsafeBufferPointer(rebasing: text[range]))
            } else if let range = plain.propertiesNeedParse {
                properties = .value(try parse(UnsafeBufferPointer(rebasing: text[range]), line: feature.line, keeping: nil))
            }
            return (parser.coordinate(feature.number, plain.latitude, plain.longitude), properties)
        }
        let value = try parse(text, line: feature.line)
        let properties = value["properties"].flatMap { $0.isNull ? nil : $0 }
        return (coordinate(of: value, number: feature.number), properties.map { .value($0) } ?? .none)
    }

    /// For tests and the fuzzer: the feature `text` as the output would carry it (its point or
    /// error, then its properties' members), read with the fast path (nil when it leaves the
    /// feature to the full parse) and with the full parse alone (nil when that refuses it).
    package static func featureBothWays(_ text: [UInt8]) -> (fast: String?, full: String?) {
        let chunk = BatchChunk(content: .lines(bytes: [], lines: []), parser: BatchRowParser(path: "f", format: .geojson), fraction: nil)
        let feature = Feature(start: 0, length: text.count, number: 1, line: 1)
        return text.withUnsafeBufferPointer { buffer in
            func render(fast: Bool) -> String? {
                guard let (coordinate, properties) = try? chunk.read(buffer, feature: feature, fast: fast) else { return nil }
                var members: [UInt8] = []
                properties.appendMembers(to: &members)
                let point =
                    switch coordinate {
                    case let .success(c): "\(c.latitude.bitPattern),\(c.longitude.bitPattern)"
                    case let .failure(error): error.message
                    }
                return point + " | " + String(decoding: members, as: UTF8.self)
            }
            return (JSONRecordScan.feature(buffer) == nil ? nil : render(fast: true), render(fast: false))
        }
    }

    /// One JSON value, the whole of `text`, which starts on `line`; of an object, only the
    /// members named in `keeping` (nil: all).
    /// - Throws: `BatchError.notGeoJSON` naming the line of what is wrong.
    private func parse(
        _ text: UnsafeBufferPointer<UInt8>, line: Int,
        keeping: [String]? = ["type", "geometry", "properties"]
    ) throws -> JSONValue {
        try BatchInput.geoJSON(path: parser.path) {
            let json = JSONScanner(stream: ByteStream(bytes: text, name: parser.path, line: line))
            let value = try json.readValue(keeping: keeping)
            try json.expectEnd()
            return value
        }
    }

    /// A feature's Point, or why it has none.
    private func coordinate(of feature: JSONValue, number: Int) -> Result<Coordinate, BatchRowError> {
        guard let geometry = feature["geometry"], geometry["type"]?.string == "Point",
            let position = geometry["coordinates"]?.array, position.count >= 2,
            let lon = position[0].number, let lat = position[1].number
        else {
            return parser.failure(number, "feature is not a Point with numeric coordinates")
        }
        return parser.coordinate(number, lat, lon)
    }

    private func tooLongFailure(_ number: Int) -> Result<Coordinate, BatchRowError> {
        parser.failure(number, "row longer than \(BatchInput.maxRowBytes >> 20) MiB")
    }

    /// Splits a block into lines (memchr) and numbers them, as the reader would have one by one:
    /// a trailing `\r` stripped, blank lines skipped but counted, overlong lines reported in place.
    private func forEachLine(
        _ bytes: [UInt8], firstLine: Int, tooLong: [Int],
        _ body: (Int, Result<Coordinate, BatchRowError>, UnsafeBufferPointer<UInt8>?, KeptProperties) throws -> Void
    ) throws {
        var number = firstLine
        var skipped = 0  // tooLong[skipped] is the next overlong line to report
        try bytes.withUnsafeBufferPointer { (all: UnsafeBufferPointer<UInt8>) throws -> Void in
            var start = 0
            while true {
                while skipped < tooLong.count, tooLong[skipped] == number {
                    try body(number, tooLongFailure(number), nil, .none)
                    number += 1
                    skipped += 1
                }
                guard start < all.count, let base = all.baseAddress else { return }
                let found: UnsafeMutableRawPointer? = memchr(base + start, 0x0A, all.count - start)
                let end = found.map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - base } ?? all.count
                var length = end - start
                if length > 0, base[start + length - 1] == 0x0D { length -= 1 }
                let text = UnsafeBufferPointer(start: base + start, count: length)
                if !CSVLine.isBlank(text) {
                    try body(number, parser.coordinate(line: text, row: number), parser.format == .csv ? text : nil, .none)
                }
                number += 1
                start = end + 1
            }
        }
    }
}
