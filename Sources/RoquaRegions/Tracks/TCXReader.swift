import Foundation
import RoquaBoundaries
import RoquaIO

/// Streams fixes out of a Garmin Training Center (TCX) file: activities and courses alike.
///
/// Rules:
/// - Every `Trackpoint` with a `Position` (`LatitudeDegrees`, `LongitudeDegrees`) is a point,
///   at its `Time` (ISO 8601, inside 1970-01-01 … 2100-01-01). Trackpoints without a Position
///   (heart rate or cadence only, indoors) are not places and are passed over; ones with a
///   Position but no Time are skipped and counted (`untimedPoints`), or given the assumed time.
/// - `speed` (m/s) comes from the `Speed` of the Activity Extension (`ns3:TPX`) when present.
/// - `position` is the line of the `Trackpoint` tag. The root must be `<TrainingCenterDatabase>`.
public final class TCXReader: FixReader, WholeOrEvents {
    /// The file being read, as given (for messages).
    public let path: String
    private let xml: XMLTokenizer
    private var untimed: UntimedPoints
    private var sawRoot = false
    private var point: Pending?
    private var capture: (name: String, line: Int, depth: Int, text: String)?

    private struct Pending {
        var line: Int
        var depth: Int
        var time: Date?
        var latitude: Double?
        var longitude: Double?
        var speed: Double?
        /// A value of it was impossible: skipped (counted when found).
        var bad = false
    }

    private static let captured: Set<String> = ["Time", "LatitudeDegrees", "LongitudeDegrees", "Speed"]

    package var readsPlainPointsWhole = true
    package var pointsTakenWhole: Int { whole.total }
    package var lineReached: Int { xml.stream.line }
    private var whole = WholeReading()

    /// Points read so far that carried no time (see `FixReader.untimedPoints`).
    public var untimedPoints: Int { untimed.count }
    /// Trackpoints passed over for an impossible value: one bad point never costs the file.
    public private(set) var skipped = SkippedRecords()

    /// Opens the TCX file at `path` for reading; nothing but the first chunk is read yet.
    ///
    /// - Throws: `TrackReadError` when the file cannot be opened or read.
    public convenience init(path: String, options: TrackReadOptions = TrackReadOptions()) throws {
        self.init(stream: try ByteStream(path: path), options: options)
    }

    package init(stream: ByteStream, options: TrackReadOptions = TrackReadOptions()) {
        path = stream.path
        xml = XMLTokenizer(stream: stream)
        untimed = UntimedPoints(options)
    }

    /// The next fix in file order, or `nil` at the end of the file.
    ///
    /// - Throws: `TrackReadError` naming the file and the line (or record) of the first malformed
    ///   point, or when the file cannot be read.
    public func next() throws -> Fix? {
        while true {
            if readsPlainPointsWhole, point == nil, capture == nil, sawRoot, let plain = takePlainPoint() {
                if let fix = finishPoint(plain) { return fix }
                continue
            }
            guard let event = try xml.next() else { break }
            switch event {
            case let .start(name, _, line, depth):
                guard sawRoot else {
                    guard name == "TrainingCenterDatabase" else {
                        throw error("not a TCX file: the root element is <\(Echo.cut(name))>, not <TrainingCenterDatabase>", line)
                    }
                    sawRoot = true
                    continue
                }
                if name == "Trackpoint" {
                    if let outer = point { throw error("<Trackpoint> inside <Trackpoint> (opened on line \(outer.line))", line) }
                    point = Pending(line: line, depth: depth)
                } else if point != nil, capture == nil, Self.captured.contains(name) {
                    capture = (name, line, depth, "")
                    xml.keepText = true
                }
            case let .text(text):
                capture?.text += text
                if let capture, capture.text.utf8.count > 1024 { throw error("<\(capture.name)> text is too long", capture.line) }
            case let .end(_, _, depth):
                if let done = capture, depth == done.depth {
                    capture = nil
                    xml.keepText = false
                    do {
                        try finish(done.name, done.text, line: done.line)
                    } catch let error as InputError {
                        // An unreadable speed is left out; a bad time or coordinate costs the point.
                        if done.name != "Speed", point?.bad == false {
                            skipped.skip(error, reason: done.name == "Time" ? "invalid time" : "invalid coordinate")
                            point?.bad = true
                        }
                    }
                } else if let done = point, depth == done.depth {
                    point = nil
                    if let fix = finishPoint(done) { return fix }
                }
            }
        }
        guard sawRoot else { throw error("no <TrainingCenterDatabase> element: empty file or not TCX", xml.stream.line) }
        return nil
    }

    /// The next Trackpoint read whole from the bytes buffered now (`XMLTokenizer.takeElement`)
    /// when it is plain and every value in it is good, as the events would have read it; nil,
    /// with nothing consumed, for anything else — the events then read it and say what is wrong.
    private func takePlainPoint() -> Pending? {
        var point: Pending?
        return whole.attempt {
            xml.takeElement(wanted: { $1.count == 10 && memcmp($0.baseAddress! + $1.lowerBound, "Trackpoint", 10) == 0 }) {
                point = plainPoint($0)
                return point != nil
            }
        } ? point : nil
    }

    private func plainPoint(_ tree: XMLSubtree) -> Pending? {
        var point = Pending(line: tree.line, depth: 0)
        for node in tree.nodes.dropFirst() {
            let name = node.local
            guard !tree.equals(name, "Trackpoint") else { return nil }  // a point in a point: an error the events name
            let isTime = tree.equals(name, "Time"), isLatitude = tree.equals(name, "LatitudeDegrees")
            let isLongitude = tree.equals(name, "LongitudeDegrees")
            guard isTime || isLatitude || isLongitude || tree.equals(name, "Speed") else { continue }
            guard let text = node.text, text.count <= 1024 else { return nil }
            let bytes = tree.slice(text)
            // Vertical tab and form feed: `finish` trims them, the byte parsers do not.
            guard !bytes.contains(0x0B), !bytes.contains(0x0C) else { return nil }
            let trimmed = TextValues.trimmed(bytes)
            if isTime {
                guard !trimmed.isEmpty else { continue }  // an empty <Time>: untimed
                guard let date = TimeText.iso8601(bytes: trimmed),
                    let time = try? TrackValues.time(date, file: path, line: tree.line)
                else { return nil }
                point.time = time
            } else if let value = TextValues.number(bytes: trimmed) {
                if isLatitude {
                    point.latitude = value
                } else if isLongitude {
                    point.longitude = value
                } else if let speed = try? TrackValues.metric(value, "Speed", file: path, line: tree.line) {
                    point.speed = speed  // an unreadable speed is left out, as by events
                }
            } else if isLatitude || isLongitude {
                return nil  // not a number: the point is skipped, counted by the events
            }
        }
        // A Position with one of its two numbers, or off the globe: skipped, counted by the events.
        if point.latitude != nil || point.longitude != nil {
            guard let latitude = point.latitude, let longitude = point.longitude,
                (try? TrackValues.coordinate(latitude: latitude, longitude: longitude, file: path, line: tree.line)) != nil
            else { return nil }
        }
        return point
    }

    /// The fix of a Trackpoint read to its end, if it is one; a bad coordinate is skipped and counted.
    private func finishPoint(_ done: Pending) -> Fix? {
        do throws(InputError) {
            return try makeFix(done)
        } catch {
            skipped.skip(error, reason: "invalid coordinate")
            return nil
        }
    }

    private func finish(_ name: String, _ text: String, line: Int) throws {
        let trimmed = TextValues.trimmedWhitespace(text)
        if name == "Time" {
            guard !trimmed.isEmpty else { return }  // an empty <Time>: untimed
            guard let date = TimeText.iso8601(trimmed) else {
                throw error("<Time>\(Echo.cut(trimmed))</Time> is not an ISO 8601 date-time", line)
            }
            point?.time = try TrackValues.time(date, file: path, line: line)
            return
        }
        guard let value = TextValues.number(trimmed) else { throw error("<\(name)>\(Echo.cut(trimmed))</\(name)> is not a number", line) }
        switch name {
        case "LatitudeDegrees": point?.latitude = value
        case "LongitudeDegrees": point?.longitude = value
        default: point?.speed = try TrackValues.metric(value, "Speed", file: path, line: line)
        }
    }

    private func makeFix(_ point: Pending) throws(InputError) -> Fix? {
        guard !point.bad else { return nil }
        guard point.latitude != nil || point.longitude != nil else { return nil }  // no Position: not a place
        guard let latitude = point.latitude, let longitude = point.longitude else {
            throw error("Trackpoint Position needs both LatitudeDegrees and LongitudeDegrees", point.line)
        }
        guard let time = point.time ?? untimed.time() else { return nil }
        let coordinate = try TrackValues.coordinate(latitude: latitude, longitude: longitude, file: path, line: point.line)
        return Fix(coordinate: coordinate, timestamp: time, speed: point.speed, position: point.line)
    }

    private func error(_ message: String, _ line: Int) -> TrackReadError {
        TrackReadError(file: path, line: line, message: message)
    }
}
