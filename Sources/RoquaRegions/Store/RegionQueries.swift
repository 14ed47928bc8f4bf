import Foundation
import RoquaBoundaries

extension RegionStore {
    /// Regions lying in the unit named by `unit`: a code (`TR-34`, `TUR034023`, `TR`) or a name
    /// (`istanbul`, `Kadıköy`), matched without case or Turkish dots mattering.
    public func regions(in unit: String) throws -> [VisitedRegion] {
        let wanted = NameFolding.fold(unit)
        return try allRegions().filter { region in
            [region.countryCode, region.provinceCode, region.districtCode, region.country, region.city, region.district]
                .contains { $0.map(NameFolding.fold) == wanted }
        }
    }

    /// Regions whose names are missing, or (with `all`) were filled from another boundary DB.
    public func regionsNeedingEnrichment(current identity: String, all: Bool) throws -> [VisitedRegion] {
        try read { db in
            try RegionRecord.fetchAll(db, sql: """
                SELECT * FROM visited_regions WHERE enriched_with IS NULL OR (? AND enriched_with != ?) ORDER BY id
                """, arguments: [all, identity]).map(\.region)
        }
    }

    /// Re-resolves regions offline and saves them in one transaction; returns how many changed.
    public func enrich(_ regions: [VisitedRegion], with enricher: RegionEnricher) throws -> Int {
        let updated = try regions.map { try enricher.enriched($0) }
        return try write { db in
            var changed = 0
            for (old, new) in zip(regions, updated) {
                try RegionRecord(region: new, enrichedWith: enricher.identity).update(db)
                if old != new { changed += 1 }
            }
            return changed
        }
    }
}
