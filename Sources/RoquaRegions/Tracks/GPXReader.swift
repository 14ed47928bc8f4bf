import Foundation
import RoquaBoundaries
import RoquaIO

/// Streams fixes out of a GPX file (1.1, and 1.0 which differs only in ways ignored here).
///
/// Rules:
/// - Points are `trkpt`, `rtept` and `wpt` elements (any namespace prefix), in file order, with
///   `lat` and `lon` attributes in decimal degrees; bad or out-of-range numbers are errors.
/// - The time is the point's own `<time>` child (ISO 8601, fractional seconds and a `Z` or
///   numeric offset optional; no zone means UTC). A `<time>` elsewhere (metadata, extensions)
///   is not the point's.
/// - A point without `<time>` (a planned route, a saved place, a track whose logger lost the
///   clock for a moment) is skipped and counted (`untimedPoints`), or given
///   `TrackReadOptions.assumedTime`. Times outside 1970-01-01 … 2100-01-01 are errors.
/// - `accuracy` comes from an `<hAcc>` element inside the point's `<extensions>` (Apple
///   Health's export, metres); `<hdop>` is a dilution factor, not metres, and is not used.
///   `speed` (m/s) comes from a `<speed>` child (GPX 1.0) or one inside the extensions (Apple
///   Health, Garmin's TrackPointExtension v2); a value there that is not a non-negative number
///   ("n/a", -1) is left out, the point kept.
/// - Nothing but comments and whitespace may follow `</gpx>`.
/// - `position` is the line of the point's opening tag.
/// - Broken XML (mismatched tags, unclosed elements at the end of the file, a root that is not
///   `<gpx>`) is an error naming the line. A point whose coordinates or time are impossible is
///   skipped and counted (`skipped`); an empty `<time>` is no time.
public final class GPXReader: FixReader, WholeOrEvents {
    /// The file being read, as given (for messages).
    public let path: String
    private let xml: XMLTokenizer
    private var untimed: UntimedPoints
    private var sawRoot = false
    private var point: PendingPoint?
    private var capture: Capture?

    private struct PendingPoint {
        var kind: String
        var latitude: Double
        var longitude: Double
        var line: Int
        var depth: Int
        var time: Date?
        var speed: Double?
        var accuracy: Double?
        /// A value of it was impossible: skipped (counted when found).
        var bad = false
    }

    /// Text being collected for a `<time>` or `<speed>` child of the current point.
    private struct Capture {
        var name: String
        var line: Int
        var depth: Int
        var text = ""
    }

    private static func isPoint(_ name: String) -> Bool { name == "trkpt" || name == "rtept" || name == "wpt" }

    /// Point children read for their text; `time` only as a direct child of the point.
    private static func isCaptured(_ name: String) -> Bool { name == "time" || name == "speed" || name == "hAcc" }

    package var readsPlainPointsWhole = true
    package var pointsTakenWhole: Int { whole.total }
    package var lineReached: Int { xml.stream.line }
    private var whole = WholeReading()

    /// Points read so far that carried no time (see `FixReader.untimedPoints`).
    public var untimedPoints: Int { untimed.count }
    /// Points passed over for an impossible value: one bad point never costs the file.
    public private(set) var skipped = SkippedRecords()

    /// Opens the GPX file at `path` for reading; nothing but the first chunk is read yet.
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
                if let fix = try makeFix(plain) { return fix }
                continue
            }
            guard let event = try xml.next() else { break }
            switch event {
            case let .start(name, attributes, line, depth):
                guard sawRoot else {
                    guard name == "gpx" else { throw error("not a GPX file: the root element is <\(name)>, not <gpx>", line: line) }
                    sawRoot = true
                    continue
                }
                if Self.isPoint(name) {
                    if let outer = point {
                        throw error("<\(name)> inside <\(outer.kind)> (opened on line \(outer.line))", line: line)
                    }
                    point = startPoint(kind: name, attributes: attributes, line: line, depth: depth)
                } else if let point, capture == nil, Self.isCaptured(name),
                    depth == point.depth + 1 || name != "time"
                {
                    capture = Capture(name: name, line: line, depth: depth)
                    xml.keepText = true
                }
            case let .text(text):
                capture?.text += text
                if let capture, capture.text.utf8.count > 1024 {
                    throw error("<\(capture.name)> text is too long", line: capture.line)
                }
            case let .end(_, _, depth):
                if let done = capture, depth == done.depth {
                    capture = nil
                    xml.keepText = false
                    finish(done)
                } else if let done = point, depth == done.depth {
                    point = nil
                    if let fix = try makeFix(done) { return fix }
                }
            }
        }
        if !sawRoot { throw error("no <gpx> element: empty file or not GPX", line: xml.stream.line) }
        return nil
    }

    /// The next point read whole from the bytes buffered now (`XMLTokenizer.takeElement`) when
    /// it is plain and every value in it is good, as the events would have read it; nil, with
    /// nothing consumed, for anything else — the events then read it and report what is wrong.
    private func takePlainPoint() -> PendingPoint? {
        var point: PendingPoint?
        return whole.attempt {
            xml.takeElement(wanted: Self.isPoint) { tree in
                point = plainPoint(tree)
                return point != nil
            }
        } ? point : nil
    }

    private static func isPoint(_ bytes: UnsafeBufferPointer<UInt8>, _ name: Range<Int>) -> Bool {
        switch name.count {
        case 3:
            bytes[name.lowerBound] == UInt8(ascii: "w") && bytes[name.lowerBound + 1] == UInt8(ascii: "p")
                && bytes[name.lowerBound + 2] == UInt8(ascii: "t")
        case 5:
            memcmp(bytes.baseAddress! + name.lowerBound, "trkpt", 5) == 0 || memcmp(bytes.baseAddress! + name.lowerBound, "rtept", 5) == 0
        default: false
        }
    }

    private func plainPoint(_ tree: XMLSubtree) -> PendingPoint? {
        let root = tree.nodes[0]
        guard let lat = tree.attribute("lat", of: root), let lon = tree.attribute("lon", of: root),
            let latitude = TextValues.number(bytes: TextValues.trimmed(tree.slice(lat))),
            let longitude = TextValues.number(bytes: TextValues.trimmed(tree.slice(lon))),
            (try? TrackValues.coordinate(latitude: latitude, longitude: longitude, file: path, line: tree.line)) != nil
        else { return nil }
        let kind = tree.equals(root.local, "trkpt") ? "trkpt" : tree.equals(root.local, "rtept") ? "rtept" : "wpt"
        var point = PendingPoint(kind: kind, latitude: latitude, longitude: longitude, line: tree.line, depth: 0)
        for node in tree.nodes.dropFirst() {
            guard !Self.isPoint(tree.bytes, node.local) else { return nil }  // a point in a point: an error the events name
            let isTime = tree.equals(node.local, "time"), isSpeed = tree.equals(node.local, "speed")
            guard (isTime && node.depth == 1) || isSpeed || tree.equals(node.local, "hAcc") else { continue }
            guard let text = node.text, text.count <= 1024 else { return nil }
            let bytes = tree.slice(text)
            if isTime {
                // Blank (as `TextValues.trimmedWhitespace` sees ASCII): no time, as `finish` takes it.
                guard bytes.contains(where: { $0 != 0x20 && !(0x09...0x0D).contains($0) }) else { continue }
                guard let date = TimeText.iso8601(bytes: bytes),
                    let time = try? TrackValues.time(date, file: path, line: tree.line)
                else { return nil }
                point.time = time
            } else if let value = TextValues.number(bytes: TextValues.trimmed(bytes)), value >= 0 {
                if isSpeed { point.speed = value } else { point.accuracy = value }
            }
        }
        return point
    }

    /// The point being read; one whose coordinates are missing or impossible is marked bad
    /// (skipped and counted, its children still read past).
    private func startPoint(kind: String, attributes: XMLAttributes, line: Int, depth: Int) -> PendingPoint {
        func degrees(_ key: String) throws(InputError) -> Double {
            guard let text = attributes[key] else { throw error("<\(kind)> has no \(key) attribute", line: line) }
            guard let value = TextValues.number(text) else {
                throw error("<\(kind)> \(key)=\(Echo.quoted(text)) is not a number", line: line)
            }
            return value
        }
        do {
            let latitude = try degrees("lat"), longitude = try degrees("lon")
            _ = try TrackValues.coordinate(latitude: latitude, longitude: longitude, file: path, line: line)
            return PendingPoint(kind: kind, latitude: latitude, longitude: longitude, line: line, depth: depth)
        } catch {
            skipped.skip(error, reason: "invalid coordinate")
            return PendingPoint(kind: kind, latitude: 0, longitude: 0, line: line, depth: depth, bad: true)
        }
    }

    private func finish(_ capture: Capture) {
        // Both parsers skip surrounding whitespace themselves; trimming is only for messages.
        let text = capture.text
        switch capture.name {
        case "time":
            let trimmed = TextValues.trimmedWhitespace(text)
            guard !trimmed.isEmpty, point?.bad == false else { return }  // an empty <time>: untimed
            do throws(InputError) {
                guard let date = TimeText.iso8601(text) else {
                    throw error("<time>\(Echo.cut(trimmed))</time> is not an ISO 8601 date-time", line: capture.line)
                }
                point?.time = try TrackValues.time(date, file: path, line: capture.line)
            } catch {
                skipped.skip(error, reason: "invalid time")
                point?.bad = true
            }
        default:
            // An optional value that does not parse ("n/a", -1 for "unknown") is left out: the
            // point is still a timed position, which is what matters.
            guard let value = TextValues.number(text), value >= 0 else { return }
            if capture.name == "speed" { point?.speed = value } else { point?.accuracy = value }
        }
    }

    private func makeFix(_ point: PendingPoint) throws -> Fix? {
        guard !point.bad else { return nil }
        guard let time = point.time ?? untimed.time() else { return nil }  // counted: see the type's rules
        let coordinate = try TrackValues.coordinate(latitude: point.latitude, longitude: point.longitude, file: path, line: point.line)
        return Fix(coordinate: coordinate, timestamp: time, accuracy: point.accuracy, speed: point.speed, position: point.line)
    }

    private func error(_ message: String, line: Int) -> TrackReadError {
        TrackReadError(file: path, line: line, message: message)
    }
}
