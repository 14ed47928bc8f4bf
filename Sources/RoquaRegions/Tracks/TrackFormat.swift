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
    /// On-device Google Maps Timeline exports: Android's `Timeline.json`, iOS's `location-history.json`.
    case googleTimeline = "google-timeline"
    /// Monthly Semantic Location History files of older Takeouts (`timelineObjects`).
    case googleSemantic = "google-semantic"
    /// Overland's GeoJSON batches (`{"locations": [Feature…]}`).
    case overland
    case kml
    /// Garmin Training Center XML.
    case tcx
    /// Garmin's binary Flexible and Interoperable Data Transfer activity files.
    case fit
    /// OwnTracks recorder `.rec` files (`TIMESTAMP\t*\t{json}` lines).
    case ownTracks = "owntracks"

    /// Decides a file's format from its content (see `TrackDetection`); a `.gz` file is looked
    /// into. Unknown or wrong-shaped files throw a `TrackReadError` naming the file.
    /// - Throws: `TrackReadError` when the file cannot be opened or read, or is no track Roqua reads.
    public static func detect(path: String) throws -> TrackFormat {
        try detect(TrackSource(file: path))
    }

    /// As `detect(path:)`, for any source.
    /// - Throws: `TrackReadError` when the source cannot be opened or read, or is no track Roqua reads.
    public static func detect(_ source: TrackSource) throws -> TrackFormat {
        switch try TrackDetection.detect(try source.open(), name: source.name) {
        case let .format(format): return format
        case let .notATrack(reason): throw TrackReadError(file: source.name, line: nil, message: reason)
        }
    }

    /// A reader for a file already known to be in this format.
    /// - Throws: `TrackReadError` when the file cannot be opened.
    public func open(path: String, options: TrackReadOptions = TrackReadOptions()) throws -> any FixReader {
        try open(TrackSource(file: path), options: options)
    }

    /// A reader for a source already known to be in this format.
    /// - Throws: `TrackReadError` when the source cannot be opened or its gzip or ZIP framing is broken.
    public func open(_ source: TrackSource, options: TrackReadOptions = TrackReadOptions()) throws -> any FixReader {
        try open(source, options: options, continuing: nil)
    }

    /// As `open(_:options:)`; a Records.json goes on where its detection stopped when given the
    /// scanner it stopped in (`TrackDetection.detect(_:name:stoppedIn:)`).
    func open(_ source: TrackSource, options: TrackReadOptions, continuing detected: JSONScanner?) throws -> any FixReader {
        if self == .googleRecords, let detected { return GoogleRecordsReader(continuing: detected) }
        let stream = try source.open()
        return switch self {
        case .gpx: GPXReader(stream: stream, options: options)
        case .csv: CSVTrackReader(stream: stream, options: options)
        case .geoJSON: GeoJSONTrackReader(stream: stream, options: options)
        case .overland: GeoJSONTrackReader(stream: stream, options: options, featureArray: "locations")
        case .googleRecords: GoogleRecordsReader(stream: stream)
        case .googleTimeline: GoogleTimelineReader(stream: stream)
        case .googleSemantic: GoogleSemanticReader(stream: stream, options: options)
        case .kml: KMLReader(stream: stream, options: options)
        case .tcx: TCXReader(stream: stream, options: options)
        case .fit: FITReader(stream: stream, options: options)
        case .ownTracks: OwnTracksReader(stream: stream)
        }
    }
}

/// Opening track files without knowing their format.
public enum TrackReaders {
    /// A reader for `path`, its format detected by `TrackFormat.detect(path:)`.
    /// - Throws: `TrackReadError` when the file cannot be opened or read, or is no track Roqua reads.
    public static func open(path: String, options: TrackReadOptions = TrackReadOptions()) throws -> any FixReader {
        let source = try TrackSource(file: path)
        return try TrackFormat.detect(source).open(source, options: options)
    }
}
