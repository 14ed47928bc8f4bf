import Foundation
import RoquaText

extension Resolution {
    /// `Türkiye › İstanbul › Kadıköy`, then the locality when one was looked up (`South Africa ›
    /// Western Cape › Cape Town`), with a note when approximate or empty.
    public func text(language: Language) -> String {
        let names = names(language: language)
        if names.isEmpty { return "no boundary here (open sea or unmapped)" }
        let path = names.joined(separator: " › ")
        guard approximate else { return path }
        return path + " (approximate: nearest boundary \(Int((distanceMeters ?? 0).rounded())) m away)"
    }

    /// The one list of names every form of an answer shows (the CLI's line, `/reverse`'s
    /// `display_name`, a shared location's address in the tour-group chat): the country, the
    /// province and the district, then the locality where one was looked up and it adds a name
    /// ("Adalar › Adalar" says nothing new, so a locality named like its district is left out).
    public func names(language: Language) -> [String] {
        var names = [country, province, district].compactMap { $0?.name(language: language) }
        if let place = locality?.name, place != names.last { names.append(place) }
        return names
    }

    /// The same names as an address line, deepest first (`Moda, Kadıköy, İstanbul, Türkiye`);
    /// nil outside every boundary.
    public func address(language: Language) -> String? {
        let names = names(language: language)
        return names.isEmpty ? nil : names.reversed().joined(separator: ", ")
    }

    /// The JSON of one answer, keys in the documented order; absent levels are `null`.
    public func json(language: Language) -> String {
        var out = "{\"lat\":\(coordinate.latitude),\"lon\":\(coordinate.longitude)"
        for (key, unit) in [("country", country), ("province", province), ("district", district)] {
            out += ",\"\(key)\":"
            if let unit {
                out += "{\"code\":\(JSONText.quote(unit.code)),\"name\":\(JSONText.quote(unit.name(language: language)))}"
            } else {
                out += "null"
            }
        }
        out += ",\"approximate\":\(approximate)"
        if let distanceMeters { out += ",\"distance_m\":\((distanceMeters * 10).rounded() / 10)" }
        if localityChecked { out += ",\"locality\":" + Self.localityJSON(locality) }
        return out + "}"
    }

    /// `{"name":…,"geonameid":…,"population":…}` or `null`: the same text in single and batch answers.
    package static func localityJSON(_ locality: Locality?) -> String {
        guard let locality else { return "null" }
        return "{\"name\":\(JSONText.quote(locality.name)),\"geonameid\":\(locality.geonameID),\"population\":\(locality.population)}"
    }
}
