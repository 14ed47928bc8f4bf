import Foundation
import RoquaIO

/// A number as a phone sent it: a JSON number, or plain decimal text where an app quotes its
/// numbers. `true`, `"0x1.4p5"`, `"inf"` and the like are present but not numbers (`value` nil):
/// Foundation's bridging read `true` as 1 and `Double(String)` reads hex, which put fixes in the
/// Congo and at 40° from values no phone sends.
struct LiveNumber: Decodable, Sendable {
    let value: Double?

    init(value: Double?) { self.value = value }

    init(text: String) { value = TextValues.number(text) }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Foundation's decoder gives no number for `true` (its bridging in `JSONSerialization` did).
        if let number = try? container.decode(Double.self) {
            value = number.isFinite ? number : nil
        } else if let text = try? container.decode(String.self) {
            value = TextValues.number(text)
        } else {
            value = nil
        }
    }
}

/// A time as the apps send it: ISO 8601 text, or epoch seconds (or milliseconds) as a number or text.
struct LiveTime: Decodable, Sendable {
    let value: Date?

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            value = TimeText.parse(text)
        } else {
            value = (try? container.decode(LiveNumber.self))?.value.flatMap { TimeText.epoch($0) }
        }
    }
}

/// A value that may be of any shape: a message the app sends that Roqua does not read, or one
/// malformed, is nil rather than the end of its whole batch.
struct Lenient<Value: Decodable>: Decodable {
    let value: Value?

    init(from decoder: any Decoder) throws { value = try? Value(from: decoder) }
}

/// An array of at most `LiveFixes.maxFixes` items (counted while decoding, so a huge array stops
/// at the first item too many), each nil where it is malformed.
struct LiveArray<Item: Decodable>: Decodable {
    let items: [Item?]

    init(from decoder: any Decoder) throws {
        var array = try decoder.unkeyedContainer()
        var items: [Item?] = []
        while !array.isAtEnd {
            guard items.count < LiveFixes.maxFixes else { throw TooManyFixes() }
            items.append(try array.decode(Lenient<Item>.self).value)
        }
        self.items = items
    }
}

/// One object, or a `LiveArray` of them.
struct OneOrMany<Item: Decodable>: Decodable {
    let items: [Item?]

    init(from decoder: any Decoder) throws {
        guard (try? decoder.unkeyedContainer()) != nil else {
            _ = try decoder.container(keyedBy: AnyKey.self)  // one object, or the request is malformed
            items = [try Lenient<Item>(from: decoder).value]
            return
        }
        items = try LiveArray<Item>(from: decoder).items
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

struct TooManyFixes: Error {}

/// OwnTracks HTTP mode: `_type: location` carries `lat`, `lon`, `tst` (epoch seconds), `acc` (m),
/// `vel` (km/h). Messages of other types are accepted and not read.
struct OwnTracksMessage: Decodable {
    let type: String?
    let lat, lon, acc, vel: LiveNumber?
    let tst: LiveTime?

    enum CodingKeys: String, CodingKey {
        case type = "_type"
        case lat, lon, acc, vel, tst
    }
}

/// Overland: `{"locations": [GeoJSON Point features]}`, `properties.timestamp` ISO 8601,
/// `horizontal_accuracy` (m), `speed` (m/s; -1 when unknown).
struct OverlandBatch: Decodable {
    struct Feature: Decodable {
        struct Geometry: Decodable { let coordinates: [LiveNumber]? }
        struct Properties: Decodable {
            let timestamp: LiveTime?
            let horizontalAccuracy, speed: LiveNumber?

            enum CodingKeys: String, CodingKey {
                case timestamp, speed
                case horizontalAccuracy = "horizontal_accuracy"
            }
        }

        let geometry: Geometry?
        let properties: Properties?
    }

    let locations: LiveArray<Feature>
}

/// Traccar Client's JSON: `{"location": {"timestamp", "coords": {latitude, longitude, accuracy,
/// speed (m/s)}}, "device_id"}`.
struct TraccarPosition: Decodable {
    struct Location: Decodable {
        struct Coordinates: Decodable { let latitude, longitude, accuracy, speed: LiveNumber? }
        let timestamp: LiveTime?
        let coords: Coordinates?
    }

    let location: Location?
    let deviceID: String?

    enum CodingKeys: String, CodingKey {
        case location
        case deviceID = "device_id"
    }
}
