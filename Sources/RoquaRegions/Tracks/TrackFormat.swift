import Foundation
import RoquaIO

/// The track file formats Roqua reads.
/// Raw values are stable lower-case names, fit for storing (e.g. in an import log).
public enum TrackFormat: String, Sendable, CaseIterable {
    case gpx
    case csv
    case geoJSON = "geojson"
    /// Classic Google Takeout Location History `Records.json`.
    case googleRecords = "google-records"
    /// On-device Google Maps Timeline export `Timeline.json`.
    case googleTimeline = "google-timeline"

    /// Decides a file's format from its content, with the extension as a tie-breaker:
    /// - first byte `<` → GPX (an XML root other than `<gpx>` is refused unless named `.gpx`);
    /// - `{` → `.geojson` files are GeoJSON; otherwise the top-level keys decide (walked with
    ///   values skipped, so this reads only as far as the first telling key): `locations` →
    ///   Records; `semanticSegments` / `rawSignals` → Timeline; `features`, `geometry` or a
    ///   GeoJSON `type` → GeoJSON;
    /// - `[` → refused (no supported format is a top-level array);
    /// - anything else → CSV when named `.csv`/`.tsv`/`.txt` or when the first line looks like
    ///   CSV (a delimiter plus a numeric first field or a `lat` column).
    /// Unknown or wrong-shaped files throw a `TrackReadError` naming the file.
    public static func detect(path: String) throws -> TrackFormat {
        let ext = (path as NSString).pathExtension.lowercased()
        let stream = try ByteStream(path: path)
        let json = JSONScanner(stream: stream)
        guard let first = try json.peekToken() else { throw TrackReadError(file: path, line: nil, message: "empty file") }
        switch first {
        case UInt8(ascii: "<"):
            if ext == "gpx" { return .gpx }
            return try detectXML(XMLTokenizer(stream: stream), path: path)
        case UInt8(ascii: "{"):
            if ext == "geojson" { return .geoJSON }
            return try detectJSON(json, path: path)
        case UInt8(ascii: "["):
            throw TrackReadError(file: path, line: nil, message: "a top-level JSON array is not a supported track format "
                + "(expected a GeoJSON object, Google Records.json or Timeline.json; the iOS location-history.json array is not supported)")
        default:
            if ["csv", "tsv", "txt"].contains(ext) { return .csv }
            var line: [UInt8] = []
            _ = try stream.readLine(into: &line)
            let text = String(decoding: line, as: UTF8.self)
            let fields = text.split(whereSeparator: { $0 == "," || $0 == ";" || $0 == "\t" })
            if fields.count >= 3, TextValues.number(fields[0]) != nil || text.lowercased().contains("lat") { return .csv }
            throw TrackReadError(file: path, line: nil,
                                 message: "unknown track format (expected GPX, CSV, GeoJSON, Google Records.json or Timeline.json)")
        }
    }

    /// A reader for a file already known to be in this format.
    public func open(path: String) throws -> any FixReader {
        switch self {
        case .gpx: try GPXReader(path: path)
        case .csv: try CSVTrackReader(path: path)
        case .geoJSON: try GeoJSONTrackReader(path: path)
        case .googleRecords: try GoogleRecordsReader(path: path)
        case .googleTimeline: try GoogleTimelineReader(path: path)
        }
    }

    private static func detectXML(_ xml: XMLTokenizer, path: String) throws -> TrackFormat {
        while let event = try xml.next() {
            if case let .start(name, _, _, _) = event {
                if name == "gpx" { return .gpx }
                throw TrackReadError(file: path, line: nil, message: "XML with root element <\(name)> is not a supported track format (only GPX is)")
            }
        }
        throw TrackReadError(file: path, line: nil, message: "XML file without elements")
    }

    private static func detectJSON(_ json: JSONScanner, path: String) throws -> TrackFormat {
        let geoJSONTypes: Set<String> = ["FeatureCollection", "Feature", "Point", "MultiPoint", "LineString", "MultiLineString"]
        var seen: [String] = []
        try json.beginObject("a JSON object")
        while let key = try json.nextKey() {
            switch key {
            case "locations": return .googleRecords
            case "semanticSegments", "rawSignals": return .googleTimeline
            case "features", "geometry": return .geoJSON
            case "type":
                if let type = try json.readValue().string, geoJSONTypes.contains(type) { return .geoJSON }
            case "timelineObjects":
                throw TrackReadError(file: path, line: nil, message: "Semantic Location History (timelineObjects) is not supported: "
                    + "use Records.json or the on-device Timeline.json export")
            default:
                try json.skipValue()
            }
            if seen.count < 6 { seen.append(key) }
        }
        let keys = seen.isEmpty ? "an empty object" : "keys " + seen.map { "\"\($0)\"" }.joined(separator: ", ")
        throw TrackReadError(file: path, line: nil, message: "JSON object with \(keys) is not a known track format "
            + "(expected GeoJSON \"features\", Records.json \"locations\" or Timeline.json \"semanticSegments\"/\"rawSignals\")")
    }
}

/// Opening track files without knowing their format.
public enum TrackReaders {
    /// A reader for `path`, its format detected by `TrackFormat.detect(path:)`.
    public static func open(path: String) throws -> any FixReader {
        try TrackFormat.detect(path: path).open(path: path)
    }
}
