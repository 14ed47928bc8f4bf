import Foundation
import RoquaIO

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
    package func forEachRow(_ body: (Int, Result<Coordinate, BatchRowError>, UnsafeBufferPointer<UInt8>?, JSONValue?) -> Void) throws {
        switch content {
        case let .block(bytes, firstLine, tooLong):
            forEachLine(bytes, firstLine: firstLine, tooLong: tooLong, body)
        case let .lines(bytes, lines):
            bytes.withUnsafeBufferPointer { all in
                for line in lines {
                    guard line.length >= 0 else {
                        body(line.number, tooLongFailure(line.number), nil, nil)
                        continue
                    }
                    let text = UnsafeBufferPointer(rebasing: all[line.start..<(line.start + line.length)])
                    body(line.number, parser.coordinate(line: text, row: line.number), parser.format == .csv ? text : nil, nil)
                }
            }
        case let .features(bytes, features):
            for feature in features {
                let value = try BatchInput.geoJSON(path: parser.path) {
                    let json = JSONScanner(stream: ByteStream(bytes: bytes[feature.start..<(feature.start + feature.length)],
                                                              name: parser.path, line: feature.line))
                    let value = try json.readValue(keeping: ["type", "geometry", "properties"])
                    try json.expectEnd()
                    return value
                }
                let properties = value["properties"].flatMap { $0.isNull ? nil : $0 }
                body(feature.number, coordinate(of: value, number: feature.number), nil, properties)
            }
        }
    }

    /// A feature's Point, or why it has none.
    private func coordinate(of feature: JSONValue, number: Int) -> Result<Coordinate, BatchRowError> {
        guard let geometry = feature["geometry"], geometry["type"]?.string == "Point",
              let position = geometry["coordinates"]?.array, position.count >= 2,
              let lon = position[0].number, let lat = position[1].number else {
            return parser.failure(number, "feature is not a Point with numeric coordinates")
        }
        return parser.coordinate(number, lat, lon)
    }

    private func tooLongFailure(_ number: Int) -> Result<Coordinate, BatchRowError> {
        parser.failure(number, "row longer than \(BatchInput.maxRowBytes >> 20) MiB")
    }

    /// Splits a block into lines (memchr) and numbers them, as the reader would have one by one:
    /// a trailing `\r` stripped, blank lines skipped but counted, overlong lines reported in place.
    private func forEachLine(_ bytes: [UInt8], firstLine: Int, tooLong: [Int],
                             _ body: (Int, Result<Coordinate, BatchRowError>, UnsafeBufferPointer<UInt8>?, JSONValue?) -> Void) {
        var number = firstLine
        var skipped = 0  // tooLong[skipped] is the next overlong line to report
        bytes.withUnsafeBufferPointer { (all: UnsafeBufferPointer<UInt8>) -> Void in
            var start = 0
            while true {
                while skipped < tooLong.count, tooLong[skipped] == number {
                    body(number, tooLongFailure(number), nil, nil)
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
                    body(number, parser.coordinate(line: text, row: number), parser.format == .csv ? text : nil, nil)
                }
                number += 1
                start = end + 1
            }
        }
    }
}
