import Foundation
import RoquaBoundaries
import RoquaIO

/// Each unit's text as one output format writes it, made once per batch and shared read-only
/// by the workers: `code,name` (CSV-quoted where needed) or `{"code":…,"name":…}`.
final class UnitFragments: @unchecked Sendable {
    // @unchecked: filled in `init`, only read afterwards.
    private let bytes: UnsafeMutablePointer<UInt8>
    private let offsets: UnsafeMutablePointer<Int>

    init(index: ResolverIndex, json: Bool, language: Language) {
        var all: [UInt8] = []
        var starts = [0]
        for id in index.unitIDs {
            let unit = index.reference(id)
            if json {
                // Text only: nothing in a unit's answer can fail to encode.
                all += (try? OrderedJSONEncoder().encode(UnitAnswer(unit, language: language), capacity: 64)) ?? []
            } else {
                all += Array((CSVLine.quote(unit.code) + "," + CSVLine.quote(unit.name(language: language))).utf8)
            }
            starts.append(all.count)
        }
        bytes = .allocate(capacity: max(all.count, 1))
        bytes.initialize(from: all, count: all.count)
        offsets = .allocate(capacity: starts.count)
        offsets.initialize(from: starts, count: starts.count)
    }

    deinit {
        bytes.deallocate()
        offsets.deallocate()
    }

    @inline(__always)
    func append(_ unit: Int32, to out: inout [UInt8]) {
        let start = offsets[Int(unit)], end = offsets[Int(unit) + 1]
        out.append(contentsOf: UnsafeBufferPointer(start: bytes + start, count: end - start))
    }
}

/// Writes answers as bytes in the batch's output format: CSV (the input line kept, result
/// columns appended), NDJSON (the JSON of `Resolution.json`) or GeoJSON features. Every worker
/// has its own; the text is byte for byte what `Resolution.json` (`ResolutionAnswer`) and the CSV
/// columns give. A good row's JSON is written here by hand, into the worker's buffer, from the
/// units' fragments made once (`UnitAnswer`): millions of rows a second, where an encoder per row
/// would cost more than resolving the point; the CLI tests hold every line to `Resolution.json`.
struct BatchFormatter {
    static let resultColumns = "country_code,country,province_code,province,district_code,district,approximate"
    /// Appended after `resultColumns` when the batch asks for localities, so no column moves.
    static let localityColumn = "locality"
    /// The last column when bad rows are kept: empty for an answer, the reason for a bad row.
    static let errorColumn = "error"
    let format: BatchFormat
    let fragments: UnitFragments
    let units: UnitTable
    /// The places to name each answer's locality from; nil when the batch did not ask (the fast
    /// path). Not counted: the `ResolverIndex` the batch runs on keeps them, and every worker
    /// counting references to the one index on every row cost a world batch more than a tenth.
    var localities: Unmanaged<LocalityIndex>? = nil
    /// Bad rows keep their place (`appendBadRow`); every CSV row then ends with the error column.
    var keepBadRows = false

    /// Appends one answer. GeoJSON features each start with `,\n`; the writer drops the first one.
    func append(
        _ placement: Placement, at c: Coordinate, csvLine: UnsafeBufferPointer<UInt8>?, properties: KeptProperties,
        to out: inout [UInt8]
    ) throws {
        var chain: (Int32, Int32, Int32) = (-1, -1, -1)
        var unit = placement.unit?.raw ?? -1
        while unit >= 0 {
            switch units.level[Int(unit)] {
            case 0: chain.0 = unit
            case 1: chain.1 = unit
            default: chain.2 = unit
            }
            unit = units.parent[Int(unit)]
        }
        // First, so that a locality that cannot be read leaves nothing of the row written.
        let place = try locality(c, chain)
        switch format {
        case .csv:
            if let csvLine { Self.appendText(csvLine, to: &out) } else { Self.append("\(c.latitude),\(c.longitude)", to: &out) }
            for level in 0..<3 {
                let member = level == 0 ? chain.0 : (level == 1 ? chain.1 : chain.2)
                out.append(UInt8(ascii: ","))
                if member >= 0 { fragments.append(member, to: &out) } else { out.append(UInt8(ascii: ",")) }
            }
            Self.append(placement.approximate ? ",true" : ",false", to: &out)
            if localities != nil {
                out.append(UInt8(ascii: ","))
                if let place { localities?._withUnsafeGuaranteedRef { Self.appendCSVName(of: place, in: $0, to: &out) } }
            }
            if keepBadRows { out.append(UInt8(ascii: ",")) }
            out.append(0x0A)
        case .ndjson:
            appendJSON(placement, c, chain, place, to: &out)
            out.append(0x0A)
        case .geojson:
            Self.append(
                ",\n{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(c.longitude),\(c.latitude)]},\"properties\":{",
                to: &out)
            properties.appendMembers(to: &out)
            Self.append("\"roqua\":", to: &out)
            appendJSON(placement, c, chain, place, to: &out)
            Self.append("}}", to: &out)
        }
    }

    /// A bad row in its place: the input line (CSV; else `inputColumns` empty fields: a line too
    /// long to keep, or `lat,lon` of a JSON row), every answer column empty and the reason last;
    /// in JSON every answer key `null` and an `"error"`; in GeoJSON a feature without geometry
    /// keeping its properties.
    func appendBadRow(
        _ reason: String, csvLine: UnsafeBufferPointer<UInt8>?, inputColumns: Int, properties: KeptProperties,
        to out: inout [UInt8]
    ) {
        // Text and nulls only: nothing in it can fail to encode.
        let empty =
            (try? OrderedJSONEncoder().encode(FailedRowAnswer(error: reason, withLocality: localities != nil)))
            .map { String(decoding: $0, as: UTF8.self) } ?? ""
        switch format {
        case .csv:
            if let csvLine {
                Self.appendText(csvLine, to: &out)
            } else {
                Self.append(String(repeating: ",", count: max(inputColumns, 2) - 1), to: &out)
            }
            Self.append(String(repeating: ",", count: 7 + (localities != nil ? 1 : 0)) + "," + CSVLine.quote(reason) + "\n", to: &out)
        case .ndjson:
            Self.append(empty + "\n", to: &out)
        case .geojson:
            Self.append(",\n{\"type\":\"Feature\",\"geometry\":null,\"properties\":{", to: &out)
            properties.appendMembers(to: &out)
            Self.append("\"roqua\":" + empty + "}}", to: &out)
        }
    }

    private func appendJSON(
        _ placement: Placement, _ c: Coordinate, _ chain: (Int32, Int32, Int32), _ place: LocalityIndex.Hit?, to out: inout [UInt8]
    ) {
        Self.append("{\"lat\":\(c.latitude),\"lon\":\(c.longitude)", to: &out)
        for level in 0..<3 {
            let member = level == 0 ? chain.0 : (level == 1 ? chain.1 : chain.2)
            Self.append(level == 0 ? ",\"country\":" : (level == 1 ? ",\"province\":" : ",\"district\":"), to: &out)
            if member >= 0 { fragments.append(member, to: &out) } else { Self.append("null", to: &out) }
        }
        Self.append(placement.approximate ? ",\"approximate\":true" : ",\"approximate\":false", to: &out)
        if let meters = placement.distanceMeters { Self.append(",\"distance_m\":\((meters * 10).rounded() / 10)", to: &out) }
        localities?._withUnsafeGuaranteedRef { localities in
            Self.append(",\"locality\":", to: &out)
            // Text and integers only: nothing in it can fail to encode.
            try? OrderedJSONEncoder().encode(place.map { LocalityAnswer(localities.locality($0)) }, appendingTo: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    private func locality(_ c: Coordinate, _ chain: (Int32, Int32, Int32)) throws -> LocalityIndex.Hit? {
        guard let localities, chain.0 >= 0 else { return nil }
        return try localities._withUnsafeGuaranteedRef { try $0.hit(at: c, units: chain) }
    }

    /// A place's name as a CSV field: its bytes as they are unless they need quotes.
    private static func appendCSVName(of place: LocalityIndex.Hit, in localities: LocalityIndex, to out: inout [UInt8]) {
        localities.withName(place) { name in
            if CSVLine.needsQuotes(name) {
                append(CSVLine.quote(String(decoding: name, as: UTF8.self)), to: &out)
            } else {
                out.append(contentsOf: name)
            }
        }
    }

    @inline(__always)
    static func append(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { out.append(contentsOf: $0) }
    }

    /// An input line as text: copied as it is when it is ASCII (nearly always), else decoded as
    /// UTF-8 with invalid bytes replaced, as `String(decoding:)` does everywhere else.
    @inline(__always)
    static func appendText(_ line: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        var ascii = true
        for b in line where b >= 0x80 {
            ascii = false
            break
        }
        if ascii { out.append(contentsOf: line) } else { append(String(decoding: line, as: UTF8.self), to: &out) }
    }
}
