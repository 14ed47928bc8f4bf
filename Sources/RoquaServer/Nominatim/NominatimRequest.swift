import Foundation
import RoquaBoundaries
import RoquaIO

/// The output formats of Nominatim's `/reverse` that Roqua speaks (not XML).
enum NominatimFormat: String, CaseIterable {
    case json, jsonv2, geojson, geocodejson
}

/// A `/reverse` query, read as Nominatim reads it: `lat`, `lon` (required), `format`,
/// `zoom` (0–18, the depth of the answer), `addressdetails` (0/1, default 1) and
/// `accept-language` (or the `Accept-Language` header). Other parameters are ignored, as
/// Nominatim ignores what it does not know.
struct NominatimRequest {
    var coordinate: Coordinate
    var format: NominatimFormat
    var zoom: Int
    var addressDetails: Bool
    var language: Language

    /// - Throws: `APIError` (400) with Nominatim's wording for a missing or malformed parameter.
    init(_ query: QueryParameters, acceptLanguage: String?) throws(APIError) {
        guard let latText = query["lat"], let lonText = query["lon"] else {
            throw .badRequest("Need coordinates or OSM object to lookup.")
        }
        guard let lat = TextValues.number(latText) else { throw .badRequest("Floating-point number expected for parameter 'lat'") }
        guard let lon = TextValues.number(lonText) else { throw .badRequest("Floating-point number expected for parameter 'lon'") }
        do {
            coordinate = try Coordinate(latitude: lat, longitude: lon).validated()
        } catch {
            throw .badRequest("Invalid coordinates.")
        }
        let formatText = query["format"] ?? "json"
        guard let format = NominatimFormat(rawValue: formatText) else {
            throw .badRequest("Parameter 'format' must be one of: " + NominatimFormat.allCases.map(\.rawValue).joined(separator: ", ")
                              + " (not \(Echo.quoted(formatText)))")
        }
        self.format = format
        if let zoomText = query["zoom"] {
            guard let zoom = Int(zoomText) else { throw .badRequest("Integer number expected for parameter 'zoom'") }
            self.zoom = min(max(zoom, 0), 18)
        } else {
            zoom = 18
        }
        switch query["addressdetails"] {
        case nil, "1", "true": addressDetails = true
        case "0", "false": addressDetails = false
        default: throw .badRequest("Parameter 'addressdetails' must be 0 or 1")
        }
        language = Self.language(query["accept-language"] ?? acceptLanguage)
    }

    /// The first of `tr` / `en` in a language list (`tr-TR,tr;q=0.9,en;q=0.8`); local names otherwise.
    static func language(_ list: String?) -> Language {
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
    var deepestLevel: AdminLevel {
        switch zoom {
        case ..<5: .country
        case 5..<8: .province
        default: .district
        }
    }
}
