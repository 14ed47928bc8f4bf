import Foundation
import RoquaBoundaries
import RoquaIO

/// Streams fixes out of a GeoJSON file, one feature at a time (coordinates are read straight
/// into a compact list, so a feature costs ~40 bytes a point rather than a generic JSON tree).
///
/// Rules:
/// - The top level is a `FeatureCollection` (its `features` streamed), a single `Feature`, or a
///   bare `Point` / `MultiPoint` / `LineString` / `MultiLineString` geometry.
/// - `Point`, `MultiPoint`, `LineString` and `MultiLineString` give one fix per position
///   (`[lon, lat, elevation?, time?]`), in order. `Polygon` / `MultiPolygon` /
///   `GeometryCollection` features and null geometries are skipped: areas are not positions.
///   Any other geometry type is an error.
/// - A position's time is, first found: the matching entry of `properties.coordTimes`,
///   `properties.times` or `properties.coordinateProperties.times` (flattened the same way as
///   the coordinates, as GPX-to-GeoJSON converters write them; the count must match); the
///   position's 4th value as epoch seconds (milliseconds above 1e11); and for a `Point` only,
///   `properties.time` or `properties.timestamp`. Time strings are ISO 8601 or epoch text,
///   numbers are epoch. A position with no time is skipped and counted (`untimedPoints`), or
///   given `TrackReadOptions.assumedTime`. Times outside 1970-01-01 … 2100-01-01 are errors.
/// - For a `Point`, `properties.accuracy` or `horizontal_accuracy` (m) and `properties.speed`
///   (m/s) are read.
/// - An Overland batch (`{"locations": [Feature…]}` with `properties.timestamp`) is read the
///   same way, its `locations` standing for `features`.
/// - `position` is the line of the position's `[`.
public final class GeoJSONTrackReader: FixReader, WholeOrEvents {
    /// The file being read, as given (for messages).
    public let path: String
    private var walker: JSONTopLevel
    private var json: JSONScanner { walker.json }
    private var pending = PendingFixes()
    private var untimed: UntimedPoints
    private var featureIndex = 0
    private var finished = false
    private var sawFeatures: Bool { !walker.seen.isEmpty }
    /// Top-level members, for a file that is one Feature or one bare geometry.
    private var topType: String?
    private var topGeometry: Geometry?
    private var topCoordinates: Coordinates?
    private var topProperties = Properties()

    struct Position {
        var longitude: Double
        var latitude: Double
        var fourth: Double?
        var line: Int
    }
    struct Coordinates {
        var positions: [Position] = []
        var nesting = 0
        var line: Int
    }
    struct Geometry {
        var type: String?
        var line: Int
        var coordinates: Coordinates?
    }
    struct TimeEntry {
        var date: Date
        var line: Int
    }
    struct Properties {
        var time: JSONValue?
        var times: [TimeEntry]?
        var timesLine = 0
        var accuracy: JSONValue?
        var speed: JSONValue?
    }

    /// How deep a geometry's coordinates nest; nil for a type that is no track. (A switch: a
    /// dictionary hashed the type of every feature.)
    private static func geometryNesting(_ type: String) -> Int? {
        switch type {
        case "Point": 1
        case "MultiPoint", "LineString": 2
        case "MultiLineString": 3
        default: nil
        }
    }

    /// Areas, not positions: skipped.
    private static func isSkippedGeometry(_ type: String) -> Bool {
        type == "Polygon" || type == "MultiPolygon" || type == "GeometryCollection"
    }

    package var readsPlainPointsWhole = true
    package var pointsTakenWhole: Int { whole.total }
    package var lineReached: Int { json.stream.line }
    private var whole = WholeReading()

    /// Points read so far that carried no time (see `FixReader.untimedPoints`).
    public var untimedPoints: Int { untimed.count }
    /// Positions passed over for an impossible time or coordinate.
    public private(set) var skipped = SkippedRecords()

    /// Opens the GeoJSON file at `path` for reading; nothing but the first chunk is read yet.
    ///
    /// - Throws: `TrackReadError` when the file cannot be opened or read.
    public convenience init(path: String, options: TrackReadOptions = TrackReadOptions()) throws {
        self.init(stream: try ByteStream(path: path), options: options)
    }

    package convenience init(stream: ByteStream, options: TrackReadOptions) {
        self.init(stream: stream, options: options, featureArray: "features")
    }

    /// `featureArray` is the member holding the features: `features`, or `locations` in an
    /// Overland batch.
    package init(stream: ByteStream, options: TrackReadOptions = TrackReadOptions(), featureArray: String = "features") {
        path = stream.path
        walker = JSONTopLevel(
            JSONScanner(stream: stream), streaming: [featureArray],
            expected: "a usable GeoJSON track (a FeatureCollection, a Feature or a geometry)")
        untimed = UntimedPoints(options)
    }

    /// The next fix in file order, or `nil` at the end of the file.
    ///
    /// - Throws: `TrackReadError` naming the file and the line (or record) of the first malformed
    ///   point, or when the file cannot be read.
    public func next() throws -> Fix? {
        while true {
            if let fix = pending.pop() { return fix }
            switch try walker.next() {
            case let .member(key): try readTopLevel(key)
            case .element:
                featureIndex += 1
                try readFeature()
            case .end:
                // `.end` comes back on every later call: the top level is turned into fixes once.
                guard !finished else { return nil }
                finished = true
                try finishTopLevel()
            }
        }
    }

    private func readTopLevel(_ key: String) throws {
        switch key {
        case "type":
            let value = try json.readValue()
            guard let type = value.string,
                type == "FeatureCollection" || type == "Feature" || Self.geometryNesting(type) != nil || Self.isSkippedGeometry(type)
            else {
                throw shapeError("\"type\" is \(GoogleRecordsReader.show(value)), not a GeoJSON type")
            }
            topType = type
        case "geometry":
            json.beginRecord()
            topGeometry = try readGeometry()
        case "properties":
            json.beginRecord()
            topProperties = try readProperties()
        case "coordinates":
            json.beginRecord()
            topCoordinates = try readCoordinates()
        default: try json.skipValue()
        }
    }

    /// At the end of the top-level object: a FeatureCollection has been streamed already; a
    /// single Feature or bare geometry is turned into fixes now.
    private func finishTopLevel() throws {
        switch topType {
        case "FeatureCollection":
            guard sawFeatures else { throw shapeError("the FeatureCollection has no \"features\" array") }
        case "Feature":
            try appendFixes(geometry: topGeometry, properties: topProperties)
        case let type? where topCoordinates != nil:
            try appendFixes(
                geometry: Geometry(type: type, line: topCoordinates?.line ?? 1, coordinates: topCoordinates), properties: topProperties)
        case nil where sawFeatures:
            return  // a "features" array without a "type": lenient, it is plainly a collection
        default:
            throw shapeError("expected a FeatureCollection, a Feature or a point/line geometry")
        }
    }

    private func readFeature() throws {
        var plain: (type: JSONValue?, geometry: Geometry?, properties: Properties)?
        if readsPlainPointsWhole,
            whole.attempt({
                json.readPlainValue(keeping: ["type", "geometry", "properties"]) { value in
                    plain = plainFeature(value)
                    return plain != nil
                } != nil
            }), let plain
        {
            return try finishFeature(type: plain.type, geometry: plain.geometry, properties: plain.properties)
        }
        json.beginRecord()
        try json.beginObject("a GeoJSON Feature")
        var type: JSONValue?
        var geometry: Geometry?
        var properties = Properties()
        while let key = try json.nextKey() {
            switch key {
            case "type": type = try json.readValue(depth: 1)
            case "geometry": geometry = try readGeometry()
            case "properties": properties = try readProperties()
            default: try json.skipValue()
            }
        }
        try finishFeature(type: type, geometry: geometry, properties: properties)
    }

    private func finishFeature(type: JSONValue?, geometry: Geometry?, properties: Properties) throws {
        if let type, type.string != "Feature" {
            throw error("features[\(featureIndex - 1)] has type \(GoogleRecordsReader.show(type)), not \"Feature\"", type.line)
        }
        try appendFixes(geometry: geometry, properties: properties)
    }

    // MARK: - A feature read whole

    /// A feature `readPlainValue` read, taken apart as `readFeature` takes one apart member by
    /// member — the same geometry, positions, times and lines — or nil where that would throw
    /// (the feature is then read member by member, and the error named there).
    private func plainFeature(_ feature: JSONValue) -> (type: JSONValue?, geometry: Geometry?, properties: Properties)? {
        guard case let .object(members, _) = feature else { return nil }
        var type: JSONValue?
        var geometry: Geometry?
        var properties = Properties()
        for (key, value) in members {
            switch key {
            case "type": type = value
            case "geometry":
                if value.isNull {
                    geometry = nil
                    continue
                }
                guard case let .object(parts, line) = value else { return nil }
                var read = Geometry(type: nil, line: line, coordinates: nil)
                for (name, part) in parts {
                    if name == "type" {
                        guard let text = part.string else { return nil }
                        read.type = text
                    } else if name == "coordinates" {
                        var coordinates = Coordinates(line: part.line)
                        guard let nesting = Self.plainCoordinates(part, into: &coordinates.positions, depth: 1) else { return nil }
                        coordinates.nesting = nesting
                        read.coordinates = coordinates
                    }
                }
                geometry = read
            case "properties":
                guard let read = plainProperties(value) else { return nil }
                properties = read
            default: break
            }
        }
        return (type, geometry, properties)
    }

    /// As `readCoordinateLevel`; nil where it throws.
    private static func plainCoordinates(_ value: JSONValue, into positions: inout [Position], depth: Int) -> Int? {
        guard depth < 16, case let .array(elements, line) = value else { return nil }
        if case .array = elements.first {
            var nesting = 0
            for element in elements {
                guard let inner = plainCoordinates(element, into: &positions, depth: depth + 1).map({ $0 + 1 }),
                    nesting == 0 || inner == nesting
                else { return nil }
                nesting = inner
            }
            return nesting
        }
        guard elements.allSatisfy({ $0.number != nil }) else { return nil }
        if elements.isEmpty { return 2 }  // `[]`: an empty list of positions
        guard elements.count >= 2, let longitude = elements[0].number, let latitude = elements[1].number else { return nil }
        positions.append(
            Position(longitude: longitude, latitude: latitude, fourth: elements.count > 3 ? elements[3].number : nil, line: line))
        return 1
    }

    /// As `readProperties`; nil where it throws.
    private func plainProperties(_ value: JSONValue) -> Properties? {
        var properties = Properties()
        if value.isNull { return properties }
        guard case let .object(members, _) = value else { return nil }
        for (key, member) in members {
            switch key {
            case "time", "timestamp": if properties.time == nil { properties.time = member }
            case "accuracy", "horizontal_accuracy": properties.accuracy = member
            case "speed": properties.speed = member
            case "coordTimes", "times": guard plainTimes(member, into: &properties) else { return nil }
            case "coordinateProperties":
                guard case let .object(inner, _) = member else { return nil }
                for (name, times) in inner where name == "times" {
                    guard plainTimes(times, into: &properties) else { return nil }
                }
            default: break
            }
        }
        return properties
    }

    /// As `readTimes`; false where it throws.
    private func plainTimes(_ value: JSONValue, into properties: inout Properties) -> Bool {
        var entries: [TimeEntry] = []
        func level(_ value: JSONValue, _ depth: Int) -> Bool {
            guard depth < 16, case let .array(elements, _) = value else { return false }
            for element in elements {
                if case .array = element {
                    guard level(element, depth + 1) else { return false }
                    continue
                }
                guard let date = try? time(element) else { return false }
                entries.append(TimeEntry(date: date, line: element.line))
            }
            return true
        }
        guard level(value, 1) else { return false }
        properties.timesLine = value.line
        properties.times = entries
        return true
    }

    private func readGeometry() throws -> Geometry? {
        if try json.peekToken() == UInt8(ascii: "n") {
            _ = try json.readValue(depth: 1)
            return nil
        }  // null geometry
        var geometry = Geometry(type: nil, line: try json.tokenLine(), coordinates: nil)
        try json.beginObject("a GeoJSON geometry")
        while let key = try json.nextKey() {
            switch key {
            case "type":
                let value = try json.readValue(depth: 1)
                guard let type = value.string else { throw error("geometry type is \(value.kind)", value.line) }
                geometry.type = type
            case "coordinates": geometry.coordinates = try readCoordinates()
            default: try json.skipValue()
            }
        }
        return geometry
    }

    /// Nested coordinate arrays, flattened into positions; `nesting` is 1 for a position,
    /// 2 for a list of positions, and so on.
    private func readCoordinates() throws -> Coordinates {
        var result = Coordinates(line: try json.tokenLine())
        result.nesting = try readCoordinateLevel(into: &result.positions, depth: 1)
        return result
    }

    private func readCoordinateLevel(into positions: inout [Position], depth: Int) throws -> Int {
        guard depth < 16 else { throw error("coordinates nested too deeply", json.stream.line) }
        let line = try json.tokenLine()
        try json.beginArray("a coordinates array")
        guard try json.peekToken() != UInt8(ascii: "[") else {
            var nesting = 0
            while try json.nextElement() {
                let inner = try readCoordinateLevel(into: &positions, depth: depth + 1) + 1
                guard nesting == 0 || inner == nesting else { throw error("coordinates mix nesting levels", line) }
                nesting = inner
            }
            return nesting
        }
        var values: [Double] = []
        while try json.nextElement() {
            let value = try json.readValue(depth: 1)
            guard let number = value.number else { throw error("a coordinate is \(value.kind), not a number", value.line) }
            if values.count < 4 { values.append(number) }
        }
        if values.isEmpty { return 2 }  // `[]`: an empty list of positions
        guard values.count >= 2 else { throw error("a position needs at least longitude and latitude", line) }
        positions.append(Position(longitude: values[0], latitude: values[1], fourth: values.count > 3 ? values[3] : nil, line: line))
        return 1
    }

    private func readProperties() throws -> Properties {
        var properties = Properties()
        if try json.peekToken() == UInt8(ascii: "n") {
            _ = try json.readValue(depth: 1)
            return properties
        }
        try json.beginObject("GeoJSON properties")
        while let key = try json.nextKey() {
            switch key {
            case "time", "timestamp":
                let value = try json.readValue(depth: 1)
                if properties.time == nil { properties.time = value }
            case "accuracy", "horizontal_accuracy": properties.accuracy = try json.readValue(depth: 1)
            case "speed": properties.speed = try json.readValue(depth: 1)
            case "coordTimes", "times": try readTimes(into: &properties)
            case "coordinateProperties":
                try json.beginObject("coordinateProperties")
                while let inner = try json.nextKey() {
                    if inner == "times" { try readTimes(into: &properties) } else { try json.skipValue() }
                }
            default: try json.skipValue()
            }
        }
        return properties
    }

    /// A (possibly nested) array of times, flattened and parsed as read.
    private func readTimes(into properties: inout Properties) throws {
        properties.timesLine = try json.tokenLine()
        var entries: [TimeEntry] = []
        func level(_ depth: Int) throws {
            guard depth < 16 else { throw error("times nested too deeply", json.stream.line) }
            try json.beginArray("a times array")
            while try json.nextElement() {
                if try json.peekToken() == UInt8(ascii: "[") {
                    try level(depth + 1)
                    continue
                }
                let value = try json.readValue(depth: 1)
                entries.append(TimeEntry(date: try time(value), line: value.line))
            }
        }
        try level(1)
        properties.times = entries
    }

    private func time(_ value: JSONValue) throws -> Date {
        if let number = value.number, let date = TimeText.epoch(number) {
            return try TrackValues.time(date, file: path, line: value.line)
        }
        if let text = value.string, let date = TimeText.parse(text) { return try TrackValues.time(date, file: path, line: value.line) }
        throw error("time \(GoogleRecordsReader.show(value)) is neither ISO 8601 nor epoch seconds", value.line)
    }

    private func appendFixes(geometry: Geometry?, properties: Properties) throws {
        guard let geometry else { return }  // null geometry: a feature with no place
        guard let type = geometry.type else { throw error("geometry has no type", geometry.line) }
        if Self.isSkippedGeometry(type) { return }
        guard let nesting = Self.geometryNesting(type) else { throw error("unsupported geometry type \"\(type)\"", geometry.line) }
        guard let coordinates = geometry.coordinates else { throw error("\(type) has no coordinates", geometry.line) }
        guard coordinates.positions.isEmpty || coordinates.nesting == nesting else {
            throw error("\(type) coordinates are nested \(coordinates.nesting) deep, expected \(nesting)", coordinates.line)
        }
        let positions = coordinates.positions
        if let times = properties.times, times.count != positions.count {
            throw error("\(times.count) times for \(positions.count) positions", properties.timesLine)
        }
        // A bad time or coordinate costs its position, never the file (see `skipped`).
        var featureTime: Date?
        if let value = properties.time {
            do { featureTime = try time(value) } catch let error as InputError {
                guard type == "Point" else { throw error }
                skipped.skip(error, reason: "invalid time")
                return
            }
        }
        for (index, position) in positions.enumerated() {
            do {
                let timestamp: Date
                if let times = properties.times {
                    timestamp = times[index].date
                } else if let fourth = position.fourth, let date = TimeText.epoch(fourth) {
                    timestamp = try TrackValues.time(date, file: path, line: position.line)
                } else if type == "Point", let featureTime {
                    timestamp = featureTime
                } else if let assumed = untimed.time() {
                    timestamp = assumed
                } else {
                    continue  // counted by `untimed`: a position without a time is a place, not a visit
                }
                let coordinate = try TrackValues.coordinate(
                    latitude: position.latitude, longitude: position.longitude,
                    file: path, line: position.line)
                var fix = Fix(coordinate: coordinate, timestamp: timestamp, position: position.line)
                if type == "Point" {
                    fix.accuracy = try metric(properties.accuracy, "accuracy")
                    fix.speed = try metric(properties.speed, "speed")
                }
                pending.append(fix)
            } catch let error as InputError {
                skipped.skip(error)
            }
        }
    }

    private func metric(_ value: JSONValue?, _ name: String) throws -> Double? {
        try TrackValues.metric(value, name, file: path)
    }

    private func error(_ message: String, _ line: Int) -> TrackReadError {
        TrackReadError(file: path, line: line, message: message)
    }

    private func shapeError(_ detail: String) -> TrackReadError {
        TrackReadError(file: path, line: nil, message: "not a usable GeoJSON track: \(detail)")
    }
}
