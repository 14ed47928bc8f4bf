import Foundation
import RoquaBoundaries
import RoquaIO

/// The output formats of Nominatim's `/reverse` that Roqua speaks (not XML).
package enum NominatimFormat: String, CaseIterable, Sendable {
    case json, jsonv2, geojson, geocodejson
}

/// A `/reverse` query, read as Nominatim reads it: `lat`, `lon` (required), `format`,
/// `zoom` (0–18, the depth of the answer), `addressdetails` (0/1, default 1) and
/// `accept-language` (or the `Accept-Language` header). Other parameters are ignored, as
/// Nominatim ignores what it does not know.
package struct NominatimRequest: Sendable {
    package var coordinate: Coordinate
    package var format: NominatimFormat
    package var zoom: Int
    package var addressDetails: Bool
    package var language: Language

    /// - Throws: `BadRequest` with Nominatim's wording for a missing or malformed parameter.
    package init(_ query: QueryParameters, acceptLanguage: String?) throws(BadRequest) {
        guard let latText = query["lat"], let lonText = query["lon"] else {
            throw BadRequest("Need coordinates or OSM object to lookup.")
        }
        guard let lat = TextValues.number(latText) else { throw BadRequest("Floating-point number expected for parameter 'lat'") }
        guard let lon = TextValues.number(lonText) else { throw BadRequest("Floating-point number expected for parameter 'lon'") }
        do {
            coordinate = try Coordinate(latitude: lat, longitude: lon).validated()
        } catch {
            throw BadRequest("Invalid coordinates.")
        }
        let formatText = query["format"] ?? "json"
        guard let format = NominatimFormat(rawValue: formatText) else {
            throw BadRequest(
                "Parameter 'format' must be one of: " + NominatimFormat.allCases.map(\.rawValue).joined(separator: ", ")
                    + " (not \(Echo.quoted(formatText)))")
        }
        self.format = format
        if let zoomText = query["zoom"] {
            guard let zoom = Int(zoomText) else { throw BadRequest("Integer number expected for parameter 'zoom'") }
            self.zoom = min(max(zoom, 0), 18)
        } else {
            zoom = 18
        }
        switch query["addressdetails"] {
        case nil, "1", "true": addressDetails = true
        case "0", "false": addressDetails = false
        default: throw BadRequest("Parameter 'addressdetails' must be 0 or 1")
        }
        language = Self.language(query["accept-language"] ?? acceptLanguage)
    }

    /// The first of `tr` / `en` in a language list (`tr-TR,tr;q=0.9,en;q=0.8`); local names otherwise.
    package static func language(_ list: String?) -> Language {
        guard let list else { return .local }
        for entry in list.split(separator: ",") {
            let tag = entry.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
            let primary = tag.split(separator: "-").first.map(String.init) ?? tag
            if primary == "tr" { return .tr }
            if primary == "en" { return .en }
        }
        return .local
    }

    /// The deepest level `zoom` allows, as Nominatim's zoom chooses a rank: 0–4 country,
    /// 5–7 state (province), 8 and more county (district).
    package var deepestLevel: AdminLevel {
        switch zoom {
        case ..<5: .country
        case 5..<8: .province
        default: .district
        }
    }
}
