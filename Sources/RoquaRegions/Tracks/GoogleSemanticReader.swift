import Foundation
import RoquaBoundaries
import RoquaIO

/// Streams fixes out of a monthly Semantic Location History file of an older Google Takeout
/// (`Semantic Location History/2019/2019_JANUARY.json`), one `timelineObjects` element at a time.
///
/// Rules (fixes in file order):
/// - `placeVisit.location` (`latitudeE7`/`longitudeE7`): one fix at `duration.startTimestamp`
///   and, when later, one at `endTimestamp`; its `childVisits` the same way. A visit whose
///   location has no coordinates is skipped.
/// - `activitySegment.startLocation` at the start, `.endLocation` at the end;
///   `simplifiedRawPath.points` (also under a `placeVisit`) at their own `timestamp` or
///   `timestampMs`, with `accuracyMeters` → `accuracy`.
/// - `activitySegment.waypointPath.waypoints` (`latE7`/`lngE7`) and `transitPath.transitStops`
///   carry no time: skipped and counted (`untimedPoints`), or given the assumed time.
/// - Times are ISO 8601 (`startTimestamp`) or epoch milliseconds (`startTimestampMs`), inside
///   1970-01-01 … 2100-01-01; E7 values past ±90°/±180° from the old unsigned-overflow bug are
///   wrapped back as in Records.json. Anything else malformed is an error naming the line.
public final class GoogleSemanticReader: FixReader {
    /// The file being read, as given (for messages).
    public let path: String
    private var walker: JSONTopLevel
    private var pending = PendingFixes()
    private var untimed: UntimedPoints

    /// Points read so far that carried no time (see `FixReader.untimedPoints`).
    public var untimedPoints: Int { untimed.count }

    /// Opens the Google Semantic Location History file at `path` for reading; nothing but the first chunk is read yet.
    ///
    /// - Throws: `TrackReadError` when the file cannot be opened or read.
    public convenience init(path: String, options: TrackReadOptions = TrackReadOptions()) throws {
        self.init(stream: try ByteStream(path: path), options: options)
    }

    package init(stream: ByteStream, options: TrackReadOptions = TrackReadOptions()) {
        path = stream.path
        walker = JSONTopLevel(
            JSONScanner(stream: stream), streaming: ["timelineObjects"],
            expected: "a Semantic Location History file (a JSON object with \"timelineObjects\")")
        untimed = UntimedPoints(options)
    }

    /// Visits and segments passed over for an impossible value.
    public private(set) var skipped = SkippedRecords()

    /// The next fix in file order, or `nil` at the end of the file.
    ///
    /// - Throws: `TrackReadError` naming the file and the line (or record) of the first malformed
    ///   point, or when the file cannot be read.
    public func next() throws -> Fix? {
        while true {
            if let fix = pending.pop() { return fix }
            switch try walker.next() {
            case .member: try walker.json.skipValue()
            case .element:
                let object = try walker.json.readRecord(keeping: ["placeVisit", "activitySegment"])
                // An object with an impossible value costs itself; broken JSON still stops the file.
                do {
                    if let visit = object["placeVisit"] { try readVisit(visit, depth: 0) }
                    if let segment = object["activitySegment"] { try readSegment(segment) }
                } catch let error as InputError {
                    skipped.skip(error)
                }
            case .end:
                guard walker.seen.contains("timelineObjects") else {
                    throw TrackReadError(
                        file: path, line: nil, message: "not a Semantic Location History file: no \"timelineObjects\" array")
                }
                return nil
            }
        }
    }

    private func readVisit(_ visit: JSONValue, depth: Int) throws {
        let (start, end) = try duration(visit)
        if let location = visit["location"], let point = try coordinate(location, "latitudeE7", "longitudeE7") {
            let accuracy = try metric(location["accuracyMetres"] ?? location["accuracyMeters"], "accuracyMetres")
            pending.append(Fix(coordinate: point, timestamp: start, accuracy: accuracy, position: location.line))
            if end > start { pending.append(Fix(coordinate: point, timestamp: end, accuracy: accuracy, position: location.line)) }
        }
        try readRawPath(visit["simplifiedRawPath"])
        guard depth < 4, let children = visit["childVisits"]?.array else { return }
        for child in children { try readVisit(child, depth: depth + 1) }
    }

    private func readSegment(_ segment: JSONValue) throws {
        let (start, end) = try duration(segment)
        if let location = segment["startLocation"], let point = try coordinate(location, "latitudeE7", "longitudeE7") {
            pending.append(Fix(coordinate: point, timestamp: start, position: location.line))
        }
        try readRawPath(segment["simplifiedRawPath"])
        for (container, list, lat, lng) in [
            ("waypointPath", "waypoints", "latE7", "lngE7"),
            ("transitPath", "transitStops", "latitudeE7", "longitudeE7"),
        ] {
            for point in segment[container]?[list]?.array ?? [] {
                guard let coordinate = try coordinate(point, lat, lng) else { continue }
                if let time = untimed.time() { pending.append(Fix(coordinate: coordinate, timestamp: time, position: point.line)) }
            }
        }
        if let location = segment["endLocation"], let point = try coordinate(location, "latitudeE7", "longitudeE7") {
            pending.append(Fix(coordinate: point, timestamp: end, position: location.line))
        }
    }

    private func readRawPath(_ path: JSONValue?) throws {
        for point in path?["points"]?.array ?? [] {
            guard let coordinate = try coordinate(point, "latE7", "lngE7") else { continue }
            guard let stamp = try time(point, "timestamp") else { throw error("a simplifiedRawPath point has no timestamp", point.line) }
            pending.append(
                Fix(
                    coordinate: coordinate, timestamp: stamp,
                    accuracy: try metric(point["accuracyMeters"], "accuracyMeters"), position: point.line))
        }
    }

    /// `duration.startTimestamp(Ms)` and `endTimestamp(Ms)`; a missing end is the start.
    private func duration(_ object: JSONValue) throws -> (Date, Date) {
        guard let duration = object["duration"] else { throw error("no \"duration\"", object.line) }
        guard let start = try time(duration, "startTimestamp") else { throw error("duration has no startTimestamp", duration.line) }
        return (start, try time(duration, "endTimestamp") ?? start)
    }

    /// `<name>` (ISO 8601) or `<name>Ms` (epoch milliseconds) of `object`, or nil when neither is there.
    private func time(_ object: JSONValue, _ name: String) throws -> Date? {
        if let value = object[name] {
            guard let text = value.string, let date = TimeText.iso8601(text) else {
                throw error("\(name) \(GoogleRecordsReader.show(value)) is not an ISO 8601 date-time", value.line)
            }
            return try TrackValues.time(date, file: path, line: value.line, what: name)
        }
        guard let value = object[name + "Ms"] else { return nil }
        guard let ms = value.number ?? value.string.flatMap({ TextValues.number($0) }) else {
            throw error("\(name)Ms \(GoogleRecordsReader.show(value)) is not a number of milliseconds", value.line)
        }
        return try TrackValues.time(Date(timeIntervalSince1970: ms / 1000), file: path, line: value.line, what: name + "Ms")
    }

    private func coordinate(_ object: JSONValue, _ lat: String, _ lng: String) throws -> Coordinate? {
        guard let latValue = object[lat], let lngValue = object[lng] else { return nil }
        guard let latitude = latValue.number, let longitude = lngValue.number else {
            throw error("\(lat)/\(lng) are not numbers", object.line)
        }
        return try TrackValues.coordinate(
            latitude: GoogleRecordsReader.degrees(e7: latitude, limit: 90),
            longitude: GoogleRecordsReader.degrees(e7: longitude, limit: 180),
            file: path, line: latValue.line)
    }

    private func metric(_ value: JSONValue?, _ name: String) throws -> Double? {
        try TrackValues.metric(value, name, file: path)
    }

    private func error(_ message: String, _ line: Int) -> TrackReadError {
        TrackReadError(file: path, line: line, message: message)
    }
}
