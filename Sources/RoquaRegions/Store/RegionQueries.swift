import Foundation
import GRDB
import RoquaBoundaries

extension RegionStore {
    /// A value that changes whenever an import (a file, an upload, a batch posted live) or a
    /// restore changes the store: the page polls it to redraw without a reload.
    package func changeMark() throws -> String {
        try read { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT (SELECT COUNT(*) FROM imports) AS imports, (SELECT IFNULL(MAX(id), 0) FROM visited_regions) AS last,
                           (SELECT COUNT(*) FROM visited_regions) AS regions
                    """)
            return "\(row?["imports"] as Int? ?? 0)-\(row?["last"] as Int? ?? 0)-\(row?["regions"] as Int? ?? 0)"
        }
    }

    /// Regions lying in the unit named by `unit`: a code (`TR-34`, `TUR034023`, `TR`) or a name
    /// (`istanbul`, `Kadıköy`), matched without case or Turkish dots mattering.
    /// - Throws: `RegionStoreError.cannotOpen` when the store cannot be read.
    public func regions(in unit: String) throws -> [VisitedRegion] {
        let wanted = NameFolding.fold(unit)
        return try allRegions().filter { region in
            [region.countryCode, region.provinceCode, region.districtCode, region.country, region.province, region.district]
                .contains { $0.map(NameFolding.fold) == wanted }
        }
    }

    /// Regions whose names are missing, or (with `all`) were filled from another boundary DB.
    /// - Throws: `RegionStoreError.cannotOpen` when the store cannot be read.
    public func regionsNeedingEnrichment(current identity: String, all: Bool) throws -> [VisitedRegion] {
        try read { db in
            try Self.regions(
                db, where: "place_id IN (SELECT id FROM places WHERE enriched_with IS NULL OR (? AND enriched_with != ?))",
                arguments: [all, identity]
            ).readable
        }
    }

    /// Re-resolves regions offline and saves them in one transaction; returns how many changed.
    /// - Throws: `ResolveError` when a region's centre cannot be resolved (nothing is saved then);
    ///   `RegionStoreError.cannotWrite` when the transaction fails.
    public func enrich(_ regions: [VisitedRegion], with enricher: RegionEnricher) throws -> Int {
        let updated = try regions.map { try enricher.enriched($0) }
        return try write { db in
            var changed = 0
            var writer = try RegionWriter(db)
            for (old, new) in zip(regions, updated) {
                try writer.rename(new.id, new.names, db)
                var renamed = old
                renamed.enrichedWith = new.enrichedWith
                if renamed != new { changed += 1 }
            }
            try PlaceTable.dropUnused(db)
            return changed
        }
    }
}
