import Foundation
import RoquaIO

/// The fields of a Google Photos Takeout sidecar that matter here (decoded with Codable).
struct TakeoutSidecar: Decodable {
    struct Geo: Decodable {
        var latitude: Double?
        var longitude: Double?
        var altitude: Double?
    }

    struct TakenTime: Decodable {
        var timestamp: UnixSeconds?
        var formatted: String?
    }

    /// Takeout writes the timestamp as a string of unix seconds; a bare number is accepted too.
    struct UnixSeconds: Decodable {
        var value: Int64

        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let text = try? c.decode(String.self) {
                guard let v = Int64(text.trimmingCharacters(in: .whitespaces)) else {
                    throw DecodingError.dataCorruptedError(in: c, debugDescription: "timestamp '\(text.prefix(32))' is not unix seconds")
                }
                value = v
            } else {
                value = try c.decode(Int64.self)
            }
        }
    }

    var geoData: Geo?
    var geoDataExif: Geo?
    var photoTakenTime: TakenTime?
}

/// What a sidecar contributes.
struct SidecarFacts: Equatable {
    var position: Position?
    var takenMillis: Int64?
}

enum TakeoutReader {
    /// Sidecars are small JSON files; anything bigger than this is refused.
    static let maxSidecarBytes = 256 * 1024

    static func read(_ source: ByteSource) throws(ReadFailure) -> SidecarFacts {
        guard source.size <= UInt64(maxSidecarBytes) else {
            throw .malformed("sidecar of \(source.size) bytes exceeds the cap of \(maxSidecarBytes)")
        }
        let bytes = try source.read(at: 0, count: Int(source.size), "sidecar")
        return try parse(bytes)
    }

    static func parse(_ bytes: [UInt8]) throws(ReadFailure) -> SidecarFacts {
        let sidecar: TakeoutSidecar
        do {
            // Checked nesting: Foundation crashes on 513 brackets ending the text (RoquaIO.CheckedJSONDecoder).
            sidecar = try CheckedJSONDecoder().decode(TakeoutSidecar.self, from: Data(bytes))
        } catch {
            throw .malformed("sidecar JSON: \(describe(error))")
        }
        var facts = SidecarFacts()
        // geoDataExif is what the camera recorded; geoData may be a manual edit in Google Photos.
        facts.position = position(sidecar.geoDataExif) ?? position(sidecar.geoData)
        if let seconds = sidecar.photoTakenTime?.timestamp?.value,
            seconds > -6_000_000_000, seconds < 8_000_000_000
        {  // years ~1780...2223
            facts.takenMillis = seconds * 1000
        }
        return facts
    }

    static func position(_ geo: TakeoutSidecar.Geo?) -> Position? {
        guard let geo, let lat = geo.latitude, let lon = geo.longitude,
            lat.isFinite, lon.isFinite, abs(lat) <= 90, abs(lon) <= 180,
            !(lat == 0 && lon == 0)
        else { return nil }
        // Takeout writes altitude 0.0 when it has none.
        let altitude = geo.altitude.flatMap { $0.isFinite && $0 != 0 ? $0 : nil }
        return Position(latitude: lat, longitude: lon, accuracy: nil, altitude: altitude)
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let c): "data corrupted at \(path(c.codingPath)): \(c.debugDescription.prefix(80))"
        case DecodingError.typeMismatch(_, let c): "type mismatch at \(path(c.codingPath))"
        case DecodingError.valueNotFound(_, let c): "null at \(path(c.codingPath))"
        case DecodingError.keyNotFound(let k, _): "missing key \(k.stringValue)"
        default: "invalid JSON"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.isEmpty ? "top level" : keys.map(\.stringValue).joined(separator: ".")
    }
}
