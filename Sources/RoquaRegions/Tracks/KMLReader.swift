import Foundation
import RoquaBoundaries
import RoquaIO

/// Streams fixes out of a KML file (Google Earth, Google Takeout's old location KML, My Maps,
/// GPS loggers); KMZ archives reach it through `TrackInputs` as the `.kml` files inside them.
///
/// Rules (fixes in file order):
/// - `gx:Track`: the n-th `<when>` is the time of the n-th `<gx:coord>` (`lon lat [alt]`);
///   coordinates left without a `<when>` are untimed. `gx:MultiTrack` is its tracks.
/// - A `Placemark`'s `Point`, `LineString` and `LinearRing` coordinates (`lon,lat[,alt]`
///   tuples), also inside `MultiGeometry`, take the Placemark's time: every coordinate at its
///   `TimeStamp/when`; with a `TimeSpan`, the first coordinate at `begin` and the last at `end`
///   (a Point at both, when they differ) and any others untimed. `Polygon`s are areas, not
///   positions, and are skipped.
/// - Untimed coordinates are skipped and counted (`untimedPoints`), or given the assumed time.
/// - Times are ISO 8601 date-times, or dates (midnight UTC), inside 1970-01-01 … 2100-01-01;
///   an empty `<when>` is no time (its coordinate untimed). Folders and Documents nest freely;
///   the root must be `<kml>`. Errors name the line.
/// - One bad value costs one point, never the file (`skipped`): a coordinate that is not
///   numbers or lies off the globe, a `<gx:coord>` that is empty or malformed (its `<when>` is
///   passed over with it, so the pairs after it stay paired), a time that is not a time.
public final class KMLReader: FixReader, WholeOrEvents {
    /// The file being read, as given (for messages).
    public let path: String
    private let xml: XMLTokenizer
    private var untimed: UntimedPoints
    private var pending = PendingFixes()
    private var names: [String] = []
    private var placemark: Placemark?
    private var track: Track?
    private var capture: (name: String, line: Int, depth: Int, text: String)?
    private var polygonDepth: Int?
    private var sawRoot = false
    /// Records passed over for an impossible value.
    public private(set) var skipped = SkippedRecords()

    struct Point {
        var longitude: Double
        var latitude: Double
        var line: Int
    }

    private struct Placemark {
        var depth: Int
        var when: Date?
        var begin: Date?
        var end: Date?
        /// Coordinate lists of its geometries, in order.
        var geometries: [[Point]] = []
    }

    /// A `<when>` of a `gx:Track`: a time, none (empty: the coordinate is untimed) or a bad one
    /// (skipped, and its coordinate with it).
    private enum When {
        case time(Date), none, bad
        var date: Date? { if case let .time(date) = self { date } else { nil } }
    }

    private struct Track {
        var depth: Int
        var whens: [When] = []
        /// nil: a malformed `<gx:coord>`, skipped (it keeps its place so the pairs after it stay paired).
        var coords: [Point?] = []
        var used = 0
    }

    package var readsPlainPointsWhole = true
    package var pointsTakenWhole: Int { whole.total }
    package var lineReached: Int { xml.stream.line }
    private var whole = WholeReading()

    /// Points read so far that carried no time (see `FixReader.untimedPoints`).
    public var untimedPoints: Int { untimed.count }

    /// Opens the KML file at `path` for reading; nothing but the first chunk is read yet.
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
            if let fix = pending.pop() { return fix }
            if readsPlainPointsWhole, track != nil, capture == nil, names.last == "Track", try takePlainTrackElement() { continue }
            guard let event = try xml.next() else {
                guard sawRoot else { throw error("no <kml> element: empty file or not KML", xml.stream.line) }
                return nil
            }
            switch event {
            case let .start(name, _, line, depth): try start(name, line: line, depth: depth)
            case let .text(text):
                capture?.text += text
                if let capture, capture.text.utf8.count > InputLimits.maxRecordBytes {
                    throw error("<\(capture.name)> text is too long", capture.line)
                }
            case let .end(name, _, depth): try end(name, depth: depth)
            }
        }
    }

    private func start(_ name: String, line: Int, depth: Int) throws {
        defer { names.append(name) }
        guard sawRoot else {
            guard name == "kml" else { throw error("not a KML file: the root element is <\(Echo.cut(name))>, not <kml>", line) }
            sawRoot = true
            return
        }
        let parent = names.last
        switch name {
        case "Placemark":
            placemark = Placemark(depth: depth)
        case "Track":
            track = Track(depth: depth)
        case "Polygon":
            if polygonDepth == nil { polygonDepth = depth }
        case "when" where track != nil && parent == "Track",
            "coord" where track != nil && parent == "Track",
            "when" where placemark != nil && parent == "TimeStamp",
            "begin" where placemark != nil && parent == "TimeSpan",
            "end" where placemark != nil && parent == "TimeSpan",
            "coordinates" where placemark != nil && polygonDepth == nil:
            capture = (name, line, depth, "")
            xml.keepText = true
        default:
            break
        }
    }

    private func end(_ name: String, depth: Int) throws {
        names.removeLast()
        if let done = capture, depth == done.depth {
            capture = nil
            xml.keepText = false
            try finish(done.name, done.text, line: done.line)
        }
        if depth == polygonDepth { polygonDepth = nil }
        if let done = track, depth == done.depth {
            track = nil
            for point in done.coords.dropFirst(done.used).compactMap({ $0 }) { try append(point, at: nil) }
        }
        if let done = placemark, depth == done.depth {
            placemark = nil
            try emit(done)
        }
    }

    private func finish(_ name: String, _ text: String, line: Int) throws {
        switch name {
        case "coord":
            let parts = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
            if parts.count >= 2, let lon = TextValues.number(parts[0]), let lat = TextValues.number(parts[1]) {
                track?.coords.append(Point(longitude: lon, latitude: lat, line: line))
            } else {
                skipped.skip(
                    error(
                        "<gx:coord>\(Echo.cut(TextValues.trimmedWhitespace(text)))</gx:coord> is not \"lon lat [alt]\"",
                        line), reason: "invalid coordinate")
                track?.coords.append(nil)
            }
            try pairTrack()
        case "coordinates":
            var skips = skipped
            let points = Self.tuples(text, line: line, file: path, skipped: &skips)
            skipped = skips
            placemark?.geometries.append(points)
        default:
            let when = time(text, line: line)
            switch name {
            case "when" where track != nil:
                track?.whens.append(when)
                try pairTrack()
            case "when": placemark?.when = when.date
            case "begin": placemark?.begin = when.date
            default: placemark?.end = when.date
            }
        }
    }

    /// The next `<when>` or `<gx:coord>` of a `gx:Track` read whole from the bytes buffered now
    /// (`XMLTokenizer.takeElement`) when it is plain and its value good, and paired as the events
    /// would pair it: whether one was. Anything else is left, with nothing consumed, to the
    /// events, which also count what is wrong with it.
    private func takePlainTrackElement() throws -> Bool {
        var taken: (point: Point?, when: When?)
        let took = whole.attempt {
            xml.takeElement(wanted: Self.isTrackChild) { tree in
                guard tree.nodes.count == 1, let text = tree.nodes[0].text else { return false }
                let bytes = tree.slice(text)
                // Vertical tab and form feed: the events' trimming takes them, the byte parsers do not.
                guard !bytes.contains(0x0B), !bytes.contains(0x0C) else { return false }
                if tree.nodes[0].local.count == 5 {  // coord: "lon lat [alt]"
                    guard !bytes.contains(0x0D) else { return false }  // "\r\n" is one Character to the events' split
                    let parts = bytes.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D })
                    guard parts.count >= 2, let lon = TextValues.number(bytes: parts[0]), let lat = TextValues.number(bytes: parts[1])
                    else { return false }
                    taken.point = Point(longitude: lon, latitude: lat, line: tree.line)
                    return true
                }
                let trimmed = TextValues.trimmed(bytes)
                guard !trimmed.isEmpty else {
                    taken.when = When.none  // an empty <when>: its coordinate untimed
                    return true
                }
                guard
                    let date = trimmed.count == 10
                        ? TimeText.iso8601(bytes: trimmed + Array("T00:00:00Z".utf8)) : TimeText.iso8601(bytes: trimmed),
                    let time = try? TrackValues.time(date, file: path, line: tree.line)
                else { return false }
                taken.when = .time(time)
                return true
            }
        }
        guard took else { return false }
        if let when = taken.when { track?.whens.append(when) } else { track?.coords.append(taken.point) }
        try pairTrack()
        return true
    }

    /// `when` or `coord` (`gx:coord`).
    private static func isTrackChild(_ bytes: UnsafeBufferPointer<UInt8>, _ name: Range<Int>) -> Bool {
        (name.count == 4 && memcmp(bytes.baseAddress! + name.lowerBound, "when", 4) == 0)
            || (name.count == 5 && memcmp(bytes.baseAddress! + name.lowerBound, "coord", 5) == 0)
    }

    /// Hands out every `<when>`/`<gx:coord>` pair complete so far.
    private func pairTrack() throws {
        guard var current = track else { return }
        while current.used < min(current.whens.count, current.coords.count) {
            if let point = current.coords[current.used] {
                switch current.whens[current.used] {
                case let .time(date): try append(point, at: date)
                case .none: try append(point, at: nil)
                case .bad: break  // counted when it was read
                }
            }
            current.used += 1
        }
        // What was handed out is dropped, so a long track holds only its unpaired tail.
        if current.used > 1024 {
            current.whens.removeFirst(min(current.used, current.whens.count))
            current.coords.removeFirst(current.used)
            current.used = 0
        }
        track = current
    }

    private func emit(_ placemark: Placemark) throws {
        for points in placemark.geometries {
            for (index, point) in points.enumerated() {
                if let when = placemark.when {
                    try append(point, at: when)
                } else if placemark.begin != nil || placemark.end != nil {
                    let begin = placemark.begin ?? placemark.end, end = placemark.end ?? placemark.begin
                    if points.count == 1 {
                        try append(point, at: begin)
                        if let begin, let end, end > begin { try append(point, at: end) }
                    } else {
                        try append(point, at: index == 0 ? begin : index == points.count - 1 ? end : nil)
                    }
                } else {
                    try append(point, at: nil)
                }
            }
        }
    }

    private func append(_ point: Point, at time: Date?) throws {
        guard let time = time ?? untimed.time() else { return }
        do {
            let coordinate = try TrackValues.coordinate(latitude: point.latitude, longitude: point.longitude, file: path, line: point.line)
            pending.append(Fix(coordinate: coordinate, timestamp: time, position: point.line))
        } catch {
            skipped.skip(error, reason: "invalid coordinate")
        }
    }

    private func time(_ text: String, line: Int) -> When {
        let trimmed = TextValues.trimmedWhitespace(text)
        guard !trimmed.isEmpty else { return .none }
        let date = trimmed.utf8.count == 10 ? TimeText.iso8601(trimmed + "T00:00:00Z") : TimeText.iso8601(trimmed)
        do throws(InputError) {
            guard let date else { throw error("time \(Echo.quoted(trimmed)) is not an ISO 8601 date-time or date", line) }
            return .time(try TrackValues.time(date, file: path, line: line))
        } catch {
            skipped.skip(error, reason: "invalid time")
            return .bad
        }
    }

    /// `lon,lat[,alt]` tuples separated by whitespace, each with the line it stands on; a tuple
    /// that is not one is skipped and counted.
    static func tuples(_ text: String, line: Int, file: String, skipped: inout SkippedRecords) -> [Point] {
        var points: [Point] = []
        var current = line
        for piece in text.split(separator: "\n", omittingEmptySubsequences: false) {
            for tuple in piece.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }) {
                let parts = tuple.split(separator: ",", omittingEmptySubsequences: false)
                guard parts.count >= 2, parts.count <= 3, let lon = TextValues.number(parts[0]), let lat = TextValues.number(parts[1])
                else {
                    skipped.skip(
                        InputError(file: file, line: current, message: "coordinates \(Echo.quoted(tuple)) are not \"lon,lat[,alt]\""),
                        reason: "invalid coordinate")
                    continue
                }
                points.append(Point(longitude: lon, latitude: lat, line: current))
            }
            current += 1
        }
        return points
    }

    private func error(_ message: String, _ line: Int) -> TrackReadError {
        TrackReadError(file: path, line: line, message: message)
    }
}
