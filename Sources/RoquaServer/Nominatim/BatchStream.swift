import Foundation
import RoquaBoundaries
import RoquaIO

/// The row-by-row engine of `POST /reverse/batch`: bytes in (NDJSON `{"lat":…,"lon":…,"id":…}`
/// or CSV with `lat`/`lon` columns, header optional), one NDJSON answer per row out, in order.
/// It keeps at most one line (≤ 64 KB) of input, so memory does not grow with the upload.
struct BatchStream {
    enum Format: String { case ndjson, csv }

    static let maxLineBytes = 64 * 1024
    let resolvers: ResolverPool
    let language: Language
    private(set) var format: Format?
    private var pending: [UInt8] = []
    private var row = 0
    private var skippingLongLine = false
    private var columns: (lat: Int, lon: Int)?
    private(set) var rows = 0
    private(set) var failed = 0

    init(resolvers: ResolverPool, language: Language, format: Format?) {
        self.resolvers = resolvers
        self.language = language
        self.format = format
    }

    /// Consumes a chunk; complete lines are answered into `output`.
    mutating func feed(_ bytes: some Sequence<UInt8>, into output: inout String) {
        for byte in bytes {
            if byte == 0x0A {
                if skippingLongLine {
                    skippingLongLine = false
                } else {
                    line(into: &output)
                }
                pending.removeAll(keepingCapacity: true)
            } else if !skippingLongLine {
                pending.append(byte)
                if pending.count > Self.maxLineBytes {
                    row += 1
                    fail("line longer than \(Self.maxLineBytes) bytes", into: &output)
                    pending.removeAll(keepingCapacity: true)
                    skippingLongLine = true
                }
            }
        }
    }

    /// The last line, when the input does not end with a line break.
    mutating func finish(into output: inout String) {
        if !skippingLongLine, !pending.isEmpty { line(into: &output) }
        pending.removeAll()
    }

    private mutating func line(into output: inout String) {
        row += 1
        if pending.last == 0x0D { pending.removeLast() }
        guard !CSVLine.isBlank(pending) else { return }
        if format == nil {
            format = pending.first(where: { $0 != 0x20 && $0 != 0x09 }) == UInt8(ascii: "{") ? .ndjson : .csv
        }
        switch format {
        case .ndjson: ndjson(into: &output)
        default: csv(into: &output)
        }
    }

    private mutating func ndjson(into output: inout String) {
        let value: JSONValue
        do {
            let scanner = JSONScanner(stream: ByteStream(bytes: pending, name: "batch", line: row))
            value = try scanner.readValue(keeping: ["lat", "lon", "latitude", "longitude", "lng", "id"])
            try scanner.expectEnd()
        } catch {
            return fail("not a JSON object: \(error.message)", into: &output)
        }
        guard case .object = value else { return fail("expected a JSON object with lat and lon", into: &output) }
        guard let lat = (value["lat"] ?? value["latitude"])?.number, let lon = (value["lon"] ?? value["lng"] ?? value["longitude"])?.number else {
            return fail("lat and lon must be numbers", into: &output)
        }
        var id: String?
        switch value["id"] {
        case let .string(text, _)?: id = JSONText.quote(text)
        case let .number(number, _)?: id = number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : "\(number)"
        default: id = nil
        }
        answer(Coordinate(latitude: lat, longitude: lon), id: id, into: &output)
    }

    private mutating func csv(into output: inout String) {
        guard let fields = CSVLine.split(pending) else { return fail("a quoted field is not closed on this line", into: &output) }
        if columns == nil {
            let names = fields.map { String(decoding: $0, as: UTF8.self).lowercased() }
            if let lat = names.firstIndex(where: { $0 == "lat" || $0 == "latitude" }),
               let lon = names.firstIndex(where: { $0 == "lon" || $0 == "lng" || $0 == "longitude" }) {
                columns = (lat, lon)
                return  // a header
            }
            columns = (0, 1)
        }
        guard let (latColumn, lonColumn) = columns, fields.count > max(latColumn, lonColumn) else {
            return fail("expected lat and lon columns", into: &output)
        }
        guard let lat = TextValues.number(bytes: fields[latColumn]) else {
            return fail("latitude \(Echo.quoted(bytes: fields[latColumn])) is not a number", into: &output)
        }
        guard let lon = TextValues.number(bytes: fields[lonColumn]) else {
            return fail("longitude \(Echo.quoted(bytes: fields[lonColumn])) is not a number", into: &output)
        }
        answer(Coordinate(latitude: lat, longitude: lon), id: nil, into: &output)
    }

    private mutating func answer(_ coordinate: Coordinate, id: String?, into output: inout String) {
        do {
            let resolution = try resolvers.resolve(coordinate)
            rows += 1
            output += "{\"row\":\(row)" + (id.map { ",\"id\":" + $0 } ?? "") + "," + resolution.json(language: language).dropFirst() + "\n"
        } catch let error as ResolveError {
            fail(error.description, into: &output)
        } catch {
            fail("resolver failed: \(type(of: error))", into: &output)
        }
    }

    private mutating func fail(_ message: String, into output: inout String) {
        rows += 1
        failed += 1
        output += "{\"row\":\(row),\"error\":\(JSONText.quote(message))}\n"
    }
}
