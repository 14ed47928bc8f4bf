import Foundation
import GRDB
import RoquaIO

/// The settings everything in the store is derived with — the clustering's thresholds and the
/// flight speed — remembered in the store, so imports and live posts use what the last rebuild
/// set, and a rebuild with other values changes what is already stored ("settings change what
/// the user sees", as the product asks).
public struct DeriveSettings: Sendable, Equatable, Codable {
    public var clustering: ClusteringSettings
    /// Ground speed above which a fix is in flight, km/h.
    public var flightSpeedKmh: Double

    public init(clustering: ClusteringSettings = .default, flightSpeedKmh: Double = 250) {
        self.clustering = clustering
        self.flightSpeedKmh = flightSpeedKmh
    }

    public static let `default` = DeriveSettings()

    public var flights: FlightSettings { FlightSettings(speedKmh: flightSpeedKmh) }

    /// - Throws: `ClusteringSettingsError` naming the setting out of its range.
    public func validate() throws {
        try clustering.validate()
        try flights.validate()
    }

    static let key = "derive"

    /// What the store remembers, or the defaults for a store that never set any.
    static func remembered(_ db: Database) throws -> DeriveSettings {
        guard let text = try String.fetchOne(db, sql: "SELECT value FROM settings WHERE name = ?", arguments: [key]),
            let settings = try? CheckedJSONDecoder().decode(DeriveSettings.self, from: Data(text.utf8)),
            (try? settings.validate()) != nil
        else {
            return .default
        }
        return settings
    }

    func remember(_ db: Database) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(self), as: UTF8.self)
        try db.execute(
            sql: "INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
            arguments: [Self.key, text])
    }
}

extension RegionStore {
    /// The settings the store's regions were derived with (the defaults until a rebuild sets others).
    /// - Throws: `RegionStoreError` when the store cannot be read.
    public func derivedWith() throws -> DeriveSettings {
        try read { db in try DeriveSettings.remembered(db) }
    }
}
