import Foundation
import RoquaBoundaries
import RoquaIO

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

    /// The input's size in bytes when it is known (a regular file), nil for a pipe or a gzip stream.
    var totalBytes: Int? { stream.totalBytes }

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
        try Self.geoJSON(path: path, body)
    }

    /// As `geoJSON(_:)`, for the worker that parses a chunk's features.
    static func geoJSON<T>(path: String, _ body: () throws -> T) throws -> T {
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
            if CSVLine.isBlank(bytes) {
                hasPending = false
                continue
            }
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
                throw BatchError.badHeader(
                    path: path, reason: "line \(number) names no lat/lon columns (lat, latitude / lon, lng, longitude) and is not numeric")
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

    /// The next chunk; nil at the end of the input. GeoJSON: up to `count` features, about
    /// `blockBytes` of them, as they are in the file (parsed by the worker). CSV and NDJSON:
    /// whole lines, about `blockBytes` of them, in an array from `pool` when there is one (split
    /// into rows by the worker); until a headerless CSV's column count is known, up to `count`
    /// rows read one by one (blank lines are not rows).
    /// - Throws: `BatchError.notGeoJSON` when a FeatureCollection breaks off; `InputError` when reading fails.
    package func next(_ count: Int, blockBytes: Int = BatchRunner.maximumBlockBytes, pool: BufferPool? = nil) throws -> BatchChunk? {
        if format == .geojson { return try geoJSON { try nextFeatures(count, blockBytes: blockBytes, pool: pool) } }
        if !hasPending, format == .ndjson || parser.columnCount != nil { return try nextBlock(blockBytes, pool: pool) }
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

    /// Whole lines as they are in the file, `target` bytes or a little less: the calling thread
    /// only copies bytes and counts newlines. A line that crosses a refill of the stream's
    /// buffer (or the last one, without a newline) is read on its own; an overlong one is noted.
    private func nextBlock(_ target: Int, pool: BufferPool?) throws -> BatchChunk? {
        var bytes = pool?.take() ?? []
        var tooLong: [Int] = []
        let firstLine = stream.line
        reading: while bytes.count < target {
            guard let lines = try stream.appendLines(to: &bytes, limit: target - bytes.count) else { break }
            guard lines == 0 else { continue }
            let number = stream.line
            switch try stream.appendLine(to: &bytes, limit: Self.maxRowBytes) {
            case .end: break reading
            case .line: continue
            case .tooLong: tooLong.append(number)
            }
        }
        guard !bytes.isEmpty || !tooLong.isEmpty else {
            pool?.give(bytes)
            return nil
        }
        return BatchChunk(content: .block(bytes: bytes, firstLine: firstLine, tooLong: tooLong), parser: parser, fraction: fraction)
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
                    throw BatchError.notGeoJSON(
                        path: path, reason: "\"type\" is \(type.string.map(Echo.quoted) ?? type.kind), not \"FeatureCollection\"")
                }
            default:
                try json.skipValue()
            }
        }
        throw BatchError.notGeoJSON(path: path, reason: "no \"features\" array")
    }

    /// Features as they are in the file: the calling thread only finds where each one ends.
    private func nextFeatures(_ count: Int, blockBytes: Int, pool: BufferPool?) throws -> BatchChunk? {
        var bytes = pool?.take() ?? []
        var features: [BatchChunk.Feature] = []
        while !finished, features.count < count, bytes.count < blockBytes {
            guard inFeatures, try json.nextElement() else {
                // After the array: the rest of the object is read to check the document is whole.
                while try json.nextKey() != nil { try json.skipValue() }
                try json.expectEnd()
                finished = true
                break
            }
            featureIndex += 1
            let line = try json.tokenLine()
            let start = bytes.count
            try json.captureValue(into: &bytes)
            features.append(BatchChunk.Feature(start: start, length: bytes.count - start, number: featureIndex, line: line))
        }
        guard !features.isEmpty else {
            pool?.give(bytes)
            return nil
        }
        return BatchChunk(content: .features(bytes: bytes, features: features), parser: parser, fraction: fraction)
    }
}
