import Foundation
import RoquaBoundaries
import RoquaIO

/// Streams fixes out of an OwnTracks recorder file (`.rec`: one `TIMESTAMP<TAB>TOPIC<TAB>{json}`
/// line per message).
///
/// Rules:
/// - Messages whose `_type` is `location` are points at `lat`/`lon`, at `tst` (epoch seconds)
///   or, without it, the line's leading ISO 8601 time; `acc` (m) → `accuracy`, `vel` (km/h) →
///   `speed` in m/s. Other messages (`lwt`, `transition`, `waypoint`, `card`, …) are passed over.
/// - Blank lines are skipped; a line without the three tab-separated parts, or with JSON or
///   values that do not parse, is an error naming the line. Times lie inside 1970 … 2100.
public final class OwnTracksReader: FixReader {
    /// The file being read, as given (for messages).
    public let path: String
    private let stream: ByteStream
    private var line: [UInt8] = []
    private var lineNumber = 0

    /// Opens the OwnTracks .rec file at `path` for reading; nothing but the first chunk is read yet.
    ///
    /// - Throws: `TrackReadError` when the file cannot be opened or read.
    public convenience init(path: String) throws {
        self.init(stream: try ByteStream(path: path))
    }

    package init(stream: ByteStream) {
        path = stream.path
        self.stream = stream
    }

    /// The next fix in file order, or `nil` at the end of the file.
    ///
    /// - Throws: `TrackReadError` naming the file and the line (or record) of the first malformed
    ///   point, or when the file cannot be read.
    public func next() throws -> Fix? {
        while try stream.readLine(into: &line) {
            lineNumber += 1
            guard !CSVLine.isBlank(line) else { continue }
            do {
                if let fix = try record() { return fix }
            } catch let error as InputError {
                // One bad line costs itself (see `skipped`).
                skipped.skip(error)
            }
        }
        return nil
    }

    /// Lines passed over for an impossible value or a malformed record.
    public private(set) var skipped = SkippedRecords()

    /// The current line's fix; nil for a message that is no location.
    private func record() throws -> Fix? {
        guard let firstTab = line.firstIndex(of: 0x09),
            let secondTab = line[(firstTab + 1)...].firstIndex(of: 0x09)
        else {
            throw error("expected TIME<TAB>TOPIC<TAB>{json}")
        }
        let payload = line[(secondTab + 1)...]
        let json = JSONScanner(stream: ByteStream(bytes: payload, name: path, line: lineNumber))
        let message = try json.readRecord(keeping: ["_type", "lat", "lon", "tst", "acc", "vel"])
        try json.expectEnd()
        guard message["_type"]?.string == "location" else { return nil }
        guard let latitude = message["lat"]?.number, let longitude = message["lon"]?.number else {
            throw error("a location without numeric lat and lon")
        }
        let time: Date
        if let tst = message["tst"] {
            guard let seconds = tst.number else { throw error("tst \(GoogleRecordsReader.show(tst)) is not a number") }
            time = Date(timeIntervalSince1970: seconds)
        } else {
            guard let stamp = TimeText.iso8601(bytes: line[..<firstTab]) else { throw error("the line's time is not ISO 8601") }
            time = stamp
        }
        let coordinate = try TrackValues.coordinate(latitude: latitude, longitude: longitude, file: path, line: lineNumber)
        return Fix(
            coordinate: coordinate, timestamp: try TrackValues.time(time, file: path, line: lineNumber),
            accuracy: try TrackValues.metric(message["acc"]?.number, "acc", file: path, line: lineNumber),
            speed: try TrackValues.metric(message["vel"]?.number.map { $0 / 3.6 }, "vel", file: path, line: lineNumber),
            position: lineNumber)
    }

    private func error(_ message: String) -> TrackReadError {
        TrackReadError(file: path, line: lineNumber, message: message)
    }
}
