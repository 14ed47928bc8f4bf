import Foundation
import RoquaRegions

/// The localities (GeoNames towns and cities) visited in one country, in the order first visited.
public struct CountryLocalities: Sendable, Codable, Equatable {
    /// The country's code.
    public var code: String
    /// The country's local name, as the regions store it.
    public var name: String
    /// Each locality once (by GeoNames id), earliest first visit first.
    public var localities: [ChildVisit]

    /// Counts visited localities per country, countries by their earliest locality visit.
    /// Regions without a locality (not yet enriched, or beyond every place's reach) do not count.
    public static func of(_ regions: [VisitedRegion]) -> [CountryLocalities] {
        var first: [String: [Int64: ChildVisit]] = [:]
        var names: [String: String] = [:]
        for region in regions {
            guard let country = region.countryCode, let id = region.localityID, let name = region.locality else { continue }
            names[country] = names[country] ?? region.country ?? country
            let visit = ChildVisit(code: String(id), name: name, firstVisit: region.timestampStart)
            if let known = first[country]?[id], let date = known.firstVisit, date <= region.timestampStart { continue }
            first[country, default: [:]][id] = visit
        }
        let countries = first.map { code, places in
            CountryLocalities(code: code, name: names[code] ?? code, localities: places.values.sorted {
                ($0.firstVisit ?? .distantFuture, $0.code) < ($1.firstVisit ?? .distantFuture, $1.code)
            })
        }
        return countries.sorted {
            ($0.localities.first?.firstVisit ?? .distantFuture, $0.code) < ($1.localities.first?.firstVisit ?? .distantFuture, $1.code)
        }
    }

    /// `Germany: 2 localities (Berlin, Potsdam)`, the names cut after ten (`…, and 4 more`).
    public var label: String {
        let shown = localities.prefix(10).map(\.name).joined(separator: ", ")
            + (localities.count > 10 ? ", … and \(localities.count - 10) more" : "")
        return "\(name): \(localities.count) localit\(localities.count == 1 ? "y" : "ies") (\(shown))"
    }
}
