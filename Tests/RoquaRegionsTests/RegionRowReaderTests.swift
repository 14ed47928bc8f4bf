import Foundation
import GRDB
import RoquaRegions
import RoquaTestSupport
import Synchronization
import Testing

/// The positional row reader: on thousands of generated rows, and on rows whose values have other
/// types or ranges than the store writes, each of which must be set aside naming its column.
@Suite struct RegionRowReaderTests {
    @Test func readsEveryRowItsWriterWroteAndNamesWhatIsWrongWithTheRest() throws {
        let directory = try TempDirectory()
        let store = try RegionStore(path: directory.file("regions.sqlite"))
        var random = SeededGenerator(state: 34)
        let names = ["İstanbul", "Kadıköy", "Türkiye", "", "Ağrı", "東京", "Zürich", "a\u{301}"]
        func name() -> String? { random.next() % 4 == 0 ? nil : names[Int(random.next() % UInt64(names.count))] }
        var expected: [VisitedRegion] = [], expectedUnreadable: [String] = []
        let written = (0..<3_000).map { i in
            let start = Date(timeIntervalSince1970: 1_400_000_000 + Double(random.next() % 400_000_000) / 1.7)
            return VisitedRegion(
                latitude: Double(Int(random.next() % 179_000_000)) / 1e6 - 89.5,
                longitude: Double(Int(random.next() % 359_000_000)) / 1e6 - 179.5,
                radius: 10 + Int(random.next() % 4_990), timestampStart: start,
                timestampEnd: random.next() % 3 == 0 ? nil : start.addingTimeInterval(Double(random.next() % 90_000)),
                province: name(), district: name(), country: name(), countryCode: name(), provinceCode: name(),
                districtCode: name(), geohash: "sxk9by\(i % 10)", visitCount: 1 + Int(random.next() % 50),
                lastVisit: start.addingTimeInterval(Double(random.next() % 900_000)), enrichedWith: name(),
                locality: name(), localityID: random.next() % 2 == 0 ? nil : Int64(random.next() % 10_000_000))
        }
        try store.write { db in
            let ids = try VisitedRegion.insert(written, db)
            for (i, var region) in written.enumerated() {
                let id = ids[i]
                region.id = id
                region.timestampStart = StoreTime.rounded(region.timestampStart)
                region.timestampEnd = region.timestampEnd.map(StoreTime.rounded)
                region.lastVisit = StoreTime.rounded(region.lastVisit)
                // Values of other types or ranges than the store writes, one column at a time, on some rows.
                func set(_ assignment: String, problem: String?) throws {
                    try db.execute(sql: "UPDATE visited_regions SET \(assignment) WHERE id = ?", arguments: [id])
                    if let problem { expectedUnreadable.append("region \(id): \(problem)") }
                }
                func placed(_ district: String, problem: String?) throws {
                    try db.execute(sql: "INSERT INTO places (district, locality) VALUES (\(district))")
                    try set("place_id = \(db.lastInsertedRowID)", problem: problem)
                }
                switch i % 40 {
                case 1: try set("latitude = 'north'", problem: "latitude has the wrong type")
                case 2:
                    try set("latitude = 41", problem: nil)
                    region.latitude = 41
                case 3: try set("radius = 150.5", problem: "radius has the wrong type")
                case 4: try set("radius = 'wide'", problem: "radius has the wrong type")
                case 5: try placed("X'4100FF42', NULL", problem: "its place's district has the wrong type")
                case 6: try placed("NULL, X'01'", problem: "its place's locality has the wrong type")
                case 7:
                    try set(
                        "start_ms = '2024-02-03T00:00:00Z'", problem: "start_ms holds '2024-02-03T00:00:00Z', not milliseconds since 1970")
                case 8: try set("end_ms = 1700000000.5", problem: "end_ms has the wrong type")
                case 9:
                    try set("last_visit_ms = 300000000000000", problem: "last_visit_ms 300000000000000 is outside the years 0000–9999")
                case 10: try set("place_id = 987654321", problem: "place_id 987654321 names no place")
                case 11: try set("visit_count = 0", problem: "visit_count 0 must be positive")
                case 12: try set("radius = 900000", problem: "radius 900000 m is outside 1…5000 m")
                case 13:
                    try placed("CAST(X'C3BC' AS TEXT), CAST(X'FF41' AS TEXT)", problem: nil)
                    region.names =
                        VisitedRegion(
                            latitude: 0, longitude: 0, radius: 1, timestampStart: .now, district: "ü", geohash: "", locality: "\u{FFFD}A"
                        ).names
                case 14: try set("geohash = X'07'", problem: "geohash has the wrong type")
                case 15:
                    try set("end_ms = NULL", problem: nil)
                    region.timestampEnd = nil
                case 16: try set("place_id = X'03'", problem: "place_id has the wrong type")
                case 17:  // two columns wrong: the first is named, by every reader
                    try set("geohash = X'07'", problem: nil)
                    try set("latitude = 'north'", problem: "latitude has the wrong type")
                default: break
                }
                if expectedUnreadable.last?.hasPrefix("region \(id):") != true { expected.append(region) }
            }
        }
        let read = try store.allRegions()
        #expect(
            read.count == expected.count && expectedUnreadable.count > 500, "\(read.count) \(expected.count) \(expectedUnreadable.count)")
        for (a, b) in zip(read, expected) where a != b {
            Issue.record("region \(a.id ?? -1) read as \(a), written as \(b)")
            break
        }
        let unreadable = try store.unreadableRegions().map(\.description)
        #expect(unreadable == expectedUnreadable, "\(Set(unreadable).symmetricDifference(expectedUnreadable).sorted().prefix(6))")
        // The facts `roqua stats` reads: those of the very same regions, the same rows reported.
        let reported = Mutex<[String]>([])
        let reporting = try RegionStore(
            path: directory.file("regions.sqlite"), unreadable: { rows in reported.withLock { $0 += rows.map(\.description) } })
        var facts: [RegionFacts] = []
        try reporting.forEachRegionFacts { facts.append($0) }
        #expect(facts == expected.map(RegionFacts.init))
        #expect(reported.withLock { $0 } == expectedUnreadable)
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
        // The rows with other values the reader reads are among those compared.
        #expect(
            expected.contains { $0.latitude == 41 } && expected.contains { $0.district == "ü" && $0.locality == "\u{FFFD}A" })
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
