import Foundation
import RoquaBoundaries
import RoquaIO

/// Streams fixes out of a classic Google Takeout `Records.json` (Location History), element by
/// element of its `locations` array; other top-level members are skipped unread.
///
/// Rules for each element of `locations`:
/// - `latitudeE7` / `longitudeE7`: integers, degrees × 10^7. Values past ±90° / ±180° that
///   come from a known signed-overflow bug in old exports (stored as unsigned 32-bit) are
///   wrapped back by subtracting 2^32; anything else out of range is an error. A record with
///   neither field (some exports have activity-only records) is skipped; one without the other
///   is an error.
/// - Time: `timestamp` (ISO 8601) or, in older exports, `timestampMs` (epoch milliseconds, a
///   string or a number). Neither, or one that does not parse, is an error.
/// - `accuracy` (metres) → `accuracy`; `velocity` (m/s) → `speed`.
/// - `position` is the line on which the record's `{` stands (1 for a minified file; error
///   messages also give the record's index).
/// - A top level that is not an object with a `locations` array is an error naming the file.
/// - Times outside 1970-01-01 … 2100-01-01 are errors naming the line.
public final class GoogleRecordsReader: FixReader {
    /// The file being read, as given (for messages).
    public let path: String
    // What every record touches: not checked for overlapping access at run time (the checks
    // were 15 % of the reading thread's time on a 2 M-fix file). Private to a reader that one
    // thread uses, changed only by its own methods.
    @exclusivity(unchecked) private var walker: JSONTopLevel
    @exclusivity(unchecked) private var index = 0

    private static let keys = ["latitudeE7", "longitudeE7", "timestamp", "timestampMs", "accuracy", "velocity"]
    /// The last flat record read (its storage, reused).
    @exclusivity(unchecked) private var flat = FlatRecord(keeping: keys)
    /// Whether records are first tried as flat records (`JSONScanner.readFlatRecord`); off, every
    /// record is read whole. The tests compare the two.
    package var readsFlatRecords = true

    /// Opens the Google Records.json file at `path` for reading; nothing but the first chunk is read yet.
    ///
    /// - Throws: `TrackReadError` when the file cannot be opened or read.
    public convenience init(path: String) throws {
        self.init(stream: try ByteStream(path: path))
    }

    package init(stream: ByteStream) {
        path = stream.path
        walker = JSONTopLevel(JSONScanner(stream: stream), streaming: ["locations"], expected: Self.expected)
    }

    /// Goes on where `TrackDetection` stopped: `json` inside the `locations` array, before its
    /// first element.
    init(continuing json: JSONScanner) {
        path = json.stream.path
        walker = JSONTopLevel(json, resumingIn: "locations", streaming: ["locations"], expected: Self.expected)
    }

    /// The reader an import gets for `path` when its detection stops inside `locations` (see
    /// `TrackDetection.detect(_:name:stoppedIn:)`), else nil. For the fuzzer, which compares it
    /// with a reader of the whole file.
    package static func continuingDetection(path: String) throws -> GoogleRecordsReader? {
        let source = try TrackSource(file: path)
        var detected: JSONScanner?
        guard try TrackDetection.detect(try source.open(), name: source.name, stoppedIn: &detected) == .format(.googleRecords),
            let detected
        else { return nil }
        return GoogleRecordsReader(continuing: detected)
    }

    private static let expected = "a Google Takeout Records.json (a JSON object with a \"locations\" array)"

    /// Records passed over for an impossible value.
    public private(set) var skipped = SkippedRecords()

    /// The next fix in file order, or `nil` at the end of the file.
    ///
    /// - Throws: `TrackReadError` naming the file and the line (or record) of the first malformed
    ///   point, or when the file cannot be read.
    public func next() throws -> Fix? {
        while true {
            switch try walker.next() {
            case .member: try walker.json.skipValue()
            case .element:
                var quick: Quick?
                if readsFlatRecords,
                    walker.json.readFlatRecord(
                        into: &flat,
                        accept: { record in
                            quick = Self.quick(record)
                            return quick != nil
                        })
                {
                    index += 1
                    if case let .fix(fix) = quick { return fix }
                    continue  // activity-only record
                }
                let record = try walker.json.readRecord(keeping: Self.keys)
                index += 1
                // One bad record (an impossible value) costs itself; broken JSON still stops the file.
                do {
                    if let fix = try fix(from: record) { return fix }
                } catch let error as InputError {
                    skipped.skip(error)
                }
            case .end:
                guard walker.seen.contains("locations") else { throw shapeError() }
                return nil
            }
        }
    }

    /// What a flat record gives when every value in it is right.
    private enum Quick {
        case fix(Fix)
        /// A record with no position (activity only).
        case skip
    }

    /// A flat record read the way `fix(from:)` reads a record, when nothing in it is wrong; nil
    /// for anything `fix(from:)` would refuse, which then reads it and names the fault.
    private static func quick(_ record: FlatRecord) -> Quick? {
        if case .absent = record[0], case .absent = record[1] { return .skip }
        guard case let .number(latitudeE7, _) = record[0], case let .number(longitudeE7, _) = record[1],
            let coordinate = try? Coordinate(
                latitude: unwrapE7(latitudeE7, limit: 90) / 1e7, longitude: unwrapE7(longitudeE7, limit: 180) / 1e7
            ).validated()
        else { return nil }
        let date: Date?
        switch (record[2], record[3]) {
        case let (.string(text, _), _): date = TimeText.iso8601(buffer: record.text(text))
        case let (.absent, .number(ms, _)): date = Date(timeIntervalSince1970: ms / 1000)
        case let (.absent, .string(text, _)):
            date = TextValues.number(buffer: TextValues.trimmed(record.text(text))).map { Date(timeIntervalSince1970: $0 / 1000) }
        default: date = nil
        }
        guard let date, TrackValues.isInWindow(date) else { return nil }
        /// A metric: .some(nil) when absent or null, nil when wrong.
        func metric(_ value: FlatRecord.Value) -> Double?? {
            switch value {
            case .absent, .null: .some(nil)
            case let .number(number, _) where number >= 0: .some(number)
            default: nil
            }
        }
        guard let accuracy = metric(record[4]), let speed = metric(record[5]) else { return nil }
        return .fix(Fix(coordinate: coordinate, timestamp: date, accuracy: accuracy, speed: speed, position: record.line))
    }

    private func fix(from record: JSONValue) throws -> Fix? {
        let line = record.line
        func fail(_ message: String, at value: JSONValue? = nil) -> TrackReadError {
            TrackReadError(file: path, line: value?.line ?? line, message: "locations[\(index - 1)]: \(message)")
        }
        guard case .object = record else { throw fail("expected an object, found \(record.kind)") }
        let latE7 = record["latitudeE7"], lonE7 = record["longitudeE7"]
        if latE7 == nil, lonE7 == nil { return nil }  // activity-only record: no position to report
        guard let latE7, let lonE7 else { throw fail("has only one of latitudeE7 / longitudeE7") }
        guard let latitudeE7 = latE7.number else { throw fail("latitudeE7 is \(latE7.kind), not a number", at: latE7) }
        guard let longitudeE7 = lonE7.number else { throw fail("longitudeE7 is \(lonE7.kind), not a number", at: lonE7) }
        let coordinate = try TrackValues.coordinate(
            latitude: Self.unwrapE7(latitudeE7, limit: 90) / 1e7, longitude: Self.unwrapE7(longitudeE7, limit: 180) / 1e7,
            file: path, line: latE7.line)

        let timestamp: Date
        if let value = record["timestamp"] {
            guard let text = value.string, let date = TimeText.iso8601(text) else {
                throw fail("timestamp \(Self.show(value)) is not an ISO 8601 date-time", at: value)
            }
            timestamp = try TrackValues.time(date, file: path, line: value.line, what: "locations[\(index - 1)]: timestamp")
        } else if let value = record["timestampMs"] {
            // Always milliseconds here, whatever the size: that is what the field is.
            guard let ms = value.number ?? value.string.flatMap({ TextValues.number($0) }) else {
                throw fail("timestampMs \(Self.show(value)) is not a number of milliseconds", at: value)
            }
            timestamp = try TrackValues.time(
                Date(timeIntervalSince1970: ms / 1000), file: path, line: value.line,
                what: "locations[\(index - 1)]: timestampMs")
        } else {
            throw fail("has no timestamp or timestampMs")
        }

        func metric(_ key: String) throws -> Double? {
            guard let value = record[key], !value.isNull else { return nil }
            guard let number = value.number, number >= 0 else {
                throw fail("\(key) \(Self.show(value)) is not a non-negative number", at: value)
            }
            return number
        }
        return Fix(
            coordinate: coordinate, timestamp: timestamp, accuracy: try metric("accuracy"),
            speed: try metric("velocity"), position: line)
    }

    /// Old exports stored some E7 values as unsigned 32-bit: past the limit, subtract 2^32.
    static func unwrapE7(_ value: Double, limit: Double) -> Double {
        value > limit * 1e7 ? value - 4_294_967_296 : value
    }

    static func show(_ value: JSONValue) -> String {
        if let s = value.string { return Echo.quoted(s) }
        if let n = value.number { return "\(n)" }
        return value.kind
    }

    private func shapeError() -> TrackReadError {
        TrackReadError(
            file: path, line: nil,
            message: "not a Google Takeout Records.json: expected a JSON object with a \"locations\" array")
    }

    /// Old exports stored some E7 values as unsigned 32-bit: past the limit, subtract 2^32.
    static func degrees(e7 value: Double, limit: Double) -> Double {
        unwrapE7(value, limit: limit) / 1e7
    }
}
