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

    /// The JSON of one answer (`ResolutionAnswer`), keys in the documented order; absent levels are `null`.
    public func json(language: Language) -> String {
        // Every number in an answer is finite (a validated coordinate, a distance): nothing fails to encode.
        (try? OrderedJSONEncoder().encode(ResolutionAnswer(self, language: language), capacity: 256))
            .map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}

/// One answer as `roqua resolve --json` and the batches write it:
/// `{"lat":…,"lon":…,"country":{"code":…,"name":…},"province":…,"district":…,"approximate":…}`,
/// a level without a unit `null`, then `distance_m` when approximate and `locality` when one was
/// looked up (`null` when none was found).
package struct ResolutionAnswer: OrderedJSON {
    package let resolution: Resolution
    package let language: Language

    package init(_ resolution: Resolution, language: Language) {
        self.resolution = resolution
        self.language = language
    }

    package func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: JSONKey.self)
        try encodeMembers(into: &object)
    }

    /// The answer's members into an object the caller has begun (a batch line puts its row first).
    package func encodeMembers(into object: inout KeyedEncodingContainer<JSONKey>) throws {
        try object.encode(resolution.coordinate.latitude, forKey: "lat")
        try object.encode(resolution.coordinate.longitude, forKey: "lon")
        for (key, unit) in [("country", resolution.country), ("province", resolution.province), ("district", resolution.district)] {
            if let unit {
                try object.encode(UnitAnswer(unit, language: language), forKey: JSONKey(key))
            } else {
                try object.encodeNil(forKey: JSONKey(key))
            }
        }
        try object.encode(resolution.approximate, forKey: "approximate")
        if let meters = resolution.distanceMeters { try object.encode((meters * 10).rounded() / 10, forKey: "distance_m") }
        if resolution.localityChecked {
            if let locality = resolution.locality {
                try object.encode(LocalityAnswer(locality), forKey: "locality")
            } else {
                try object.encodeNil(forKey: "locality")
            }
        }
    }
}

/// A unit in an answer: `{"code":…,"name":…}`, the name in the answer's language.
package struct UnitAnswer: OrderedJSON {
    let code: String
    let name: String

    package init(_ unit: UnitReference, language: Language) {
        code = unit.code
        name = unit.name(language: language)
    }
}

/// A batch row that could not be answered, in an answer's place: every key of an answer
/// `null` (`locality` too when the batch names localities), then `error`.
package struct FailedRowAnswer: OrderedJSON {
    let error: String
    let withLocality: Bool

    package init(error: String, withLocality: Bool) {
        self.error = error
        self.withLocality = withLocality
    }

    package func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: JSONKey.self)
        for key in ["lat", "lon", "country", "province", "district", "approximate"] + (withLocality ? ["locality"] : []) {
            try object.encodeNil(forKey: JSONKey(key))
        }
        try object.encode(error, forKey: "error")
    }
}

/// A locality in an answer: its name, GeoNames id and population.
package struct LocalityAnswer: OrderedJSON {
    let name: String
    let geonameid: Int64
    let population: Int

    package init(_ locality: Locality) {
        name = locality.name
        geonameid = locality.geonameID
        population = locality.population
    }
}
