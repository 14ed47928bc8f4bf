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

/// When a live fix may have been taken: the apps buffer what they could not send (OwnTracks,
/// Overland and Traccar Client keep days of positions offline), so a window back from the
/// server's clock, and a few minutes ahead for a phone's clock running fast. A device writing
/// further back could reach into closed achievement windows and old streaks.
package struct LiveWindow: Sendable, Equatable {
    package static let defaultMaxAgeDays = 7
    package static let ahead: TimeInterval = 5 * 60

    package var earliest: Date
    package var latest: Date

    package init(now: Date = Date(), maxAgeDays: Int = LiveWindow.defaultMaxAgeDays) {
        earliest = now.addingTimeInterval(-Double(maxAgeDays) * 86_400)
        latest = now.addingTimeInterval(Self.ahead)
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
    let window: LiveWindow

    init(window: LiveWindow) { self.window = window }

    package var skippedCount: Int { skipped.values.reduce(0, +) }

    mutating func skip(_ reason: String) { skipped[reason, default: 0] += 1 }

    /// Checks one position and keeps it, or counts why not. A field that was sent but is no number
    /// (`LiveNumber.value` nil) skips the fix: it is not the same as a field left out.
    mutating func add(latitude: LiveNumber?, longitude: LiveNumber?, time: Date?, accuracy: LiveNumber?, speed: LiveNumber?) {
        guard let latitude, let longitude else { return skip("no coordinates") }
        guard let lat = latitude.value, let lon = longitude.value else { return skip("coordinates that are not numbers") }
        guard (-90...90).contains(lat) else { return skip("latitude out of range") }
        guard (-180...180).contains(lon) else { return skip("longitude out of range") }
        guard !(lat == 0 && lon == 0) else { return skip("0,0 (no fix)") }
        guard let time else { return skip("no time") }
        guard time >= window.earliest, time <= window.latest else { return skip("time outside the live window") }
        guard accuracy.map({ $0.value != nil }) ?? true, speed.map({ $0.value != nil }) ?? true else {
            return skip("accuracy or speed that is not a number")
        }
        fixes.append(
            LiveFix(
                latitude: lat, longitude: lon, time: time, accuracy: accuracy?.value.flatMap { $0 >= 0 ? $0 : nil },
                speed: speed?.value.flatMap { $0 >= 0 ? $0 : nil }))
    }
}

/// Reads each app's payload (`LiveProtocol`) into a `LiveBatch`. A body or parameters malformed
/// as a whole is a `BadRequest` naming the field; a bad fix inside a good batch is skipped.
package enum LiveFixes {
    /// Fixes per request, at most (Overland sends batches of 100–500 by default).
    package static let maxFixes = 10_000

    /// OwnTracks HTTP mode: one message object, or an array of them (`OwnTracksMessage`).
    package static func ownTracks(_ body: Data, window: LiveWindow) throws(BadRequest) -> LiveBatch {
        let messages = try decode(
            OneOrMany<OwnTracksMessage>.self, body,
            "an OwnTracks message must be a JSON object (or an array of them)"
        ).items
        var batch = LiveBatch(window: window)
        for message in messages {
            guard let message, message.type == "location" else {
                batch.ignored += 1
                continue
            }
            batch.add(
                latitude: message.lat, longitude: message.lon, time: message.tst?.value, accuracy: message.acc,
                speed: message.vel.map { LiveNumber(value: $0.value.map { $0 / 3.6 }) })
        }
        return batch
    }

    /// Overland's batch (`OverlandBatch`).
    package static func overland(_ body: Data, window: LiveWindow) throws(BadRequest) -> LiveBatch {
        let locations = try decode(OverlandBatch.self, body, "an Overland batch must be {\"locations\": [...]}").locations.items
        var batch = LiveBatch(window: window)
        for location in locations {
            guard let location, let coordinates = location.geometry?.coordinates, coordinates.count >= 2 else {
                batch.skip("no coordinates")
                continue
            }
            let properties = location.properties
            batch.add(
                latitude: coordinates[1], longitude: coordinates[0], time: properties?.timestamp?.value,
                accuracy: properties?.horizontalAccuracy, speed: properties?.speed)
        }
        return batch
    }

    /// Traccar Client's JSON (`TraccarPosition`), one or an array (a client catching up).
    /// Returns the batch and the `device_id` (the device's token).
    package static func traccar(_ body: Data, window: LiveWindow) throws(BadRequest) -> (batch: LiveBatch, deviceID: String?) {
        let items = try decode(
            OneOrMany<TraccarPosition>.self, body,
            "a Traccar Client position must be a JSON object with \"location\""
        ).items
        var batch = LiveBatch(window: window)
        var deviceID: String?
        for item in items {
            deviceID = deviceID ?? item?.deviceID
            guard let location = item?.location else {
                throw BadRequest("a Traccar Client position must have a \"location\" object")
            }
            let coords = location.coords
            batch.add(
                latitude: coords?.latitude, longitude: coords?.longitude, time: location.timestamp?.value,
                accuracy: coords?.accuracy, speed: coords?.speed)
        }
        return (batch, deviceID)
    }

    /// The OsmAnd protocol (Traccar Client's classic mode, OsmAnd's live tracking): `lat`, `lon`,
    /// `timestamp` (epoch seconds or ISO 8601), `speed` (knots), `accuracy` (m).
    package static func osmAnd(_ parameters: QueryParameters, window: LiveWindow) throws(BadRequest) -> LiveBatch {
        var batch = LiveBatch(window: window)
        batch.add(
            latitude: try coordinate(parameters, "lat"), longitude: try coordinate(parameters, "lon"),
            time: parameters["timestamp"].flatMap { TimeText.parse($0) },
            accuracy: parameters["accuracy"].map(LiveNumber.init(text:)),
            speed: parameters["speed"].map { LiveNumber(value: LiveNumber(text: $0).value.map { $0 * 1852 / 3600 }) })
        return batch
    }

    /// GPSLogger's custom URL: `lat`, `lon`, `time` (ISO 8601, its `%TIME`; or epoch), `acc` (m),
    /// `spd` (m/s).
    package static func gpsLogger(_ parameters: QueryParameters, window: LiveWindow) throws(BadRequest) -> LiveBatch {
        var batch = LiveBatch(window: window)
        batch.add(
            latitude: try coordinate(parameters, "lat"), longitude: try coordinate(parameters, "lon"),
            time: parameters["time"].flatMap { TimeText.parse($0) },
            accuracy: parameters["acc"].map(LiveNumber.init(text:)), speed: parameters["spd"].map(LiveNumber.init(text:)))
        return batch
    }

    /// A required coordinate parameter: missing or not a plain decimal number is the request's fault (400).
    private static func coordinate(_ parameters: QueryParameters, _ name: String) throws(BadRequest) -> LiveNumber {
        guard let text = parameters[name] else { throw BadRequest("the \(name) parameter is missing") }
        let number = LiveNumber(text: text)
        guard number.value != nil else { throw BadRequest("\(name)=\(Echo.quoted(text)) is not a number") }
        return number
    }

    /// A JSON body as `type`, every failure a `BadRequest`: `otherwise` when it has the wrong shape.
    private static func decode<T: Decodable>(_ type: T.Type, _ body: Data, _ otherwise: String) throws(BadRequest) -> T {
        guard !body.isEmpty else { throw BadRequest("the body is empty") }
        do { return try CheckedJSONDecoder().decode(type, from: body) } catch is TooManyFixes {
            throw BadRequest("more than \(maxFixes) positions in one request")
        } catch let error as DecodingError {
            if case .dataCorrupted = error { throw BadRequest("the body is not JSON") }
            throw BadRequest(otherwise)
        } catch {
            throw BadRequest(otherwise)
        }
    }
}
