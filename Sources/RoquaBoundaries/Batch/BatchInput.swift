import Foundation
import RoquaIO

/// One input row: its number (line in CSV/NDJSON, feature in GeoJSON), the coordinate or why
/// there is none, and what the output keeps of it.
package struct BatchRow {
    enum Kept { case csvLine(String), properties(JSONValue?), nothing }
    var row: Int
    var coordinate: Result<Coordinate, BatchRowError>
    var kept: Kept
}

/// Reads CSV, NDJSON or a GeoJSON FeatureCollection of points, streaming: memory holds one row
/// (at most `maxRowBytes`; a longer one is a row error) or one feature, never the file.
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
    private var line: [UInt8] = []
    /// A line read but not yet turned into a row (nil bytes: it was too long).
    private var pending: [UInt8]?
    private var pendingLine = 0
    private var hasPending = false
    private var latColumn = 0, lonColumn = 1, columnCount: Int?
    private var featureIndex = 0
    private var inFeatures = false
    private var finished = false

    var fraction: Double? { stream.totalBytes.map { $0 > 0 ? Double(stream.offset) / Double($0) : 1 } }

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
            guard let bytes = pending else { return }  // an overlong first line: reported as a row
            if CSVLine.isBlank(bytes) { hasPending = false; continue }
            let text = String(decoding: bytes, as: UTF8.self)
            guard let fields = CSVLine.split(bytes) else {
                throw BatchError.badHeader(path: path, reason: "line \(number) has an unterminated quote")
            }
            let names = fields.map { String(decoding: $0, as: UTF8.self).lowercased() }
            let lat = names.firstIndex { ["lat", "latitude", "y"].contains($0) }
            let lon = names.firstIndex { ["lon", "lng", "long", "longitude", "x"].contains($0) }
            if let lat, let lon {
                (latColumn, lonColumn, columnCount, csvHeader) = (lat, lon, fields.count, text)
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

    /// Reads the next line into `pending` (nil when it was too long) and returns its number; nil at the end.
    private func nextLine() throws -> Int? {
        let number = stream.line
        switch try stream.readLine(into: &line, limit: Self.maxRowBytes) {
        case .end: return nil
        case .line: pending = line
        case .tooLong: pending = nil
        }
        pendingLine = number
        hasPending = true
        return number
    }

    // MARK: - Rows

    /// Up to `count` rows; empty at the end.
    package func next(_ count: Int) throws -> [BatchRow] {
        var rows: [BatchRow] = []
        rows.reserveCapacity(min(count, 1 << 16))
        if format == .geojson {
            while rows.count < count, let row = try geoJSON({ try nextFeature() }) { rows.append(row) }
            return rows
        }
        while rows.count < count {
            if !hasPending, try nextLine() == nil { break }
            hasPending = false
            let number = pendingLine
            guard let bytes = pending else {
                rows.append(BatchRow(row: number, coordinate: failure(number, "row longer than \(Self.maxRowBytes >> 20) MiB"), kept: .nothing))
                continue
            }
            if CSVLine.isBlank(bytes) { continue }
            rows.append(format == .csv ? csvRow(bytes, number) : ndjsonRow(bytes, number))
        }
        return rows
    }

    private func failure(_ row: Int, _ message: String) -> Result<Coordinate, BatchRowError> {
        .failure(BatchRowError(file: path, row: row, message: message))
    }

    private func coordinate(_ row: Int, lat: String?, lon: String?) -> Result<Coordinate, BatchRowError> {
        guard let lat, let latitude = TextValues.number(lat) else { return failure(row, "latitude \(Echo.quoted(lat ?? "")) is not a number") }
        guard let lon, let longitude = TextValues.number(lon) else { return failure(row, "longitude \(Echo.quoted(lon ?? "")) is not a number") }
        return coordinate(row, latitude, longitude)
    }

    private func coordinate(_ row: Int, _ latitude: Double, _ longitude: Double) -> Result<Coordinate, BatchRowError> {
        do {
            return .success(try Coordinate(latitude: latitude, longitude: longitude).validated())
        } catch {
            return failure(row, error.description)
        }
    }

    private func csvRow(_ bytes: [UInt8], _ row: Int) -> BatchRow {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let fields = CSVLine.split(bytes) else {
            return BatchRow(row: row, coordinate: failure(row, "unterminated quote (a row must fit on one line)"), kept: .csvLine(text))
        }
        let expected = columnCount ?? fields.count
        if columnCount == nil { columnCount = fields.count }
        guard fields.count == expected else {
            return BatchRow(row: row, coordinate: failure(row, "expected \(expected) columns, found \(fields.count)"), kept: .csvLine(text))
        }
        return BatchRow(row: row, coordinate: coordinate(row, lat: String(decoding: fields[latColumn], as: UTF8.self),
                                                         lon: String(decoding: fields[lonColumn], as: UTF8.self)),
                        kept: .csvLine(text))
    }

    private func ndjsonRow(_ bytes: [UInt8], _ row: Int) -> BatchRow {
        let scanner = JSONScanner(stream: ByteStream(bytes: bytes, name: path, line: row))
        let object: JSONValue
        do {
            object = try scanner.readValue()
            try scanner.expectEnd()
        } catch {
            return BatchRow(row: row, coordinate: failure(row, "not a JSON object: \(error.message)"), kept: .nothing)
        }
        guard case .object = object else {
            return BatchRow(row: row, coordinate: failure(row, "not a JSON object but \(object.kind)"), kept: .nothing)
        }
        func value(_ name: String, _ keys: [String]) -> Result<Double, BatchRowError> {
            guard let found = keys.lazy.compactMap({ object[$0] }).first else { return .failure(BatchRowError(file: path, row: row, message: "no \(name)")) }
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
        let result = value("latitude", ["lat", "latitude"]).flatMap { lat in
            value("longitude", ["lon", "lng", "longitude"]).flatMap { lon in coordinate(row, lat, lon) }
        }
        return BatchRow(row: row, coordinate: result, kept: .nothing)
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
            return BatchRow(row: featureIndex, coordinate: failure(featureIndex, "feature is not a Point with numeric coordinates"),
                            kept: .properties(properties))
        }
        return BatchRow(row: featureIndex, coordinate: coordinate(featureIndex, lat, lon), kept: .properties(properties))
    }
}
