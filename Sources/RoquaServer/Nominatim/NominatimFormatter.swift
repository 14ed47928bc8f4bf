import Foundation
import RoquaBoundaries
import RoquaIO
import RoquaServeInput

/// Writes an answer in Nominatim's field names and shapes. Roqua's units are administrative
/// boundaries, so every place is `boundary`/`administrative`; there is no OSM object behind
/// it, so `osm_type`/`osm_id` are left out, and `place_id` is a stable number made from the
/// unit's code (Nominatim's is not persistent either).
struct NominatimFormatter {
    let catalog: UnitCatalog

    /// The levels of the answer down to the one `request` allows, deepest first.
    func units(_ resolution: Resolution, _ request: NominatimRequest) -> [(AdminLevel, UnitReference)] {
        AdminLevel.deepestFirst.filter { $0 <= request.deepestLevel }.compactMap { level in resolution.unit(level).map { (level, $0) } }
    }

    /// The answer for `resolution`, or Nominatim's "Unable to geocode" when no level is left.
    func document(_ resolution: Resolution, _ request: NominatimRequest) -> NominatimAnswer {
        let units = units(resolution, request)
        guard let (level, place) = units.first else { return .unableToGeocode }
        let country = resolution.country?.code ?? ""
        // The locality (the town or city the point belongs to) where the request reaches the
        // district zoom, whether or not the country has districts (Cape Town's answer is its
        // province): in the address unless the district bears its name, and in the display name
        // as `roqua resolve` names it (a name never twice in a row: "Berlin, Germany" with the
        // city Berlin in the address). The place answered (name, point, box, type) stays the
        // deepest unit.
        let locality = request.deepestLevel == .district ? Self.addressLocality(resolution, language: request.language) : nil
        let name = place.name(language: request.language)
        let leading = locality.map(\.name).flatMap { $0 == name ? nil : $0 }
        let display = ((leading.map { [$0] } ?? []) + units.map { $0.1.name(language: request.language) }).joined(separator: ", ")
        let point = catalog.labelPoint(place.code) ?? (resolution.coordinate.latitude, resolution.coordinate.longitude)
        // Every answer has a box (geopy and Ruby's geocoder read `boundingbox` unchecked): the
        // unit's, or the point's own should the catalog not know the unit.
        let here = resolution.coordinate
        let box =
            catalog.records[place.code]?.box
            ?? BoundingBox(minX: here.longitude, minY: here.latitude, maxX: here.longitude, maxY: here.latitude)
        let address =
            request.addressDetails && request.format != .geocodejson
            ? addressFields(units, locality: locality, country: country, language: request.language) : nil
        let summary = NominatimAnswer.Summary(
            placeID: Self.placeID(place.code), licence: Self.licence(country: country),
            rank: [AdminLevel.country: 4, .province: 8, .district: 12][level] ?? 4,
            addressType: Self.addressType(level, country: country), name: name, displayName: display, address: address,
            latitude: Self.degrees(point.latitude), longitude: Self.degrees(point.longitude))
        switch request.format {
        case .json, .jsonv2:
            return .place(
                .init(
                    summary: summary, categoryKey: request.format == .json ? "class" : "category",
                    boundingBox: [box.minY, box.maxY, box.minX, box.maxX].map(Self.degrees)))
        case .geojson:
            return .geoJSON(.init(summary: summary, bbox: [box.minX, box.minY, box.maxX, box.maxY]))
        case .geocodejson:
            var details: OrderedFields?, admin: OrderedFields?
            if request.addressDetails {
                var fields = OrderedFields(), levels = OrderedFields()
                if let locality { fields.append("city", locality.name) }
                for (level, unit) in units.reversed() where level != .country {
                    fields.append(Self.geocodeJSONType(level), unit.name(language: request.language))
                }
                if let c = resolution.country, request.deepestLevel >= .country {
                    fields.append("country", c.name(language: request.language))
                    fields.append("country_code", c.code.lowercased())
                }
                for (level, unit) in units.reversed() {
                    levels.append("level\(2 * (level.rawValue + 1))", unit.name(language: request.language))
                }
                (details, admin) = (fields, levels)
            }
            return .geocodeJSON(
                .init(
                    summary: summary, query: "\(here.latitude),\(here.longitude)", type: Self.geocodeJSONType(level),
                    details: details, admin: admin))
        }
    }

    /// `address` with Nominatim's keys: in Türkiye `town` (ilçe) and `province` (il), elsewhere
    /// `county` and `state`; `ISO3166-2-lvl4` for provinces with an ISO 3166-2 code; `country`
    /// and `country_code` in lower case;
    /// and the locality as Nominatim names a place by its size (`city`, `town`, `village`).
    func addressFields(
        _ units: [(AdminLevel, UnitReference)], locality: Locality?, country: String,
        language: Language
    ) -> OrderedFields {
        var fields = OrderedFields()
        if let locality { fields.append(Self.localityKey(locality, country: country), locality.name) }
        for (level, unit) in units {
            let name = unit.name(language: language)
            switch level {
            case .district: fields.append(Self.addressType(.district, country: country), name)
            case .province:
                fields.append(Self.addressType(.province, country: country), name)
                if Self.isISO3166_2(unit.code) { fields.append("ISO3166-2-lvl4", unit.code) }
            case .country:
                fields.append("country", name)
                fields.append("country_code", unit.code.lowercased())
            }
        }
        return fields
    }

    /// The answer's locality unless its district bears the same name (Esenyurt: the
    /// district is the town, named once as Nominatim names a place once).
    static func addressLocality(_ resolution: Resolution, language: Language) -> Locality? {
        guard let locality = resolution.locality, resolution.district?.name(language: language) != locality.name else { return nil }
        return locality
    }

    /// Nominatim's key for a populated place: `city` from 100,000 people, `town` from 10,000,
    /// `village` below (GeoNames' figure). In Türkiye `town` already names the district (ilçe),
    /// so a town-sized place there is a `city`.
    static func localityKey(_ locality: Locality, country: String) -> String {
        if locality.population >= 100_000 { return "city" }
        if locality.population >= 10_000 { return country == "TR" ? "city" : "town" }
        return "village"
    }

    static func addressType(_ level: AdminLevel, country: String) -> String {
        switch level {
        case .country: "country"
        case .province: country == "TR" ? "province" : "state"
        case .district: country == "TR" ? "town" : "county"
        }
    }

    static func geocodeJSONType(_ level: AdminLevel) -> String {
        switch level {
        case .country: "country"
        case .province: "state"
        case .district: "county"
        }
    }

    /// `TR-34`, `DE-BE`: two letters, a dash, one to three letters or digits (Roqua's own codes
    /// for units without one, such as `XK-NE4865`, are not ISO 3166-2).
    static func isISO3166_2(_ code: String) -> Bool {
        let parts = code.utf8.split(separator: UInt8(ascii: "-"))
        guard parts.count == 2, parts[0].count == 2, (1...3).contains(parts[1].count) else { return false }
        func upper(_ byte: UInt8) -> Bool { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) }
        return parts[0].allSatisfy(upper) && parts[1].allSatisfy { upper($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    static func licence(country: String) -> String {
        country == "TR"
            ? "Boundaries: HGK (Harita Genel Müdürlüğü) via OCHA/HDX, humanitarian use; Natural Earth (public domain). Offline, by Roqua."
            : "Boundaries: Natural Earth (public domain). Offline, by Roqua."
    }

    /// FNV-1a of the code: the same unit gets the same number in every run.
    static func placeID(_ code: String) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        for byte in code.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return hash & 0x7FFF_FFFF
    }

    /// Seven decimals, as Nominatim prints coordinates.
    static func degrees(_ value: Double) -> String { TextValues.fixed(value, decimals: 7) }
}
