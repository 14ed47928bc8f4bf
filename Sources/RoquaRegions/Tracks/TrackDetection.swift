import Foundation
import RoquaIO

/// How a track file's format is decided: by content first, with the name as a tie-breaker.
///
/// - Binary: a FIT header (`.FIT` at byte 8) → FIT. Other known binary kinds (archives inside
///   archives, bzip2/xz/7z, PDF, images, SQLite) and any data with NUL bytes get an error
///   naming what they are.
/// - `<`: the XML root decides: `<gpx>` GPX, `<kml>` KML, `<TrainingCenterDatabase>` TCX
///   (a `.gpx` name is GPX without looking further).
/// - `{`: a `.geojson` name is GeoJSON; otherwise the top-level keys decide (walked with values
///   skipped, so this reads only as far as the first telling key): `semanticSegments` /
///   `rawSignals` → Timeline; `timelineObjects` → Semantic Location History; `features`,
///   `geometry` or a GeoJSON `type` → GeoJSON; `locations` → its first element decides:
///   `latitudeE7`/`timestampMs`/`timestamp` → Records.json, a GeoJSON Feature → Overland.
/// - `[`: an array of Timeline segments (`startTime`, `visit`, `activity`, `timelinePath`) →
///   the iOS Timeline export.
/// - Text lines `YYYY-MM-DDThh:mm:ssZ<TAB>…` → OwnTracks; CSV when the first line is data
///   (a numeric first field) or a header naming latitude and longitude columns (a Strava
///   `activities.csv` is not a track).
enum TrackDetection {
    enum Result: Equatable {
        case format(TrackFormat)
        /// Readable, but not a track file Roqua knows: why, and what was expected.
        case notATrack(String)
    }

    static let expectedFormats =
        "GPX, KML, TCX, FIT, CSV, GeoJSON, Overland, OwnTracks .rec, Google Records.json, "
        + "Timeline or Semantic Location History"

    static func detect(_ stream: ByteStream, name: String) throws(InputError) -> Result {
        var unused: JSONScanner?
        return try detect(stream, name: name, stoppedIn: &unused)
    }

    /// As `detect(_:name:)`; for a Records.json whose first location was looked at in place,
    /// `records` is the scanner where detection stopped, inside the `locations` array before its
    /// first element: its reader goes on from there, and what came before (other members, which
    /// can be large) is not read twice.
    static func detect(_ stream: ByteStream, name: String, stoppedIn records: inout JSONScanner?) throws(InputError) -> Result {
        var base = name
        if (base as NSString).pathExtension.lowercased() == "gz" { base = (base as NSString).deletingPathExtension }
        let ext = (base as NSString).pathExtension.lowercased()
        let head = try stream.lookahead(64)
        if let binary = binaryKind(head) { return binary }
        let json = JSONScanner(stream: stream)
        guard let first = try json.peekToken() else { return .notATrack("empty file: expected \(expectedFormats)") }
        switch first {
        case UInt8(ascii: "<"):
            if ext == "gpx" { return .format(.gpx) }
            return try xmlRoot(XMLTokenizer(stream: stream))
        case UInt8(ascii: "{"):
            if ext == "geojson" { return .format(.geoJSON) }
            return try jsonObject(json, stoppedIn: &records)
        case UInt8(ascii: "["):
            return try jsonArray(json)
        default:
            var line: [UInt8] = []
            _ = try stream.readLine(into: &line, limit: 4096)
            if isOwnTracksLine(line) { return .format(.ownTracks) }
            if CSVTrackReader.isTrackHeader(line) { return .format(.csv) }
            if ["csv", "tsv", "txt"].contains(ext) {
                return .notATrack("a CSV file whose first line is neither data nor a header naming latitude and longitude columns")
            }
            return .notATrack("unknown track format (expected \(expectedFormats))")
        }
    }

    /// FIT, or a named error for other binary data; nil for text.
    private static func binaryKind(_ head: [UInt8]) -> Result? {
        func starts(_ magic: [UInt8]) -> Bool { head.starts(with: magic) }
        if head.count >= 12, Array(head[8..<12]) == Array(".FIT".utf8) {
            guard head[0] == 12 || head[0] == 14 else {
                return .notATrack("a FIT file with a header of \(head[0]) bytes (expected 12 or 14): corrupt file?")
            }
            return .format(.fit)
        }
        let named: [([UInt8], String)] = [
            (TrackInputs.zipMagic, "a ZIP archive inside another archive or gzip: unpack the outer one first"),
            (TrackSource.gzipMagic, "gzip data inside gzip: decompress the outer layer first"),
            (Array("BZh".utf8), "bzip2-compressed: decompress it first (or recompress with gzip)"),
            ([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00], "xz-compressed: decompress it first (or recompress with gzip)"),
            ([0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C], "a 7-Zip archive: unpack it first (or use .zip)"),
            (Array("%PDF".utf8), "a PDF document, not a track file"),
            ([0x89, 0x50, 0x4E, 0x47], "a PNG image, not a track file"),
            ([0xFF, 0xD8, 0xFF], "a JPEG image, not a track file"),
            (Array("SQLite format 3".utf8), "an SQLite database, not a track file (a region store is restored with `roqua restore`)"),
        ]
        if let (_, message) = named.first(where: { starts($0.0) }) { return .notATrack(message) }
        if head.contains(0) { return .notATrack("binary data of an unknown kind (expected \(expectedFormats))") }
        return nil
    }

    private static func xmlRoot(_ xml: XMLTokenizer) throws(InputError) -> Result {
        while let event = try xml.next() {
            guard case let .start(name, _, _, _) = event else { continue }
            switch name {
            case "gpx": return .format(.gpx)
            case "kml": return .format(.kml)
            case "TrainingCenterDatabase": return .format(.tcx)
            default:
                return .notATrack("XML with root element <\(Echo.cut(name))> is not a supported track format (expected GPX, KML or TCX)")
            }
        }
        return .notATrack("XML file without elements")
    }

    private static func jsonObject(_ json: JSONScanner, stoppedIn records: inout JSONScanner?) throws(InputError) -> Result {
        let geoJSONTypes: Set<String> = ["FeatureCollection", "Feature", "Point", "MultiPoint", "LineString", "MultiLineString"]
        var seen: [String] = []
        try json.beginObject("a JSON object")
        while let key = try json.nextKey() {
            switch key {
            case "semanticSegments", "rawSignals": return .format(.googleTimeline)
            case "timelineObjects": return .format(.googleSemantic)
            case "features", "geometry": return .format(.geoJSON)
            case "locations": return try locations(json, stoppedIn: &records)
            case "type":
                if let type = try json.readValue().string, geoJSONTypes.contains(type) { return .format(.geoJSON) }
            default:
                try json.skipValue()
            }
            if seen.count < 6 { seen.append(key) }
        }
        let keys = seen.isEmpty ? "an empty object" : "keys " + seen.map { Echo.quoted($0) }.joined(separator: ", ")
        return .notATrack(
            "JSON object with \(keys) is not a known track format (expected GeoJSON \"features\", "
                + "Records.json or Overland \"locations\", Timeline \"semanticSegments\"/\"rawSignals\" or Semantic Location History \"timelineObjects\")"
        )
    }

    /// After the key `locations`: Records.json and Overland batches share it; the first element tells.
    private static func locations(_ json: JSONScanner, stoppedIn records: inout JSONScanner?) throws(InputError) -> Result {
        guard try json.peekToken() == UInt8(ascii: "[") else {
            return .notATrack("\"locations\" is not an array (expected Records.json or an Overland batch)")
        }
        try json.beginArray("the \"locations\" array")
        guard try json.nextElement() else { return .format(.googleRecords) }  // empty: read as nothing, reported upstream
        let keys = ["latitudeE7", "longitudeE7", "timestampMs", "timestamp", "type"]
        func decide(_ first: JSONValue) -> Result {
            if first["latitudeE7"] != nil || first["timestampMs"] != nil || first["timestamp"] != nil { return .format(.googleRecords) }
            if first["type"]?.string == "Feature" { return .format(.overland) }
            return .notATrack(
                "a \"locations\" array whose first element (line \(first.line)) is neither a Records.json location "
                    + "(latitudeE7, longitudeE7, timestamp) nor an Overland GeoJSON Feature")
        }
        // Looked at in place when it is plain (declined, so nothing is consumed), read otherwise.
        var decided: Result?
        _ = json.readPlainValue(keeping: keys) { first in
            decided = decide(first)
            return false
        }
        guard let decided else { return decide(try json.readValue(keeping: keys)) }
        if decided == .format(.googleRecords) { records = json }
        return decided
    }

    private static func jsonArray(_ json: JSONScanner) throws(InputError) -> Result {
        let segmentKeys: Set<String> = ["startTime", "endTime", "visit", "activity", "timelinePath", "timelineMemory"]
        try json.beginArray("a JSON array")
        guard try json.nextElement() else { return .notATrack("an empty JSON array: no track in it") }
        guard try json.peekToken() == UInt8(ascii: "{") else {
            return .notATrack(
                "a top-level JSON array whose first element is \(try json.readValue().kind) is not a supported track format "
                    + "(expected the iOS Timeline location-history.json: an array of segments)")
        }
        try json.beginObject("an array element")
        var seen: [String] = []
        while let key = try json.nextKey() {
            if segmentKeys.contains(key) { return .format(.googleTimeline) }
            try json.skipValue()
            if seen.count < 6 { seen.append(key) }
        }
        let keys = seen.isEmpty ? "empty objects" : "objects with keys " + seen.map { Echo.quoted($0) }.joined(separator: ", ")
        return .notATrack(
            "a top-level JSON array of \(keys) is not a supported track format "
                + "(expected the iOS Timeline location-history.json: segments with \"startTime\", \"visit\", \"activity\" or \"timelinePath\")"
        )
    }

    /// `2019-04-06T13:39:27Z<TAB>` at the start of a line: the OwnTracks recorder's layout.
    static func isOwnTracksLine(_ line: [UInt8]) -> Bool {
        guard let tab = line.firstIndex(of: 0x09), tab >= 16, tab <= 40 else { return false }
        return TimeText.iso8601(bytes: line[..<tab]) != nil
    }
}
