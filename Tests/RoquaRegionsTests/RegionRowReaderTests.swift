import Foundation
import GRDB
import RoquaRegions
import RoquaTestSupport
import Testing

/// The positional row reader against the `Codable` decoder it stands in for: on thousands of
/// generated rows and on rows whose values have other types than the importer writes (left to the
/// decoder, which must then give the same region or set the row aside).
@Suite struct RegionRowReaderTests {
    @Test func readsEveryRowAsTheCodableDecoderDoes() throws {
        let directory = try TempDirectory()
        let store = try RegionStore(path: directory.file("regions.sqlite"))
        var random = SeededGenerator(state: 34)
        let names = ["İstanbul", "Kadıköy", "Türkiye", "", "Ağrı", "東京", "Zürich", "a\u{301}"]
        func name() -> String? { random.next() % 4 == 0 ? nil : names[Int(random.next() % UInt64(names.count))] }
        try store.write { db in
            for i in 0..<3_000 {
                let start = Date(timeIntervalSince1970: 1_400_000_000 + Double(random.next() % 400_000_000) / 1.7)
                let region = VisitedRegion(
                    latitude: Double(Int(random.next() % 179_000_000)) / 1e6 - 89.5,
                    longitude: Double(Int(random.next() % 359_000_000)) / 1e6 - 179.5,
                    radius: 10 + Int(random.next() % 4_990), timestampStart: start,
                    timestampEnd: random.next() % 3 == 0 ? nil : start.addingTimeInterval(Double(random.next() % 90_000)),
                    province: name(), district: name(), country: name(), countryCode: name(), provinceCode: name(),
                    districtCode: name(), geohash: "sxk9by\(i % 10)", visitCount: 1 + Int(random.next() % 50),
                    lastVisit: start.addingTimeInterval(Double(random.next() % 900_000)), enrichedWith: name(),
                    locality: name(), localityID: random.next() % 2 == 0 ? nil : Int64(random.next() % 10_000_000))
                try region.insert(db)
                // Values of other types than the importer writes, one column at a time, on some rows.
                let id = db.lastInsertedRowID
                switch i % 40 {
                case 1: try db.execute(sql: "UPDATE visited_regions SET latitude = 'north' WHERE id = ?", arguments: [id])
                case 2: try db.execute(sql: "UPDATE visited_regions SET latitude = 41 WHERE id = ?", arguments: [id])
                case 3: try db.execute(sql: "UPDATE visited_regions SET radius = 150.5 WHERE id = ?", arguments: [id])
                case 4: try db.execute(sql: "UPDATE visited_regions SET radius = 'wide' WHERE id = ?", arguments: [id])
                case 5: try db.execute(sql: "UPDATE visited_regions SET district = X'4100FF42' WHERE id = ?", arguments: [id])
                case 6: try db.execute(sql: "UPDATE visited_regions SET country = CAST(X'41004200' AS TEXT) WHERE id = ?", arguments: [id])
                case 7:
                    try db.execute(sql: "UPDATE visited_regions SET timestamp_start = '2024-02-30T00:00:00Z' WHERE id = ?", arguments: [id])
                case 8: try db.execute(sql: "UPDATE visited_regions SET timestamp_end = 1700000000 WHERE id = ?", arguments: [id])
                case 9:
                    try db.execute(sql: "UPDATE visited_regions SET last_visit = ' 2024-01-01T00:00:00Z ' WHERE id = ?", arguments: [id])
                case 10: try db.execute(sql: "UPDATE visited_regions SET locality_id = 'x' WHERE id = ?", arguments: [id])
                case 11: try db.execute(sql: "UPDATE visited_regions SET visit_count = 0 WHERE id = ?", arguments: [id])
                case 12: try db.execute(sql: "UPDATE visited_regions SET radius = 900000 WHERE id = ?", arguments: [id])
                case 13: try db.execute(sql: "UPDATE visited_regions SET province = X'C3BC' WHERE id = ?", arguments: [id])
                case 14: try db.execute(sql: "UPDATE visited_regions SET locality = CAST(X'FF41' AS TEXT) WHERE id = ?", arguments: [id])
                case 15: try db.execute(sql: "UPDATE visited_regions SET geohash = 7 WHERE id = ?", arguments: [id])
                case 16:
                    try db.execute(
                        sql: "UPDATE visited_regions SET timestamp_start = '2024-01-01 10:00:00+03:00' WHERE id = ?", arguments: [id])
                default: break
                }
            }
        }
        // What the `Codable` form makes of every row, read the way the store read them before the
        // reader (a cursor over `SELECT *`: GRDB then reads a column with SQLite's own conversions).
        var expected: [VisitedRegion] = [], expectedUnreadable: [Int64] = []
        try store.read { db in
            let rows = try Row.fetchCursor(db, sql: "SELECT * FROM visited_regions ORDER BY id")
            while let row = try rows.next() {
                if let region = try? VisitedRegion(row: row), (try? region.validate()) != nil {
                    expected.append(region)
                } else {
                    expectedUnreadable.append(row["id"])
                }
            }
        }
        let read = try store.allRegions()
        #expect(
            read.count == expected.count && expectedUnreadable.count > 200, "\(read.count) \(expected.count) \(expectedUnreadable.count)")
        for (a, b) in zip(read, expected) where a != b {
            Issue.record("region \(a.id ?? -1) read as \(a), the decoder makes \(b)")
            break
        }
        #expect(try store.unreadableRegions().map(\.id) == expectedUnreadable)
        // The facts `roqua stats` reads: those of the very same regions, the same rows reported.
        var facts: [RegionFacts] = []
        try store.forEachRegionFacts { facts.append($0) }
        #expect(facts == expected.map(RegionFacts.init))
        // The fog's circles: every row with a valid centre and radius, whatever its other columns
        // (SQLite's own reading of the same rule).
        let circles = try store.circles()
        let valid = try store.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT latitude, longitude, radius FROM visited_regions
                    WHERE typeof(latitude) IN ('real', 'integer') AND typeof(longitude) IN ('real', 'integer')
                      AND typeof(radius) = 'integer' AND abs(latitude) <= 90 AND abs(longitude) <= 180 AND radius BETWEEN 1 AND 5000
                    ORDER BY id
                    """
            ).map { (latitude: $0[0] as Double, longitude: $0[1] as Double, radius: $0[2] as Int) }
        }
        #expect(circles.count == valid.count && circles.count > read.count && circles.count < 3_000)
        #expect(zip(circles, valid).allSatisfy { $0.latitude == $1.latitude && $0.longitude == $1.longitude && $0.radius == $1.radius })
        // The rows the reader left to the decoder and the decoder read are among those compared.
        #expect(
            expected.contains { $0.latitude == 41 } && expected.contains { $0.country == "A" } && expected.contains { $0.province == "ü" })
    }

    /// Rows in one place read back sharing one `RegionNames`; a row in another place gets its own,
    /// and a later row back in the first place equal names (by value).
    @Test func neighbouringRowsShareTheirNames() throws {
        let directory = try TempDirectory()
        let store = try RegionStore(path: directory.file("regions.sqlite"))
        let places: [(String, String)] = [
            ("Kadıköy", "TUR034017"), ("Kadıköy", "TUR034017"), ("Beşiktaş", "TUR034007"), ("Kadıköy", "TUR034017"),
        ]
        try store.write { db in
            for (i, (district, code)) in places.enumerated() {
                try VisitedRegion(
                    latitude: 41, longitude: 29 + Double(i) / 100, radius: 100, timestampStart: Date(timeIntervalSince1970: 1_700_000_000),
                    province: "İstanbul", district: district, country: "Türkiye", countryCode: "TR", districtCode: code,
                    geohash: "sxk9", enrichedWith: "2026-11-27T05:41:09Z 29ade4d186b6"
                ).insert(db)
            }
        }
        let read = try store.allRegions()
        #expect(read.count == 4)
        #expect(read[0].names === read[1].names)
        #expect(read[1].names !== read[2].names && read[2].district == "Beşiktaş")
        #expect(read[3].names == read[0].names && read[3] != read[0])
    }
}
