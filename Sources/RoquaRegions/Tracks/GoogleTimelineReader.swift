import Foundation
import RoquaBoundaries
import RoquaIO

/// Streams fixes out of the on-device Google Maps Timeline exports (2024 on), one segment or
/// signal at a time; other members are skipped unread: Android's `Timeline.json` (an object
/// with `semanticSegments` / `rawSignals` arrays) and iOS's `location-history.json` (a
/// top-level array of the same segments, with `geo:` point strings).
///
/// Rules (fixes come out in file order, not sorted by time):
/// - `semanticSegments[].timelinePath[]`: `point` at `time`. (The iOS variant's
///   `durationMinutesOffsetFromStartTime`, minutes after the segment's `startTime`, is accepted
///   instead of `time`.)
/// - `semanticSegments[].visit.topCandidate.placeLocation.latLng`: one fix at the segment's
///   `startTime` and, when different, one at its `endTime`. A visit without a place is skipped.
/// - `semanticSegments[].activity.start.latLng` at `startTime` and `.end.latLng` at `endTime`
///   (departure and arrival points; skipped when absent).
/// - `rawSignals[].position`: `LatLng` (or `latLng`) at `timestamp`, with `accuracyMeters` →
///   `accuracy` and `speedMetersPerSecond` → `speed`. Other raw signals (Wi-Fi scans,
///   activity records) are skipped.
/// - Point strings are `"41.0082°, 28.9784°"` (degree signs optional) or `"geo:41.0082,28.9784"`.
///   Times are ISO 8601 with offsets. A point or time that does not parse, or a path point with
///   no time, is an error naming the line.
/// - `position` is the line of the point string (or of the raw signal).
/// - A top level that is neither an object with `semanticSegments` or `rawSignals` nor an array
///   is an error. Times outside 1970-01-01 … 2100-01-01 are errors naming the line.
public final class GoogleTimelineReader: FixReader {
    /// The file being read, as given (for messages).
    public let path: String
    private var walker: JSONTopLevel
    private var pending = PendingFixes()

    private static let segmentKeys = ["startTime", "endTime", "timelinePath", "visit", "activity"]

    /// Opens the Google Timeline file at `path` for reading; nothing but the first chunk is read yet.
    ///
    /// - Throws: `TrackReadError` when the file cannot be opened or read.
    public convenience init(path: String) throws {
        self.init(stream: try ByteStream(path: path))
    }

    package init(stream: ByteStream) {
        path = stream.path
        walker = JSONTopLevel(
            JSONScanner(stream: stream), streaming: ["semanticSegments", "rawSignals"], topLevelArray: true,
            expected: "a Google Timeline export (a JSON object with \"semanticSegments\" or \"rawSignals\", "
                + "or the iOS array of segments)")
    }

    /// Segments and signals passed over for an impossible value.
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
            // A segment or signal with an impossible value costs itself; broken JSON still stops the file.
            case .element("rawSignals"):
                let signal = try walker.json.readRecord(keeping: ["position"])
                do { try readSignal(signal) } catch let error as InputError { skipped.skip(error) }
            case .element:
                let segment = try walker.json.readRecord(keeping: Self.segmentKeys)
                do { try readSegment(segment) } catch let error as InputError { skipped.skip(error) }
            case .end:
                guard !walker.seen.isEmpty else { throw shapeError() }
                return nil
            }
        }
    }

    private func readSegment(_ segment: JSONValue) throws {
        guard case .object = segment else { throw error("a semantic segment is \(segment.kind), not an object", segment.line) }
        let start = try segment["startTime"].map { try time($0, "startTime") }
        let end = try segment["endTime"].map { try time($0, "endTime") }

        if let path = segment["timelinePath"] {
            guard let points = path.array else { throw error("timelinePath is \(path.kind), not an array", path.line) }
            for entry in points {
                guard let point = entry["point"] else { throw error("timelinePath entry has no \"point\"", entry.line) }
                let timestamp: Date
                if let value = entry["time"] {
                    timestamp = try time(value, "time")
                } else if let offset = entry["durationMinutesOffsetFromStartTime"], let start,
                    let minutes = offset.number ?? offset.string.flatMap({ TextValues.number($0) })
                {
                    timestamp = try TrackValues.time(
                        start.addingTimeInterval(minutes * 60), file: self.path, line: offset.line,
                        what: "startTime + durationMinutesOffsetFromStartTime")
                } else {
                    throw error("timelinePath point has no time", point.line)
                }
                pending.append(try fix(point, at: timestamp))
            }
        }
        if let visit = segment["visit"], let place = visit["topCandidate"]?["placeLocation"] {
            // Android nests the point in `latLng`; the iOS export has the string directly.
            let point = place["latLng"] ?? place
            if point.string != nil {
                try appendStartAndEnd(point, point, start: start, end: end, what: "visit")
            }
        }
        if let activity = segment["activity"] {
            try appendStartAndEnd(
                activity["start"]?["latLng"] ?? activity["start"],
                activity["end"]?["latLng"] ?? activity["end"], start: start, end: end, what: "activity")
        }
    }

    private func appendStartAndEnd(_ first: JSONValue?, _ last: JSONValue?, start: Date?, end: Date?, what: String) throws {
        if let first, first.string != nil {
            guard let start else { throw error("\(what) segment has no startTime", first.line) }
            pending.append(try fix(first, at: start))
        }
        // A visit's start and end are the same place: the end adds a fix only when later.
        if let last, last.string != nil, let end, end != start || first?.string == nil {
            pending.append(try fix(last, at: end))
        }
    }

    private func readSignal(_ signal: JSONValue) throws {
        guard let position = signal["position"] else { return }  // a Wi-Fi scan or activity record
        guard let point = position["LatLng"] ?? position["latLng"] else {
            throw error("rawSignals position has no LatLng", position.line)
        }
        guard let stamp = position["timestamp"] else { throw error("rawSignals position has no timestamp", position.line) }
        var fix = try fix(point, at: try time(stamp, "timestamp"))
        fix.accuracy = try metric(position["accuracyMeters"], "accuracyMeters")
        fix.speed = try metric(position["speedMetersPerSecond"], "speedMetersPerSecond")
        pending.append(fix)
    }

    private func metric(_ value: JSONValue?, _ name: String) throws -> Double? {
        try TrackValues.metric(value, name, file: path)
    }

    private func time(_ value: JSONValue, _ name: String) throws -> Date {
        guard let text = value.string, let date = TimeText.iso8601(text) else {
            throw error("\(name) \(GoogleRecordsReader.show(value)) is not an ISO 8601 date-time", value.line)
        }
        return try TrackValues.time(date, file: path, line: value.line, what: name)
    }

    private func fix(_ point: JSONValue, at timestamp: Date) throws -> Fix {
        guard let text = point.string, let (latitude, longitude) = Self.parsePoint(text) else {
            throw error("point \(GoogleRecordsReader.show(point)) is not \"lat°, lng°\"", point.line)
        }
        let coordinate = try TrackValues.coordinate(latitude: latitude, longitude: longitude, file: path, line: point.line)
        return Fix(coordinate: coordinate, timestamp: timestamp, position: point.line)
    }

    /// `"41.0082°, 28.9784°"`, `"41.0082, 28.9784"` or `"geo:41.0082,28.9784"`.
    static func parsePoint(_ text: String) -> (Double, Double)? {
        // The bytes without degree signs; text with any other non-ASCII character (a Unicode
        // space to trim) takes the general path below.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var afterC2 = false, content = false
        for b in text.utf8 {
            if afterC2 {
                // A degree sign before anything else would hide a `geo:` after it: the general path.
                guard b == 0xB0, content else { return parsePointSlowly(text) }
                afterC2 = false
            } else if b == 0xC2 {
                afterC2 = true
            } else if b >= 0x80 {
                return parsePointSlowly(text)
            } else {
                bytes.append(b)
                content = content || (b != 0x20 && b != 0x09)
            }
        }
        guard !afterC2 else { return parsePointSlowly(text) }
        var body = bytes[...]
        while let first = body.first, first == 0x20 || first == 0x09 { body.removeFirst() }
        while let last = body.last, last == 0x20 || last == 0x09 { body.removeLast() }
        if body.starts(with: Self.geoScheme) { body = body.dropFirst(4) }
        guard let comma = body.firstIndex(of: UInt8(ascii: ",")), !body[(comma + 1)...].contains(UInt8(ascii: ",")),
            let latitude = TextValues.number(bytes: TextValues.trimmed(body[..<comma])),
            let longitude = TextValues.number(bytes: TextValues.trimmed(body[(comma + 1)...]))
        else { return nil }
        return (latitude, longitude)
    }

    private static let geoScheme = Array("geo:".utf8)

    /// `parsePoint` for any text (Foundation's trimming and replacing: ~20× slower).
    static func parsePointSlowly(_ text: String) -> (Double, Double)? {
        var body = Substring(text.trimmingCharacters(in: .whitespaces))
        if body.hasPrefix("geo:") { body = body.dropFirst(4) }
        let parts = body.replacingOccurrences(of: "°", with: "").split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let latitude = TextValues.number(parts[0]), let longitude = TextValues.number(parts[1]) else {
            return nil
        }
        return (latitude, longitude)
    }

    private func error(_ message: String, _ line: Int) -> TrackReadError {
        TrackReadError(file: path, line: line, message: message)
    }

    private func shapeError() -> TrackReadError {
        TrackReadError(
            file: path, line: nil,
            message: "not a Google Timeline export: expected a JSON object with \"semanticSegments\" or \"rawSignals\"")
    }
}
