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

    static let unableToGeocode = "{\"error\":\"Unable to geocode\"}"

    /// The levels of the answer down to the one `request` allows, deepest first.
    func units(_ resolution: Resolution, _ request: NominatimRequest) -> [(AdminLevel, UnitReference)] {
        AdminLevel.deepestFirst.filter { $0 <= request.deepestLevel }.compactMap { level in resolution.unit(level).map { (level, $0) } }
    }

    /// The document for `resolution`, or Nominatim's "Unable to geocode" when no level is left.
    func document(_ resolution: Resolution, _ request: NominatimRequest) -> String {
        let units = units(resolution, request)
        guard let (level, place) = units.first else { return Self.unableToGeocode }
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
        let box = catalog.records[place.code]?.box
            ?? BoundingBox(minX: here.longitude, minY: here.latitude, maxX: here.longitude, maxY: here.latitude)
        let placeID = Self.placeID(place.code)
        let licence = country == "TR" ? Self.quotedLicenceTR : Self.quotedLicence
        let address = request.addressDetails
            ? addressObject(units, locality: locality, country: country, language: request.language) : nil
        let kind = Self.addressType(level, country: country)
        let rank = [AdminLevel.country: 4, .province: 8, .district: 12][level] ?? 4
        switch request.format {
        case .json, .jsonv2:
            var out = "{\"place_id\":\(placeID),\"licence\":\(licence),\"lat\":\"\(Self.degrees(point.latitude))\","
                + "\"lon\":\"\(Self.degrees(point.longitude))\","
            out += request.format == .json ? "\"class\":\"boundary\"," : "\"category\":\"boundary\","
            out += "\"type\":\"administrative\",\"place_rank\":\(rank),\"addresstype\":\"\(kind)\",\"name\":\(JSONText.quote(name)),"
                + "\"display_name\":\(JSONText.quote(display))"
            if let address { out += ",\"address\":" + address }
            out += ",\"boundingbox\":[\"\(Self.degrees(box.minY))\",\"\(Self.degrees(box.maxY))\",\"\(Self.degrees(box.minX))\","
                + "\"\(Self.degrees(box.maxX))\"]"
            return out + "}"
        case .geojson:
            var properties = "\"place_id\":\(placeID),\"place_rank\":\(rank),\"category\":\"boundary\",\"type\":\"administrative\","
                + "\"addresstype\":\"\(kind)\",\"name\":\(JSONText.quote(name)),\"display_name\":\(JSONText.quote(display))"
            if let address { properties += ",\"address\":" + address }
            var feature = "{\"type\":\"Feature\",\"properties\":{\(properties)}"
            feature += ",\"bbox\":[\(box.minX),\(box.minY),\(box.maxX),\(box.maxY)]"
            feature += ",\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(Self.degrees(point.longitude)),\(Self.degrees(point.latitude))]}}"
            return "{\"type\":\"FeatureCollection\",\"licence\":\(licence),\"features\":[\(feature)]}"
        case .geocodejson:
            var geocoding = "\"place_id\":\(placeID),\"osm_key\":\"boundary\",\"osm_value\":\"administrative\","
                + "\"type\":\"\(Self.geocodeJSONType(level))\",\"label\":\(JSONText.quote(display)),\"name\":\(JSONText.quote(name))"
            if request.addressDetails {
                if let locality { geocoding += ",\"city\":\(JSONText.quote(locality.name))" }
                for (level, unit) in units.reversed() where level != .country {
                    geocoding += ",\"\(Self.geocodeJSONType(level))\":\(JSONText.quote(unit.name(language: request.language)))"
                }
                if let c = resolution.country, request.deepestLevel >= .country {
                    geocoding += ",\"country\":\(JSONText.quote(c.name(language: request.language))),"
                        + "\"country_code\":\(JSONText.quote(c.code.lowercased()))"
                }
                let admin = units.reversed().map { "\"level\(2 * ($0.0.rawValue + 1))\":\(JSONText.quote($0.1.name(language: request.language)))" }
                geocoding += ",\"admin\":{" + admin.joined(separator: ",") + "}"
            }
            let query = "\(resolution.coordinate.latitude),\(resolution.coordinate.longitude)"
            return "{\"type\":\"FeatureCollection\",\"geocoding\":{\"version\":\"0.1.0\",\"attribution\":\(licence),"
                + "\"licence\":\(licence),\"query\":\(JSONText.quote(query))},\"features\":[{\"type\":\"Feature\","
                + "\"properties\":{\"geocoding\":{\(geocoding)}},\"geometry\":{\"type\":\"Point\","
                + "\"coordinates\":[\(Self.degrees(point.longitude)),\(Self.degrees(point.latitude))]}}]}"
        }
    }

    /// `address` with Nominatim's keys: in Türkiye `town` (ilçe) and `province` (il), elsewhere
    /// `county` and `state`; `ISO3166-2-lvl4` for provinces with an ISO 3166-2 code; `country`
    /// and `country_code` in lower case;
    /// and the locality as Nominatim names a place by its size (`city`, `town`, `village`).
    func addressObject(_ units: [(AdminLevel, UnitReference)], locality: Locality?, country: String, language: Language) -> String {
        var out = "{"
        if let locality {
            out += "\"\(Self.localityKey(locality, country: country))\":\(JSONText.quote(locality.name))"
        }
        for (level, unit) in units {
            if out.utf8.count > 1 { out += "," }
            let name = JSONText.quote(unit.name(language: language))
            switch level {
            case .district: out += "\"\(Self.addressType(.district, country: country))\":\(name)"
            case .province:
                out += "\"\(Self.addressType(.province, country: country))\":\(name)"
                if Self.isISO3166_2(unit.code) { out += ",\"ISO3166-2-lvl4\":\(JSONText.quote(unit.code))" }
            case .country:
                out += "\"country\":\(name),\"country_code\":\(JSONText.quote(unit.code.lowercased()))"
            }
        }
        return out + "}"
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

    /// The two licences as JSON strings, quoted once (every answer carries one).
    static let quotedLicenceTR = JSONText.quote(licence(country: "TR"))
    static let quotedLicence = JSONText.quote(licence(country: ""))

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
