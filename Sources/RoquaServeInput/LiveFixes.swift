import Foundation
import RoquaIO

/// The tracker apps `roqua serve` takes positions from live, each with its own payload.
package enum LiveProtocol: String, CaseIterable, Sendable {
    case ownTracks = "owntracks"
    case overland
    case traccar
    case osmAnd = "osmand"
    case gpsLogger = "gpslogger"
}

/// One position a phone sent: WGS 84 degrees, its time, accuracy in metres, speed in m/s.
package struct LiveFix: Sendable, Equatable {
    package var latitude: Double
    package var longitude: Double
    package var time: Date
    package var accuracy: Double?
    package var speed: Double?

    package init(latitude: Double, longitude: Double, time: Date, accuracy: Double? = nil, speed: Double? = nil) {
        (self.latitude, self.longitude, self.time, self.accuracy, self.speed) = (latitude, longitude, time, accuracy, speed)
    }
}

/// What one request carried: its fixes, and those passed over for an impossible value (one bad
/// fix in a batch never costs the batch; a phone would resend it forever).
package struct LiveBatch: Sendable, Equatable {
    package var fixes: [LiveFix] = []
    /// Skipped fixes by reason (`latitude out of range`, `no time`…).
    package var skipped: [String: Int] = [:]
    /// Messages of other kinds the app sends (OwnTracks' `transition`, `waypoint`…), accepted
    /// and not stored.
    package var ignored = 0

    package var skippedCount: Int { skipped.values.reduce(0, +) }

    mutating func skip(_ reason: String) { skipped[reason, default: 0] += 1 }

    /// Checks one position and keeps it, or counts why not.
    mutating func add(latitude: Double?, longitude: Double?, time: Date?, accuracy: Double?, speed: Double?) {
        guard let latitude, let longitude else { return skip("no coordinates") }
        guard latitude.isFinite, (-90...90).contains(latitude) else { return skip("latitude out of range") }
        guard longitude.isFinite, (-180...180).contains(longitude) else { return skip("longitude out of range") }
        guard !(latitude == 0 && longitude == 0) else { return skip("0,0 (no fix)") }
        guard let time else { return skip("no time") }
        guard time >= LiveFixes.earliest, time <= Date().addingTimeInterval(LiveFixes.futureSlack) else {
            return skip("time out of range")
        }
        let accuracy = accuracy.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        let speed = speed.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        fixes.append(LiveFix(latitude: latitude, longitude: longitude, time: time, accuracy: accuracy, speed: speed))
    }
}

/// Reads each app's payload (`LiveProtocol`) into a `LiveBatch`. A body or parameters malformed
/// as a whole is a `BadRequest` naming the field; a bad fix inside a good batch is skipped.
package enum LiveFixes {
    /// Fixes per request, at most (Overland sends batches of 100–500 by default).
    package static let maxFixes = 10_000
    static let earliest = Date(timeIntervalSince1970: 0)
    /// Phones' clocks run ahead a little; further ahead is a wrong time.
    static let futureSlack: TimeInterval = 24 * 3600

    /// OwnTracks HTTP mode: one message object, or an array of them; `_type: location` carries
    /// `lat`, `lon`, `tst` (epoch seconds), `acc` (m), `vel` (km/h). Other types are ignored.
    package static func ownTracks(_ body: Data) throws(BadRequest) -> LiveBatch {
        let messages = try objects(body, "an OwnTracks message must be a JSON object (or an array of them)")
        var batch = LiveBatch()
        for case let message as [String: Any] in messages {
            guard message["_type"] as? String == "location" else { batch.ignored += 1; continue }
            let tst = number(message["tst"])
            batch.add(latitude: number(message["lat"]), longitude: number(message["lon"]),
                      time: tst.flatMap { TimeText.epoch($0) }, accuracy: number(message["acc"]),
                      speed: number(message["vel"]).map { $0 / 3.6 })
        }
        return batch
    }

    /// Overland: `{"locations": [GeoJSON Point features]}`, `properties.timestamp` ISO 8601,
    /// `horizontal_accuracy` (m), `speed` (m/s; -1 when unknown).
    package static func overland(_ body: Data) throws(BadRequest) -> LiveBatch {
        guard let root = try json(body) as? [String: Any], let locations = root["locations"] as? [Any] else {
            throw BadRequest("an Overland batch must be {\"locations\": [...]}: no \"locations\" array")
        }
        try limit(locations.count)
        var batch = LiveBatch()
        for location in locations {
            guard let feature = location as? [String: Any], let geometry = feature["geometry"] as? [String: Any],
                  let coordinates = geometry["coordinates"] as? [Any], coordinates.count >= 2 else {
                batch.skip("no coordinates")
                continue
            }
            let properties = feature["properties"] as? [String: Any] ?? [:]
            batch.add(latitude: number(coordinates[1]), longitude: number(coordinates[0]),
                      time: (properties["timestamp"] as? String).flatMap { TimeText.parse($0) },
                      accuracy: number(properties["horizontal_accuracy"]), speed: number(properties["speed"]))
        }
        return batch
    }

    /// Traccar Client's JSON: `{"location": {"timestamp", "coords": {latitude, longitude,
    /// accuracy, speed (m/s)}}, "device_id"}`; also an array of such (a client catching up).
    /// Returns the batch and the `device_id` (the device's token).
    package static func traccar(_ body: Data) throws(BadRequest) -> (batch: LiveBatch, deviceID: String?) {
        let items = try objects(body, "a Traccar Client position must be a JSON object with \"location\"")
        var batch = LiveBatch()
        var deviceID: String?
        for case let item as [String: Any] in items {
            deviceID = deviceID ?? item["device_id"] as? String
            guard let location = item["location"] as? [String: Any] else {
                throw BadRequest("a Traccar Client position must have a \"location\" object")
            }
            let coords = location["coords"] as? [String: Any] ?? [:]
            let time: Date? = (location["timestamp"] as? String).flatMap { TimeText.parse($0) }
                ?? number(location["timestamp"]).flatMap { TimeText.epoch($0) }
            batch.add(latitude: number(coords["latitude"]), longitude: number(coords["longitude"]), time: time,
                      accuracy: number(coords["accuracy"]), speed: number(coords["speed"]))
        }
        return (batch, deviceID)
    }

    /// The OsmAnd protocol (Traccar Client's classic mode, OsmAnd's live tracking): `lat`, `lon`,
    /// `timestamp` (epoch seconds or ISO 8601), `speed` (knots), `accuracy` (m).
    package static func osmAnd(_ parameters: QueryParameters) throws(BadRequest) -> LiveBatch {
        var batch = LiveBatch()
        batch.add(latitude: try coordinate(parameters, "lat"), longitude: try coordinate(parameters, "lon"),
                  time: parameters["timestamp"].flatMap { TimeText.parse($0) },
                  accuracy: parameters["accuracy"].flatMap { Double($0) },
                  speed: parameters["speed"].flatMap { Double($0) }.map { $0 * 1852 / 3600 })
        return batch
    }

    /// GPSLogger's custom URL: `lat`, `lon`, `time` (ISO 8601, its `%TIME`; or epoch), `acc` (m),
    /// `spd` (m/s).
    package static func gpsLogger(_ parameters: QueryParameters) throws(BadRequest) -> LiveBatch {
        var batch = LiveBatch()
        batch.add(latitude: try coordinate(parameters, "lat"), longitude: try coordinate(parameters, "lon"),
                  time: parameters["time"].flatMap { TimeText.parse($0) },
                  accuracy: parameters["acc"].flatMap { Double($0) }, speed: parameters["spd"].flatMap { Double($0) })
        return batch
    }

    /// A required coordinate parameter: missing or not a number is the request's fault (400).
    private static func coordinate(_ parameters: QueryParameters, _ name: String) throws(BadRequest) -> Double {
        guard let text = parameters[name] else { throw BadRequest("the \(name) parameter is missing") }
        guard let value = Double(text) else { throw BadRequest("\(name)=\(Echo.quoted(text)) is not a number") }
        return value
    }

    /// A body that is one JSON object or an array of them (at most `maxFixes`).
    private static func objects(_ body: Data, _ otherwise: String) throws(BadRequest) -> [Any] {
        let root = try json(body)
        let items: [Any]
        if let array = root as? [Any] { items = array } else if root is [String: Any] { items = [root] } else {
            throw BadRequest(otherwise)
        }
        try limit(items.count)
        return items
    }

    private static func json(_ body: Data) throws(BadRequest) -> Any {
        guard !body.isEmpty else { throw BadRequest("the body is empty") }
        do { return try JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) } catch {
            throw BadRequest("the body is not JSON")
        }
    }

    private static func limit(_ count: Int) throws(BadRequest) {
        guard count <= maxFixes else { throw BadRequest("\(count) positions in one request; at most \(maxFixes)") }
    }

    /// A JSON number, or a numeric string (some apps quote them).
    private static func number(_ value: Any?) -> Double? {
        switch value {
        case let number as NSNumber: number.doubleValue
        case let text as String: Double(text)
        default: nil
        }
    }
}
