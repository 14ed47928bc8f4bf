import Foundation
import RoquaBoundaries
import RoquaRegions
import RoquaTestSupport
import Testing

@testable import RoquaProgress

/// The report read from a store one region at a time (`ProgressReport(store:)`, what `roqua stats`
/// and `/api/stats` use) against the report of the store's regions as an array, and both against
/// the figures' plain definitions, on regions made to catch a tally out: runs of the same units
/// broken and resumed, starts out of order and equal, revisits, localities sharing an id across
/// countries or named twice, instants after now, rows the store cannot read back.
@Suite struct ProgressTallyTests {
    @Test func theStoreReportIsTheArrayReportAndThePlainDefinitions() throws {
        let hierarchy = try BoundaryHierarchy(database: Bundled.database())
        let provinces = Array((hierarchy.children["TR"] ?? []).sorted().prefix(6))
        var places: [(country: String?, province: String?, district: String?)] = [("GR", nil, nil), (nil, nil, nil), ("TR", nil, nil)]
        for province in provinces {
            places.append(("TR", province, nil))
            for district in (hierarchy.children[province] ?? []).sorted().prefix(3) { places.append(("TR", province, district)) }
        }
        var random = SeededRandom(seed: 20261127)
        let base = 1_700_000_000.0
        var regions: [VisitedRegion] = []
        var place = places[0]
        for index in 0..<4_000 {
            if random.next() % 9 == 0 { place = places[Int(random.next() % UInt64(places.count))] }  // runs, broken and resumed
            // Mostly forwards in time, sometimes back, sometimes the very same instant.
            let start = base + Double(index) * 1_700 - Double(random.next() % 4 == 0 ? random.next() % 400_000 : 0)
            let revisit = random.next() % 5 == 0 ? start + Double(random.next() % 2_000_000) : start
            let locality: (Int64, String)? =
                switch random.next() % 6 {
                case 0: nil
                case 1: (100, "Same id, first name")
                case 2: (100, "Same id, other name")
                case 3: (200 + Int64(random.next() % 5), "Place")
                default: (300, "Third")
                }
            regions.append(
                VisitedRegion(
                    latitude: 39 + Double(index % 50) * 0.01, longitude: 30 + Double(index / 50) * 0.01, radius: 150,
                    timestampStart: Date(timeIntervalSince1970: start), country: place.country.map { "Name of \($0)" },
                    countryCode: place.country, provinceCode: place.province, districtCode: place.district,
                    geohash: "sxk9000", visitCount: revisit == start ? 1 : 2,
                    lastVisit: Date(timeIntervalSince1970: revisit),
                    locality: locality?.1, localityID: locality?.0))
        }
        let directory = try TempDirectory()
        let store = try RegionStore(path: directory.file("regions.sqlite"))
        try store.write { db in
            _ = try VisitedRegion.insert(regions, db)
            // Rows the store cannot read back: left out of both reports.
            try db.execute(sql: "UPDATE visited_regions SET start_ms = 'not a time' WHERE id % 97 = 0")
            try db.execute(sql: "UPDATE visited_regions SET visit_count = 0 WHERE id % 89 = 0")
            try db.execute(sql: "UPDATE visited_regions SET radius = 0 WHERE id % 83 = 0")
        }
        let readable = try store.allRegions()
        #expect(readable.count < regions.count - 100 && readable.count > 3_500)
        let now = Date(timeIntervalSince1970: base + 3_000 * 1_700)  // the last quarter's instants are after now
        let zone = try #require(TimeZone(identifier: "America/St_Johns"))  // half-hour offset, summer time
        let options = ProgressReport.Options(timeZone: zone, decimals: 7, now: now)
        let fromStore = try ProgressReport(store: store, hierarchy: hierarchy, options: options)
        let fromArray = try ProgressReport(regions: readable, hierarchy: hierarchy, options: options)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(try encoder.encode(fromStore) == encoder.encode(fromArray))

        // Every unit's first visit, by definition.
        var first: [String: Date] = [:]
        for region in readable {
            for code in [region.countryCode, region.provinceCode, region.districtCode].compactMap({ $0 }) {
                first[code] = min(first[code] ?? region.timestampStart, region.timestampStart)
            }
        }
        #expect(fromStore.countries.map(\.code).sorted() == ["GR", "TR"])
        #expect(fromStore.countries.allSatisfy { $0.firstVisit == first[$0.code] })
        #expect(fromStore.units.count > 6)
        for unit in fromStore.units {
            #expect(unit.firstVisit == first[unit.code])
            #expect(unit.visitedChildren.allSatisfy { $0.firstVisit == first[$0.code] })
            #expect(unit.visited == (hierarchy.children[unit.code] ?? []).filter { first[$0] != nil }.count)
        }
        // Localities, by definition: each id once per country, its earliest region (the first in id
        // order on a tie) naming it.
        var localities: [String: [Int64: VisitedRegion]] = [:]
        for region in readable {
            guard let country = region.countryCode, let id = region.localityID, region.locality != nil else { continue }
            if let known = localities[country]?[id], known.timestampStart <= region.timestampStart { continue }
            localities[country, default: [:]][id] = region
        }
        #expect(fromStore.localities.count == localities.count)
        for country in fromStore.localities {
            let expected = try #require(localities[country.code])
            #expect(country.localities.count == expected.count)
            for place in country.localities {
                let region = try #require(expected[Int64(place.code)!])
                #expect(place.name == region.locality && place.firstVisit == region.timestampStart)
            }
        }
        #expect(
            fromStore.localities.contains { $0.localities.contains { $0.name == "Same id, other name" } }
                || fromStore.localities.contains { $0.localities.contains { $0.name == "Same id, first name" } })
        // Streak days, by definition: each start and latest visit up to now, in the zone's calendar.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        var days = Set<StreakDay>()
        for region in readable {
            for instant in [region.timestampStart, region.lastVisit] where instant <= now {
                let c = calendar.dateComponents([.year, .month, .day], from: instant)
                days.insert(StreakDay(year: c.year!, month: c.month!, day: c.day!))
            }
        }
        #expect(fromStore.streaks == Streaks.summary(days: days, now: now, timeZone: zone))
        #expect(fromStore.streaks.activeDays == days.count && days.count > 50)

        // Tallied in two halves (as two handles read a big store) and appended: the same figures,
        // wherever the cut falls (inside a run of units, between a locality's tied visits…).
        func figures(_ tally: ProgressTally) throws -> Data {
            var tally = tally
            let (first, localities, days) = tally.finish()
            return try encoder.encode(
                FiguresForTest(
                    regions: tally.regions, circles: tally.circles.map { [$0.latitude, $0.longitude, $0.radius] },
                    first: first, localities: localities, days: days.sorted()))
        }
        func tally(_ slice: ArraySlice<VisitedRegion>) -> ProgressTally {
            var tally = ProgressTally(timeZone: zone, now: now)
            for region in slice { tally.add(RegionFacts(region)) }
            return tally
        }
        let whole = try figures(tally(readable[...]))
        for cut in [0, 1, 17, readable.count / 2, readable.count - 1, readable.count]
            + (0..<20).map({ _ in Int(random.next() % UInt64(readable.count)) })
        {
            var joined = tally(readable[..<cut])
            joined.append(tally(readable[cut...]))
            #expect(try figures(joined) == whole, "cut at \(cut)")
        }
    }

    private struct FiguresForTest: Encodable {
        var regions: Int, circles: [[Double]], first: [String: Date], localities: [CountryLocalities], days: [StreakDay]
    }
}

/// A small seeded generator (SplitMix64).
private struct SeededRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
