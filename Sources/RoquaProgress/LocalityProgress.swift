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
        var tally = LocalityTally()
        for region in regions {
            tally.add(
                countryCode: region.countryCode, country: region.country, id: region.localityID, name: region.locality,
                start: region.timestampStart)
        }
        return tally.finish()
    }

    /// `Germany: 2 localities (Berlin, Potsdam)`, the names cut after ten (`…, and 4 more`).
    public var label: String {
        let shown =
            localities.prefix(10).map(\.name).joined(separator: ", ")
            + (localities.count > 10 ? ", … and \(localities.count - 10) more" : "")
        return "\(name): \(localities.count) localit\(localities.count == 1 ? "y" : "ies") (\(shown))"
    }
}
