import Foundation
import GRDB
import RoquaTestSupport
import Testing

@testable import RoquaRegions

/// The v10 upgrade: a store whose regions carry their names and ISO 8601 times as text becomes
/// one of places and integer times, every region reading back as it did, an unreadable row still
/// reported (not lost), ids and the id sequence kept, and a copy of the old store kept beside it.
@Suite struct PlaceMigrationTests {
    /// A v9 store: two regions in Kadıköy, two named nothing (one with a time at +03:00), one in
    /// Atlantis whose start does not parse, and a sixth region deleted (the id sequence is at 6).
    private func v9Store(at path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try RegionSchema.migrator.migrate(queue, upTo: RegionSchema.photoFolders)
        try queue.write { db in
            let named =
                "'İstanbul', 'Kadıköy', 'Türkiye', 'TR', 'TR-34', 'TUR034017', 'Kadıköy', 745044, '2026-11-27T05:41:09Z 29ade4d186b6'"
            try db.execute(
                sql: """
                    INSERT INTO visited_regions (latitude, longitude, radius, timestamp_start, timestamp_end, geohash, visit_count,
                        last_visit, province, district, country, country_code, province_code, district_code, locality, locality_id,
                        enriched_with)
                    VALUES (40.99, 29.03, 150, '2024-05-01T08:00:00.123Z', '2024-05-01T09:30:00.000Z', 'sxk9ht9', 3,
                                '2024-05-03T18:00:00.000Z', \(named)),
                           (40.98, 29.05, 150, '2024-05-02T08:00:00.000Z', NULL, 'sxk9hv1', 1, '2024-05-02T08:00:00.000Z', \(named)),
                           (0.5, -30.25, 500, '2024-06-01T00:00:00.000Z', NULL, 'e9r0000', 1, '2024-06-01T00:00:00.000Z',
                                NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                           (0.6, -30.25, 500, '2024-06-01 10:00:00+03:00', NULL, 'e9r0001', 1, '2024-06-01T07:00:00.000Z',
                                NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                           (0.7, -30.25, 500, 'yesterday', NULL, 'e9r0002', 1, '2024-06-01T07:00:00.000Z',
                                NULL, NULL, 'Atlantis', NULL, NULL, NULL, NULL, NULL, NULL),
                           (0.8, -30.25, 500, '2024-06-02T00:00:00.000Z', NULL, 'e9r0003', 1, '2024-06-02T00:00:00.000Z',
                                NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
                    DELETE FROM visited_regions WHERE id = 6;
                    """)
        }
        try queue.close()
    }

    @Test func regionsReadBackAsTheyWereWithTheirNamesOncePerPlace() throws {
        let directory = try TempDirectory()
        let path = directory.file("regions.sqlite")
        try v9Store(at: path)
        var copy: String?
        let store = try RegionStore(path: path, upgraded: { copy = $0 })
        #expect(copy == path + ".before-upgrade" && FileManager.default.fileExists(atPath: path + ".before-upgrade"))

        let regions = try store.allRegions()
        #expect(regions.map(\.id) == [1, 2, 3, 4])
        let time = { (text: String) in StoreTime.date(text)! }
        #expect(
            regions[0]
                == VisitedRegion(
                    id: 1, latitude: 40.99, longitude: 29.03, radius: 150, timestampStart: time("2024-05-01T08:00:00.123Z"),
                    timestampEnd: time("2024-05-01T09:30:00.000Z"), province: "İstanbul", district: "Kadıköy", country: "Türkiye",
                    countryCode: "TR", provinceCode: "TR-34", districtCode: "TUR034017", geohash: "sxk9ht9", visitCount: 3,
                    lastVisit: time("2024-05-03T18:00:00.000Z"), enrichedWith: "2026-11-27T05:41:09Z 29ade4d186b6",
                    locality: "Kadıköy", localityID: 745044))
        #expect(regions[1].names === regions[0].names && regions[1].timestampEnd == nil)
        #expect(regions[2].names == RegionNames.none && regions[3].names == RegionNames.none)
        #expect(try StoreTime.text(regions[3].timestampStart) == "2024-06-01T07:00:00.000Z")
        #expect(try store.unreadableRegions().map(\.description) == ["region 5: start_ms holds 'yesterday', not milliseconds since 1970"])

        let (places, sequence, columns) = try store.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM places"),
                try Int.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'visited_regions'"),
                try db.columns(in: "visited_regions").map(\.name)
            )
        }
        #expect(places == 3 && sequence == 6)
        #expect(columns == RegionRowReader.columns.components(separatedBy: ", "))
        // The sequence kept: a new region does not take the deleted region's id.
        try store.write { db in
            try VisitedRegion(latitude: 1, longitude: 1, radius: 100, timestampStart: Date(timeIntervalSince1970: 0), geohash: "s000")
                .insert(db)
        }
        #expect(try store.allRegions().last?.id == 7)
        // Repairing drops the unreadable row and leaves no place without a region: Atlantis goes.
        #expect(try store.removeUnreadableRegions().map(\.id) == [5])
        let countries = try store.read { db in try String?.fetchAll(db, sql: "SELECT country FROM places ORDER BY id") }
        #expect(countries == ["Türkiye", nil])
    }
}
