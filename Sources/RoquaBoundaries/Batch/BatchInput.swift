import Foundation

/// One input row: its number (line in CSV/NDJSON, feature in GeoJSON), the coordinate or why
/// there is none, and what the output keeps of it.
struct BatchRow {
    enum Kept { case csvLine(String), properties([String: Any]?), nothing }
    var row: Int
    var coordinate: Result<Coordinate, BatchRowError>
    var kept: Kept
}

/// Reads CSV, NDJSON or a GeoJSON FeatureCollection of points; detects which from the content.
final class BatchInput {
    let path: String
    let format: BatchFormat
    private(set) var csvHeader: String?
    private let reader: LineReader
    private var pending: String?
    private var latColumn = 0, lonColumn = 1, columnCount: Int?
    private var features: [[String: Any]] = []
    private var featureIndex = 0

    var fraction: Double? { reader.totalBytes.map { $0 > 0 ? Double(reader.bytesRead) / Double($0) : 1 } }

    init(path: String) throws {
        self.path = path
        reader = try LineReader(path: path)
        var first: String?
        while var line = try reader.next() {
            if reader.lineNumber == 1, line.unicodeScalars.first == "\u{FEFF}" { line.unicodeScalars.removeFirst() }  // UTF-8 BOM
            if !line.trimmingCharacters(in: .whitespaces).isEmpty { first = line; break }
        }
        let trimmed = first?.trimmingCharacters(in: .whitespaces) ?? ""
        if trimmed.hasPrefix("{"), !Self.isStandaloneObject(trimmed) || trimmed.contains("\"FeatureCollection\"") {
            format = .geojson
            var data = Data((trimmed + "\n").utf8)
            data.append(try reader.readAll())
            features = try Self.features(data, path: path)
        } else if trimmed.hasPrefix("{") {
            format = .ndjson
            pending = first
        } else {
            format = .csv
            guard let first else { return }
            try readHeader(first)
        }
    }

    /// JSON true/false arrive as NSNumber 1/0; they are never coordinates.
    private static func isBoolean(_ number: NSNumber) -> Bool {
        type(of: number) == type(of: NSNumber(value: true))
    }

    private static func isStandaloneObject(_ line: String) -> Bool {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any]
    }

    private static func features(_ data: Data, path: String) throws -> [[String: Any]] {
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: data) } catch {
            throw BatchError.notGeoJSON(path: path, reason: "invalid JSON")
        }
        guard let root = object as? [String: Any], root["type"] as? String == "FeatureCollection",
              let features = root["features"] as? [[String: Any]] else {
            throw BatchError.notGeoJSON(path: path, reason: "no \"features\" array")
        }
        return features
    }

    private func readHeader(_ line: String) throws {
        let fields = CSV.split(line)
        let names = fields.map { $0.lowercased().trimmingCharacters(in: .whitespaces) }
        let lat = names.firstIndex { ["lat", "latitude", "y"].contains($0) }
        let lon = names.firstIndex { ["lon", "lng", "long", "longitude", "x"].contains($0) }
        if let lat, let lon {
            (latColumn, lonColumn, columnCount, csvHeader) = (lat, lon, fields.count, line)
        } else if fields.count >= 2, Double(fields[0].trimmingCharacters(in: .whitespaces)) != nil {
            pending = line  // no header: lat, lon are the first two columns
            csvHeader = (["lat", "lon"] + (2..<fields.count).map { "column\($0 + 1)" }).joined(separator: ",")
        } else {
            throw BatchError.badHeader(path: path, reason: "line 1 names no lat/lon columns (lat, latitude / lon, lng, longitude) and is not numeric")
        }
    }

    /// Up to `count` rows; empty at the end.
    func next(_ count: Int) throws -> [BatchRow] {
        var rows: [BatchRow] = []
        rows.reserveCapacity(count)
        if format == .geojson {
            while rows.count < count, featureIndex < features.count {
                rows.append(feature(features[featureIndex], number: featureIndex + 1))
                featureIndex += 1
            }
            return rows
        }
        while rows.count < count {
            let line: String
            if let p = pending { line = p; pending = nil } else if let l = try reader.next() { line = l } else { break }
            if CSV.isBlank(line) { continue }
            rows.append(format == .csv ? csvRow(line) : ndjsonRow(line))
        }
        return rows
    }

    private func failure(_ row: Int, _ message: String) -> Result<Coordinate, BatchRowError> {
        .failure(BatchRowError(file: path, row: row, message: message))
    }

    private func coordinate(_ row: Int, lat: String?, lon: String?) -> Result<Coordinate, BatchRowError> {
        guard let lat, let latitude = Double(CSV.trimmed(lat)) else {
            return failure(row, "latitude '\(lat ?? "")' is not a number")
        }
        guard let lon, let longitude = Double(CSV.trimmed(lon)) else {
            return failure(row, "longitude '\(lon ?? "")' is not a number")
        }
        do {
            return .success(try Coordinate(latitude: latitude, longitude: longitude).validated())
        } catch {
            return failure(row, error.description)
        }
    }

    private func csvRow(_ line: String) -> BatchRow {
        let row = reader.lineNumber
        let fields = CSV.split(line)
        let expected = columnCount ?? fields.count
        if columnCount == nil { columnCount = fields.count }
        guard fields.count == expected else {
            return BatchRow(row: row, coordinate: failure(row, "expected \(expected) columns, found \(fields.count)"), kept: .csvLine(line))
        }
        return BatchRow(row: row, coordinate: coordinate(row, lat: fields[latColumn], lon: fields[lonColumn]), kept: .csvLine(line))
    }

    private func ndjsonRow(_ line: String) -> BatchRow {
        let row = reader.lineNumber
        guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else {
            return BatchRow(row: row, coordinate: failure(row, "not a JSON object"), kept: .nothing)
        }
        func text(_ keys: [String]) -> String? {
            keys.lazy.compactMap { object[$0] }.first.map { value in
                guard let number = value as? NSNumber else { return "\(value)" }
                return Self.isBoolean(number) ? (number.boolValue ? "true" : "false") : number.stringValue
            }
        }
        return BatchRow(row: row, coordinate: coordinate(row, lat: text(["lat", "latitude"]), lon: text(["lon", "lng", "longitude"])),
                        kept: .nothing)
    }

    private func feature(_ feature: [String: Any], number: Int) -> BatchRow {
        let properties = feature["properties"] as? [String: Any]
        guard let geometry = feature["geometry"] as? [String: Any], geometry["type"] as? String == "Point",
              let position = geometry["coordinates"] as? [NSNumber], position.count >= 2,
              !position.contains(where: Self.isBoolean) else {
            return BatchRow(row: number, coordinate: failure(number, "feature is not a Point with coordinates"), kept: .properties(properties))
        }
        return BatchRow(row: number, coordinate: coordinate(number, lat: position[1].stringValue, lon: position[0].stringValue),
                        kept: .properties(properties))
    }
}

enum CSV {
    /// RFC 4180 fields of one line (quoted fields may hold commas and doubled quotes).
    static func split(_ line: String) -> [String] {
        guard line.utf8.contains(UInt8(ascii: "\"")) else {
            return line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        var fields: [String] = [], field = "", quoted = false
        var iterator = line.makeIterator()
        while let ch = iterator.next() {
            if quoted {
                if ch == "\"" {
                    if let next = iterator.next() {
                        if next == "\"" { field.append("\"") } else {
                            quoted = false
                            if next == "," { fields.append(field); field = "" } else { field.append(next) }
                        }
                    } else { quoted = false }
                } else { field.append(ch) }
            } else if ch == "\"" { quoted = true } else if ch == "," { fields.append(field); field = "" } else { field.append(ch) }
        }
        fields.append(field)
        return fields
    }

    static func isBlank(_ line: String) -> Bool {
        line.utf8.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
    }

    /// Without surrounding spaces and tabs (no Foundation on the per-row path).
    static func trimmed(_ text: String) -> Substring {
        var result = Substring(text)
        while let first = result.first, first == " " || first == "\t" { result.removeFirst() }
        while let last = result.last, last == " " || last == "\t" { result.removeLast() }
        return result
    }

    static func quote(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n") })
        else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
