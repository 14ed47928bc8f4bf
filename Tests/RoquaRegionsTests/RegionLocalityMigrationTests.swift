import Foundation
import GRDB
import RoquaBoundaries
import RoquaImport
import RoquaRegions
import RoquaTestSupport
import Testing

/// A store written before localities existed gains the `locality` columns on open, and its
/// regions are re-enriched with their locality by the catch-up.
@Suite struct RegionLocalityMigrationTests {
    /// The v1 schema exactly as the first Roqua wrote it, with one enriched Cape Town region.
    private func oldStore(at path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations VALUES ('v1: visited regions and imports');
                    CREATE TABLE visited_regions (
                        id INTEGER PRIMARY KEY AUTOINCREMENT, latitude REAL NOT NULL, longitude REAL NOT NULL,
                        radius INTEGER NOT NULL, timestamp_start TEXT NOT NULL, timestamp_end TEXT, city TEXT, district TEXT,
                        country TEXT, geohash TEXT NOT NULL, country_code TEXT, province_code TEXT, district_code TEXT,
                        visit_count INTEGER NOT NULL DEFAULT 1, last_visit TEXT NOT NULL, enriched_with TEXT);
                    CREATE TABLE imports (checksum TEXT PRIMARY KEY, file TEXT NOT NULL, format TEXT NOT NULL,
                        imported_at TEXT NOT NULL, fixes_read INTEGER NOT NULL, fixes_dropped INTEGER NOT NULL,
                        new_regions INTEGER NOT NULL, revisits INTEGER NOT NULL);
                    INSERT INTO visited_regions (latitude, longitude, radius, timestamp_start, city, country, geohash,
                        country_code, province_code, last_visit, enriched_with)
                    VALUES (-33.9249, 18.4241, 150, '2026-01-02T10:00:00.000Z', 'Western Cape', 'South Africa', 'k3vp4bp',
                        'ZA', 'ZA-NE2254', '2026-01-02T10:00:00.000Z', '2026-01-01T00:00:00Z');
                    """)
        }
        try queue.close()
    }

    @Test func anOldStoreIsMigratedAndReEnrichedWithLocalities() throws {
        let directory = try TempDirectory()
        let path = directory.file("regions.sqlite")
        try oldStore(at: path)
        let store = try RegionStore(path: path)
        let columns = try store.read { db in try db.columns(in: "places").map(\.name) }
        #expect(columns.contains("locality") && columns.contains("locality_id"))
        let before = try store.allRegions()
        #expect(before.count == 1 && before[0].locality == nil && before[0].enrichedWith == nil)

        let enricher = try RegionEnricher(boundaries: Bundled.path())
        let stale = try store.regionsNeedingEnrichment(current: enricher.identity, all: false)
        #expect(stale.count == 1)
        #expect(try store.enrich(stale, with: enricher) == 1)
        let after = try #require(try store.allRegions().first)
        #expect(after.locality == "Cape Town")
        #expect(after.localityID == 3_369_157)
        #expect(after.provinceCode == "ZA-WC")
        #expect(try store.regionsNeedingEnrichment(current: enricher.identity, all: false).isEmpty)
    }
}

/// Two boundary databases built within one second (a rebuild, then a layer added) are told apart.
@Suite struct EnricherIdentityTests {
    @Test func databasesFromOtherLayersDifferEvenWithinOneSecond() throws {
        let directory = try TempDirectory()
        var identities: [String] = []
        for withDistricts in [false, true] {
            var fixture = AdminFixture.standard()
            if !withDistricts { fixture.layers.removeAll { $0.file == "districts.shp" } }
            let source = directory.file(withDistricts ? "with" : "without")
            try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
            try fixture.write(in: source)
            let output = directory.file(withDistricts ? "with.sqlite" : "without.sqlite")
            _ = try BoundaryImporter.run(BoundaryImportOptions(sources: [source], output: output))
            identities.append(try RegionEnricher(boundaries: output).identity)
        }
        #expect(identities[0] != identities[1], "\(identities)")
    }
}
