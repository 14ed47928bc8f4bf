import RoquaBoundaries
import RoquaIO

/// The input side of `POST /reverse/batch`: bytes in (NDJSON `{"lat":…,"lon":…,"id":…}` or CSV
/// with `lat`/`lon` columns, header optional), one `Row` per non-blank line out, in order.
/// It keeps at most one line (≤ 64 KB) of input, so memory does not grow with the upload.
package struct BatchLines {
    package enum Format: String, Sendable { case ndjson, csv }

    /// What one line asks for: a coordinate (not yet validated) with the client's id, or why the
    /// line cannot be read.
    package enum Row: Equatable, Sendable {
        case point(row: Int, Coordinate, id: RowID?)
        case failure(row: Int, message: String)
    }

    /// A row's `id` as the client sent it, to be sent back: text, or a number (a whole one
    /// without a decimal point).
    package enum RowID: Encodable, Equatable, Sendable {
        case text(String)
        case integer(Int64)
        case number(Double)

        package func encode(to encoder: any Encoder) throws {
            var value = encoder.singleValueContainer()
            switch self {
            case let .text(text): try value.encode(text)
            case let .integer(number): try value.encode(number)
            case let .number(number): try value.encode(number)
            }
        }
    }

    package static let maxLineBytes = 64 * 1024
    package private(set) var format: Format?
    private var pending: [UInt8] = []
    private var row = 0
    private var skippingLongLine = false
    private var columns: (lat: Int, lon: Int)?

    package init(format: Format?) {
        self.format = format
    }

    /// Consumes a chunk; `emit` gets a row for every line the chunk completes.
    package mutating func feed(_ bytes: some Sequence<UInt8>, _ emit: (Row) -> Void) {
        for byte in bytes {
            if byte == 0x0A {
                if skippingLongLine {
                    skippingLongLine = false
                } else if let parsed = line() {
                    emit(parsed)
                }
                pending.removeAll(keepingCapacity: true)
            } else if !skippingLongLine {
                pending.append(byte)
                if pending.count > Self.maxLineBytes {
                    row += 1
                    emit(.failure(row: row, message: "line longer than \(Self.maxLineBytes) bytes"))
                    pending.removeAll(keepingCapacity: true)
                    skippingLongLine = true
                }
            }
        }
    }

    /// The last line, when the input does not end with a line break.
    package mutating func finish(_ emit: (Row) -> Void) {
        if !skippingLongLine, !pending.isEmpty, let parsed = line() { emit(parsed) }
        pending.removeAll()
    }

    private mutating func line() -> Row? {
        row += 1
        if pending.last == 0x0D { pending.removeLast() }
        guard !CSVLine.isBlank(pending) else { return nil }
        if format == nil {
            format = pending.first(where: { $0 != 0x20 && $0 != 0x09 }) == UInt8(ascii: "{") ? .ndjson : .csv
        }
        switch format {
        case .ndjson: return ndjson()
        default: return csv()
        }
    }

    private func ndjson() -> Row {
        let value: JSONValue
        do {
            let scanner = JSONScanner(stream: ByteStream(bytes: pending, name: "batch", line: row))
            value = try scanner.readValue(keeping: ["lat", "lon", "latitude", "longitude", "lng", "id"])
            try scanner.expectEnd()
        } catch {
            return .failure(row: row, message: "not a JSON object: \(error.message)")
        }
        guard case .object = value else { return .failure(row: row, message: "expected a JSON object with lat and lon") }
        guard let lat = (value["lat"] ?? value["latitude"])?.number, let lon = (value["lon"] ?? value["lng"] ?? value["longitude"])?.number
        else {
            return .failure(row: row, message: "lat and lon must be numbers")
        }
        var id: RowID?
        switch value["id"] {
        case let .string(text, _)?: id = .text(text)
        case let .number(number, _)?: id = number == number.rounded() && abs(number) < 1e15 ? .integer(Int64(number)) : .number(number)
        default: id = nil
        }
        return .point(row: row, Coordinate(latitude: lat, longitude: lon), id: id)
    }

    private mutating func csv() -> Row? {
        guard let fields = CSVLine.split(pending) else { return .failure(row: row, message: "a quoted field is not closed on this line") }
        if columns == nil {
            let names = fields.map { String(decoding: $0, as: UTF8.self).lowercased() }
            if let lat = names.firstIndex(where: { $0 == "lat" || $0 == "latitude" }),
                let lon = names.firstIndex(where: { $0 == "lon" || $0 == "lng" || $0 == "longitude" })
            {
                columns = (lat, lon)
                return nil  // a header
            }
            columns = (0, 1)
        }
        guard let (latColumn, lonColumn) = columns, fields.count > max(latColumn, lonColumn) else {
            return .failure(row: row, message: "expected lat and lon columns")
        }
        guard let lat = TextValues.number(bytes: fields[latColumn]) else {
            return .failure(row: row, message: "latitude \(Echo.quoted(bytes: fields[latColumn])) is not a number")
        }
        guard let lon = TextValues.number(bytes: fields[lonColumn]) else {
            return .failure(row: row, message: "longitude \(Echo.quoted(bytes: fields[lonColumn])) is not a number")
        }
        return .point(row: row, Coordinate(latitude: lat, longitude: lon), id: nil)
    }
}
