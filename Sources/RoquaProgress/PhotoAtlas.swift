import Foundation
import RoquaBoundaries
import RoquaRegions

/// `roqua photos`: where the kept photos were taken, counted per country, province and district
/// ("İstanbul: 1,204 photos in 31 of 39 districts"), every photo named offline.
public struct PhotoAtlas: Encodable, Sendable {
    /// One unit with photos taken in it.
    public struct Row: Encodable, Sendable, Equatable {
        public var code: String
        public var name: String
        public var level: String
        public var photos: Int
        /// Its parts (provinces of a country, districts of a province) with a photo, and all its
        /// parts; both 0 for a district.
        public var partsWithPhotos: Int
        public var parts: Int
    }

    /// Photos kept with a position.
    public var photos: Int
    /// Of them, taken where no boundary lies (at sea).
    public var atSea: Int
    /// The unit asked for (`--unit`), then its parts; else every country, each followed by its provinces.
    public var units: [Row]

    /// Counts `photos` per unit of `hierarchy`, each placed by `namer`; `unit`: only that unit and its parts.
    /// - Throws: GRDB's `DatabaseError` when the localities cannot be read.
    public init(photos: [PhotoTaken], namer: PlaceNamer, hierarchy: BoundaryHierarchy, unit: BoundaryHierarchy.Unit? = nil) throws {
        var counts: [String: Int] = [:]
        var atSea = 0
        for photo in photos {
            let names = try namer.names(latitude: photo.latitude, longitude: photo.longitude)
            let codes = [names.country?.code, names.province?.code, names.district?.code].compactMap { $0 }
            if codes.isEmpty { atSea += 1 }
            for code in codes { counts[code, default: 0] += 1 }
        }
        func row(_ code: String) -> Row? {
            guard let unit = hierarchy.units[code], let count = counts[code] else { return nil }
            let parts = hierarchy.children[code] ?? []
            return Row(
                code: code, name: unit.name, level: unit.level.description, photos: count,
                partsWithPhotos: parts.filter { counts[$0] != nil }.count, parts: parts.count)
        }
        func byPhotos(_ codes: [String]) -> [Row] {
            codes.compactMap(row).sorted { ($0.photos, $1.code) > ($1.photos, $0.code) }
        }
        var rows: [Row] = []
        if let unit {
            rows = (row(unit.code).map { [$0] } ?? []) + byPhotos(hierarchy.children[unit.code] ?? [])
        } else {
            for country in byPhotos(hierarchy.units.values.filter { $0.level == .country }.map(\.code)) {
                rows.append(country)
                rows += byPhotos(hierarchy.children[country.code] ?? [])
            }
        }
        (self.photos, self.atSea, units) = (photos.count, atSea, rows)
    }

    /// `İstanbul: 1,204 photos in 31 of 39 districts`, parts indented under their unit.
    public var lines: [String] {
        let widest = units.first.flatMap { AdminLevel(name: $0.level) }
        return units.map { row in
            let level = AdminLevel(name: row.level)
            let indent = level == widest ? "" : "  "
            let photos = row.photos.formatted(.number.locale(Locale(identifier: "en_US")))
            let partLevel = level.flatMap { AdminLevel(rawValue: $0.rawValue + 1) }
            let parts = partLevel.map { row.parts > 0 ? " in \(row.partsWithPhotos) of \(row.parts) \($0.plural)" : "" } ?? ""
            return "\(indent)\(row.name): \(photos) photo\(row.photos == 1 ? "" : "s")\(parts)"
        }
    }
}
