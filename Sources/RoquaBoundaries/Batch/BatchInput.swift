import Foundation
import RoquaIO

/// One input row: its number (line in CSV/NDJSON, feature in GeoJSON), the coordinate or why
/// there is none, and what the output keeps of it.
struct BatchRow: @unchecked Sendable {
    // @unchecked: `JSONValue` is an immutable value tree; it only moves from the reader to one worker.
    enum Kept { case properties(JSONValue?), nothing }
    var row: Int
    var coordinate: Result<Coordinate, BatchRowError>
    var kept: Kept
}

/// A run of input in file order, read by one thread and handed whole to a worker: raw lines
/// (CSV, NDJSON; parsed by the worker) or features already read (GeoJSON, one JSON stream).
package struct BatchChunk: Sendable {
    /// One line: where its bytes are in `bytes` (`length` -1: longer than the row limit, not kept).
    struct Line: Sendable {
        var start: Int
        var length: Int
        var number: Int
    }

    enum Content: Sendable {
        case lines(bytes: [UInt8], lines: [Line])
        case rows([BatchRow])
    }

    var content: Content
    /// How to read the lines (columns, format): fixed by the rows read before this chunk.
    var parser: BatchRowParser
    /// How far through the input the chunk ends, when the size is known.
    var fraction: Double?

    /// Parses each row in order: its number, its coordinate or why there is none, the CSV line
    /// it came from (kept in CSV output) and a GeoJSON feature's properties.
    package func forEachRow(_ body: (Int, Result<Coordinate, BatchRowError>, UnsafeBufferPointer<UInt8>?, JSONValue?) -> Void) {
        switch content {
        case let .lines(bytes, lines):
            bytes.withUnsafeBufferPointer { all in
                for line in lines {
                    guard line.length >= 0 else {
                        body(line.number, parser.failure(line.number, "row longer than \(BatchInput.maxRowBytes >> 20) MiB"), nil, nil)
                        continue
                    }
                    let text = UnsafeBufferPointer(rebasing: all[line.start..<(line.start + line.length)])
                    body(line.number, parser.coordinate(line: text, row: line.number), parser.format == .csv ? text : nil, nil)
                }
            }
        case let .rows(rows):
            for row in rows {
                var properties: JSONValue?
                if case let .properties(kept) = row.kept { properties = kept }
                body(row.row, row.coordinate, nil, properties)
            }
        }
    }
}

/// Reads CSV, NDJSON or a GeoJSON FeatureCollection of points, streaming, in chunks: memory
/// holds one chunk of rows (each at most `maxRowBytes`; a longer one is a row error), never the file.
///
/// The format comes from the content, decided on the first line without trusting it to be a
/// good row: a first line naming `"features"` or `"FeatureCollection"` is GeoJSON; a first line
/// that is an object by itself, or is followed by a line starting another object, is NDJSON (so
/// a broken first row is reported as that row's error); anything not starting with `{` is CSV.
package final class BatchInput {
    static let maxRowBytes = 1 << 20
    let path: String
    let format: BatchFormat
    private(set) var csvHeader: String?
    private let stream: ByteStream
    private let json: JSONScanner
    /// A line read but not yet turned into a row.
    private var pending: [UInt8] = []
    /// The pending line was longer than `maxRowBytes` (and `pending` is empty).
    private var pendingTooLong = false
    private var pendingLine = 0
    private var hasPending = false
    private var parser: BatchRowParser
    private var featureIndex = 0
    private var inFeatures = false
    private var finished = false

    var fraction: Double? { stream.totalBytes.map { $0 > 0 ? Double(stream.offset) / Double($0) : 1 } }

    /// - Throws: `BatchError` when the file cannot be opened, its CSV header names no
    ///   coordinate columns, or it starts as GeoJSON but is not a FeatureCollection.
    package init(path: String) throws {
        self.path = path
        do {
            stream = try ByteStream(path: path)
        } catch {
            throw BatchError.cannotOpen(path: path, reason: error.message)
        }
        json = JSONScanner(stream: stream)
        let head = try stream.lookahead(64 << 10)
        format = Self.detect(head)
        parser = BatchRowParser(path: path, format: format)
        switch format {
        case .geojson: try geoJSON { try beginFeatures() }
        case .ndjson: break
        case .csv: try readHeader()
        }
    }

    /// Broken JSON in a FeatureCollection ends the batch (there is no next row to go on with):
    /// the error says where, and that the file was taken for GeoJSON.
    private func geoJSON<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as InputError {
            throw BatchError.notGeoJSON(path: path, reason: (error.line.map { "line \($0): " } ?? "") + error.message)
        }
    }

    static func detect(_ head: [UInt8]) -> BatchFormat {
        var start = 0
        while start < head.count, [0x20, 0x09, 0x0A, 0x0D].contains(head[start]) { start += 1 }
        guard start < head.count, head[start] == UInt8(ascii: "{") else { return .csv }
        let firstEnd = head[start...].firstIndex(of: 0x0A)
        let first = head[start..<(firstEnd ?? head.count)]
        let text = String(decoding: first, as: UTF8.self)
        if text.contains("\"features\"") || text.contains("\"FeatureCollection\"") { return .geojson }
        guard let firstEnd else { return .geojson }  // no line break in 64 KiB: one big document
        if TextValues.trimmed(first).last == UInt8(ascii: "}") { return .ndjson }
        let next = head[(firstEnd + 1)...].drop { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
        return next.first == UInt8(ascii: "{") ? .ndjson : .geojson
    }

    // MARK: - CSV

    private func readHeader() throws {
        while true {
            guard let number = try nextLine() else { return }
            guard !pendingTooLong else { return }  // an overlong first line: reported as a row
            let bytes = pending
            if CSVLine.isBlank(bytes) { hasPending = false; continue }
            let text = String(decoding: bytes, as: UTF8.self)
            guard let fields = CSVLine.split(bytes) else {
                throw BatchError.badHeader(path: path, reason: "line \(number) has an unterminated quote")
            }
            let names = fields.map { String(decoding: $0, as: UTF8.self).lowercased() }
            let lat = names.firstIndex { ["lat", "latitude", "y"].contains($0) }
            let lon = names.firstIndex { ["lon", "lng", "long", "longitude", "x"].contains($0) }
            if let lat, let lon {
                (parser.latColumn, parser.lonColumn, parser.columnCount, csvHeader) = (lat, lon, fields.count, text)
                hasPending = false
            } else if fields.count >= 2, TextValues.number(bytes: fields[0]) != nil {
                // No header: lat, lon are the first two columns; this line is the first row.
                csvHeader = (["lat", "lon"] + (2..<fields.count).map { "column\($0 + 1)" }).joined(separator: ",")
            } else {
                throw BatchError.badHeader(path: path, reason: "line \(number) names no lat/lon columns (lat, latitude / lon, lng, longitude) and is not numeric")
            }
            return
        }
    }

    /// Reads the next line into `pending` (or sets `pendingTooLong`) and returns its number; nil at the end.
    private func nextLine() throws -> Int? {
        let number = stream.line
        // Read straight into `pending`: no second buffer to copy from.
        switch try stream.readLine(into: &pending, limit: Self.maxRowBytes) {
        case .end: return nil
        case .line: pendingTooLong = false
        case .tooLong: pendingTooLong = true
        }
        pendingLine = number
        hasPending = true
        return number
    }

    // MARK: - Chunks

    /// Up to `count` rows (blank lines are not rows); nil at the end of the input.
    /// - Throws: `BatchError.notGeoJSON` when a FeatureCollection breaks off; `InputError` when reading fails.
    package func next(_ count: Int) throws -> BatchChunk? {
        if format == .geojson {
            var rows: [BatchRow] = []
            rows.reserveCapacity(min(count, 1 << 16))
            while rows.count < count, let row = try geoJSON({ try nextFeature() }) { rows.append(row) }
            return rows.isEmpty ? nil : BatchChunk(content: .rows(rows), parser: parser, fraction: fraction)
        }
        var bytes: [UInt8] = []
        var lines: [BatchChunk.Line] = []
        lines.reserveCapacity(count)
        while lines.count < count {
            if !hasPending, try nextLine() == nil { break }
            hasPending = false
            guard !pendingTooLong else {
                lines.append(BatchChunk.Line(start: bytes.count, length: -1, number: pendingLine))
                continue
            }
            if CSVLine.isBlank(pending) { continue }
            if format == .csv, parser.columnCount == nil, let fields = CSVLine.split(pending) {
                // The first row that splits fixes the column count of a file without a header.
                // Rows before it in this chunk could not be split, so they never read the count.
                parser.columnCount = fields.count
            }
            lines.append(BatchChunk.Line(start: bytes.count, length: pending.count, number: pendingLine))
            bytes.append(contentsOf: pending)
        }
        return lines.isEmpty ? nil : BatchChunk(content: .lines(bytes: bytes, lines: lines), parser: parser, fraction: fraction)
    }

    // MARK: - GeoJSON

    /// Walks the top-level object up to its `features` array, checking `type` on the way.
    private func beginFeatures() throws {
        try json.beginObject("a GeoJSON FeatureCollection")
        while let key = try json.nextKey() {
            switch key {
            case "features":
                try json.beginArray("the \"features\" array")
                inFeatures = true
                return
            case "type":
                let type = try json.readValue(depth: 1)
                guard type.string == "FeatureCollection" else {
                    throw BatchError.notGeoJSON(path: path, reason: "\"type\" is \(type.string.map(Echo.quoted) ?? type.kind), not \"FeatureCollection\"")
                }
            default:
                try json.skipValue()
            }
        }
        throw BatchError.notGeoJSON(path: path, reason: "no \"features\" array")
    }

    private func nextFeature() throws -> BatchRow? {
        guard !finished else { return nil }
        guard inFeatures, try json.nextElement() else {
            // After the array: the rest of the object is read to check the document is whole.
            while try json.nextKey() != nil { try json.skipValue() }
            try json.expectEnd()
            finished = true
            return nil
        }
        featureIndex += 1
        let feature = try json.readValue(keeping: ["type", "geometry", "properties"])
        let properties = feature["properties"].flatMap { $0.isNull ? nil : $0 }
        guard let geometry = feature["geometry"], geometry["type"]?.string == "Point",
              let position = geometry["coordinates"]?.array, position.count >= 2,
              let lon = position[0].number, let lat = position[1].number else {
            return BatchRow(row: featureIndex, coordinate: parser.failure(featureIndex, "feature is not a Point with numeric coordinates"),
                            kept: .properties(properties))
        }
        return BatchRow(row: featureIndex, coordinate: parser.coordinate(featureIndex, lat, lon), kept: .properties(properties))
    }
}
