import Foundation
import RoquaBoundaries
import RoquaIO

/// Streams fixes out of a delimited text file, one per line.
///
/// Rules:
/// - The delimiter is `,`, or `;` / tab when the first non-blank line has one of those and no
///   comma. Fields may be double-quoted (`""` inside quotes is a quote); a record must fit on
///   one line. Blank lines are skipped; `\r\n` endings and a UTF-8 BOM are fine.
/// - A header is recognised when the first non-blank line names a latitude and a longitude
///   column (case, spaces, `_` and `-` ignored): latitude `lat`/`latitude`; longitude
///   `lon`/`lng`/`long`/`longitude`; time `time`/`timestamp`/`date`/`datetime`/`utc`/`time_utc`;
///   optional accuracy `accuracy`/`acc`/`horizontal_accuracy`/`hacc`; optional speed `speed`.
///   The column order then comes from the header and other columns are ignored.
///   Without a header (first field numeric) the order is `lat,lon,timestamp[,accuracy]`.
/// - Timestamps are ISO 8601 (see `TrackTime`) or Unix epoch seconds, read as milliseconds when
///   above 1e11. Accuracy is metres, speed m/s; an empty optional field means none.
/// - A row whose time field is empty or missing (or every row, when the header names no time
///   column) is untimed: skipped and counted, or given `TrackReadOptions.assumedTime`. Times
///   outside 1970-01-01 … 2100-01-01 are errors.
/// - A bad row (a value that is not a number, a coordinate off the globe, a time that is not one,
///   too few fields, an unterminated quote) is skipped and counted with its line (`skipped`):
///   one glitch costs one row, never the file. A first line that is neither data nor a header
///   refuses the file.
/// - `position` is the 1-based line number.
public final class CSVTrackReader: FixReader {
    /// The file being read, as given (for messages).
    public let path: String
    private let stream: ByteStream
    private var untimed: UntimedPoints
    private var line: [UInt8] = []
    /// The current line's fields: their bytes (the line itself, or its fields unquoted when it
    /// has a quote) and each field's range in them, trimmed. Kept from line to line: a line read
    /// allocates nothing.
    private var fieldBytes: [UInt8] = []
    private var fields: [Range<Int>] = []
    private var quoted = false
    private var lineNumber = 0
    private var columns: Columns?
    private var delimiter = UInt8(ascii: ",")

    struct Columns: Equatable {
        /// `time` is -1 when the header names no time column.
        var latitude = 0, longitude = 1, time = 2
        var accuracy: Int? = 3
        var speed: Int?
    }

    /// Points read so far that carried no time (see `FixReader.untimedPoints`).
    public var untimedPoints: Int { untimed.count }

    /// Opens the CSV file at `path` for reading; nothing but the first chunk is read yet.
    ///
    /// - Throws: `TrackReadError` when the file cannot be opened or read.
    public convenience init(path: String, options: TrackReadOptions = TrackReadOptions()) throws {
        self.init(stream: try ByteStream(path: path), options: options)
    }

    package init(stream: ByteStream, options: TrackReadOptions = TrackReadOptions()) {
        path = stream.path
        self.stream = stream
        untimed = UntimedPoints(options)
    }

    /// The next fix in file order, or `nil` at the end of the file.
    ///
    /// - Throws: `TrackReadError` naming the file and the line (or record) of the first malformed
    ///   point, or when the file cannot be read.
    public func next() throws -> Fix? {
        while try stream.readLine(into: &line) {
            lineNumber += 1
            guard line.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { continue }
            if columns == nil, try readHeader() { continue }
            do {
                try split()
                if let fix = try fix() { return fix }
            } catch let error as InputError {
                skipped.skip(error)
            }
        }
        return nil
    }

    /// Records passed over for an impossible value.
    public private(set) var skipped = SkippedRecords()

    /// Decides the delimiter and the column layout from the first non-blank line; true when
    /// that line is a header (false: it is data in the default order).
    private func readHeader() throws -> Bool {
        if !line.contains(UInt8(ascii: ",")) {
            if line.contains(UInt8(ascii: ";")) { delimiter = UInt8(ascii: ";") } else if line.contains(0x09) { delimiter = 0x09 }
        }
        try split()
        if let first = fields.first, TextValues.number(bytes: field(first)) != nil {
            columns = Columns()
            return false
        }
        var found = Columns(latitude: -1, longitude: -1, time: -1, accuracy: nil, speed: nil)
        for (index, raw) in fields.enumerated() {
            switch Self.columnName(Self.text(field(raw))) {
            case "lat", "latitude": found.latitude = index
            case "lon", "lng", "long", "longitude": found.longitude = index
            case "time", "timestamp", "date", "datetime", "utc", "timeutc": found.time = index
            case "accuracy", "acc", "horizontalaccuracy", "hacc": found.accuracy = index
            case "speed": found.speed = index
            default: break
            }
        }
        guard found.latitude >= 0, found.longitude >= 0 else {
            throw error("the first line is neither data nor a header naming latitude and longitude columns")
        }
        columns = found  // without a time column every row is untimed: skipped, or given the assumed time
        return true
    }

    /// The bytes of a field of the current line.
    private func field(_ range: Range<Int>) -> ArraySlice<UInt8> { (quoted ? fieldBytes : line)[range] }

    private func fix() throws -> Fix? {
        guard let columns else { throw error("internal: no column layout") }
        let needed = max(columns.latitude, columns.longitude) + 1
        guard fields.count >= needed else {
            throw error("expected at least \(needed) fields, found \(fields.count)")
        }
        // Every value is read from the line in place, the line and its fields taken once (a
        // property read is checked for exclusive access, and each copy or slice of an array
        // retains it); then they are judged in the order the messages are given.
        let read = (quoted ? fieldBytes : line).withUnsafeBufferPointer { bytes in
            fields.withUnsafeBufferPointer { fields in
                func text(_ index: Int) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[fields[index]]) }
                func given(_ index: Int?) -> Int? { index.flatMap { $0 < fields.count && !fields[$0].isEmpty ? $0 : nil } }
                return CSVRowValues(
                    latitude: TextValues.number(buffer: text(columns.latitude)),
                    longitude: TextValues.number(buffer: text(columns.longitude)),
                    time: given(columns.time < 0 ? nil : columns.time).map { TimeText.parse(buffer: text($0)) },
                    accuracy: given(columns.accuracy).map { TextValues.number(buffer: text($0)) },
                    speed: given(columns.speed).map { TextValues.number(buffer: text($0)) })
            }
        }
        func notANumber(_ index: Int, _ what: String) -> InputError {
            error("\(what) \(Echo.quoted(bytes: (quoted ? fieldBytes : line)[fields[index]])) is not a number")
        }
        func metric(_ value: Double??, _ index: Int?, _ what: String) throws -> Double? {
            guard let value, let index else { return nil }
            guard let value else { throw notANumber(index, what) }
            guard value >= 0 else { throw error("\(what) \(value) is negative") }
            return value
        }
        guard let latitude = read.latitude else { throw notANumber(columns.latitude, "latitude") }
        guard let longitude = read.longitude else { throw notANumber(columns.longitude, "longitude") }
        let coordinate = try TrackValues.coordinate(latitude: latitude, longitude: longitude, file: path, line: lineNumber)
        let timestamp: Date
        switch read.time {
        case nil:
            guard let assumed = untimed.time() else { return nil }
            timestamp = assumed
        case .some(nil):
            let text = (quoted ? fieldBytes : line)[fields[columns.time]]
            throw error("timestamp \(Echo.quoted(bytes: text)) is neither ISO 8601 nor Unix epoch seconds/milliseconds")
        case let .some(.some(parsed)): timestamp = try TrackValues.time(parsed, file: path, line: lineNumber, what: "timestamp")
        }
        return Fix(
            coordinate: coordinate, timestamp: timestamp, accuracy: try metric(read.accuracy, columns.accuracy, "accuracy"),
            speed: try metric(read.speed, columns.speed, "speed"), position: lineNumber)
    }

    /// Cuts the current line into `fields`: in place when it has no quote (nearly every line of
    /// a track), else through `CSVLine.split`, unquoted into `fieldBytes`.
    private func split() throws {
        var fields = self.fields  // the only reference once emptied here: appended to in place
        self.fields = []
        defer { self.fields = fields }
        fields.removeAll(keepingCapacity: true)
        quoted = line.contains(UInt8(ascii: "\""))
        guard quoted else {
            line.withUnsafeBufferPointer { bytes in
                var start = 0
                for i in 0...bytes.count where i == bytes.count || bytes[i] == delimiter {
                    var (low, high) = (start, i)
                    while low < high, Self.isSpace(bytes[low]) { low += 1 }
                    while high > low, Self.isSpace(bytes[high - 1]) { high -= 1 }
                    fields.append(low..<high)
                    start = i + 1
                }
            }
            return
        }
        guard let split = CSVLine.split(line, delimiter: delimiter) else {
            throw error("unterminated quoted field (records must fit on one line)")
        }
        fieldBytes.removeAll(keepingCapacity: true)
        for field in split {
            fields.append(fieldBytes.count..<fieldBytes.count + field.count)
            fieldBytes.append(contentsOf: field)
        }
    }

    /// What `TextValues.trimmed` trims.
    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// A header field as compared: lower case, without spaces, `_` and `-`.
    static func columnName(_ field: String) -> String {
        String(field.lowercased().unicodeScalars.filter { !" _-".unicodeScalars.contains($0) })
    }

    /// Whether a first line is CSV this reader takes: data (a numeric first field) or a header
    /// naming latitude and longitude columns.
    static func isTrackHeader(_ line: [UInt8]) -> Bool {
        var delimiter = UInt8(ascii: ",")
        if !line.contains(delimiter) { delimiter = line.contains(UInt8(ascii: ";")) ? UInt8(ascii: ";") : 0x09 }
        guard let fields = CSVLine.split(line, delimiter: delimiter), let first = fields.first else { return false }
        if TextValues.number(bytes: first) != nil { return true }
        let names = Set(fields.map { columnName(text($0)) })
        return !names.isDisjoint(with: ["lat", "latitude"]) && !names.isDisjoint(with: ["lon", "lng", "long", "longitude"])
    }

    private static func text(_ field: ArraySlice<UInt8>) -> String {
        String(decoding: field.prefix(100), as: UTF8.self)
    }

    private func error(_ message: String) -> TrackReadError {
        TrackReadError(file: path, line: lineNumber, message: message)
    }
}

/// The values of a CSV row as read, before they are judged: nil where a number does not parse;
/// for the optional columns, nil when the row does not give one.
private struct CSVRowValues {
    var latitude: Double?
    var longitude: Double?
    var time: Date??
    var accuracy: Double??
    var speed: Double??
}
