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
/// - Times are ISO 8601 date-times, or dates (midnight UTC), inside 1970-01-01 … 2100-01-01.
///   Folders and Documents nest freely; the root must be `<kml>`. Errors name the line.
public final class KMLReader: FixReader {
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

    private struct Track {
        var depth: Int
        var whens: [Date] = []
        var coords: [Point] = []
        var used = 0
    }

    public var untimedPoints: Int { untimed.count }

    public convenience init(path: String, options: TrackReadOptions = TrackReadOptions()) throws {
        self.init(stream: try ByteStream(path: path), options: options)
    }

    package init(stream: ByteStream, options: TrackReadOptions = TrackReadOptions()) {
        path = stream.path
        xml = XMLTokenizer(stream: stream)
        untimed = UntimedPoints(options)
    }

    public func next() throws -> Fix? {
        while true {
            if let fix = pending.pop() { return fix }
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
            for point in done.coords.dropFirst(done.used) { try append(point, at: nil) }
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
            guard parts.count >= 2, let lon = TextValues.number(parts[0]), let lat = TextValues.number(parts[1]) else {
                throw error("<gx:coord>\(Echo.cut(text.trimmingCharacters(in: .whitespacesAndNewlines)))</gx:coord> is not \"lon lat [alt]\"", line)
            }
            track?.coords.append(Point(longitude: lon, latitude: lat, line: line))
            try pairTrack()
        case "coordinates":
            placemark?.geometries.append(try Self.tuples(text, line: line, file: path))
        default:
            let date = try time(text, line: line)
            switch name {
            case "when" where track != nil:
                track?.whens.append(date)
                try pairTrack()
            case "when": placemark?.when = date
            case "begin": placemark?.begin = date
            default: placemark?.end = date
            }
        }
    }

    /// Hands out every `<when>`/`<gx:coord>` pair complete so far.
    private func pairTrack() throws {
        guard var current = track else { return }
        while current.used < min(current.whens.count, current.coords.count) {
            try append(current.coords[current.used], at: current.whens[current.used])
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
        let coordinate = try TrackValues.coordinate(latitude: point.latitude, longitude: point.longitude, file: path, line: point.line)
        pending.append(Fix(coordinate: coordinate, timestamp: time, position: point.line))
    }

    private func time(_ text: String, line: Int) throws -> Date {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let date = trimmed.utf8.count == 10 ? TimeText.iso8601(trimmed + "T00:00:00Z") : TimeText.iso8601(trimmed)
        guard let date else { throw error("time \(Echo.quoted(trimmed)) is not an ISO 8601 date-time or date", line) }
        return try TrackValues.time(date, file: path, line: line)
    }

    /// `lon,lat[,alt]` tuples separated by whitespace, each with the line it stands on.
    static func tuples(_ text: String, line: Int, file: String) throws -> [Point] {
        var points: [Point] = []
        var current = line
        for piece in text.split(separator: "\n", omittingEmptySubsequences: false) {
            for tuple in piece.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }) {
                let parts = tuple.split(separator: ",", omittingEmptySubsequences: false)
                guard parts.count >= 2, parts.count <= 3, let lon = TextValues.number(parts[0]), let lat = TextValues.number(parts[1]) else {
                    throw InputError(file: file, line: current, message: "coordinates \(Echo.quoted(tuple)) are not \"lon,lat[,alt]\"")
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
