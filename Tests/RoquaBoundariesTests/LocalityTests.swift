import Foundation
import GRDB
import RoquaBoundaries
import RoquaTestSupport
import Testing

/// Localities from the bundled GeoNames table: the town a traveller expects, never one of another
/// country than the one Roqua's polygons decided, and none at sea.
@Suite struct LocalityTests {
    private func answer(_ lat: Double, _ lon: Double) throws -> Resolution {
        let index = try Bundled.index()
        return try index.withLocality(Resolver(index: index).resolve(latitude: lat, longitude: lon))
    }

    @Test(arguments: [
        (52.5200, 13.4050, "DE", "DE-BE", "Berlin"),
        (40.6401, 22.9444, "GR", "GR-B", "Thessaloníki"),
        (-33.9249, 18.4241, "ZA", "ZA-WC", "Cape Town"),
        (48.8566, 2.3522, "FR", "FR-75", "Paris"),
    ])
    func citiesAbroad(lat: Double, lon: Double, country: String, province: String, locality: String) throws {
        let a = try answer(lat, lon)
        #expect(a.country?.code == country)
        #expect(a.province?.code == province)
        #expect(a.locality?.name == locality)
        #expect(a.localityChecked)
    }

    @Test func aSuburbInsideTheCitysReachGetsTheCity() throws {
        // Charlottenburg, 7 km west of Berlin's GeoNames point: still Berlin, not a suburb.
        #expect(try answer(52.5163, 13.3041).locality?.name == "Berlin")
    }

    @Test func kadikoyIsInIstanbulAndItsLocalityIsFromKadikoyItself() throws {
        let a = try answer(40.9903, 29.0290)
        #expect(a.province?.code == "TR-34")
        #expect(a.district?.name == "Kadıköy")
        // GeoNames' cities500 has no place inside Kadıköy district: Üsküdar (3.6 km, another
        // district) must not be given instead.
        #expect(a.locality?.name != "Üsküdar")
    }

    @Test func aTurkishTownAddsTheTownLevel() throws {
        // Şile, a town of Şile district in İstanbul province.
        let a = try answer(41.1760, 29.6110)
        #expect(a.district?.name == "Şile")
        #expect(a.locality?.name == "Şile")
    }

    @Test func aBorderVillageBelongsToItsOwnCountryOnly() throws {
        // Boncourt (Jura, CH, 1,304 people, reach 2 km) lies 410 m from the French border.
        let village = try answer(47.49493, 7.01297)
        #expect(village.country?.code == "CH")
        #expect(village.locality?.name == "Boncourt")
        // 250 m beyond the border, in France, well within Boncourt's reach: not Boncourt.
        let across = try answer(47.50077, 7.01398)
        #expect(across.country?.code == "FR")
        #expect(across.locality?.name != "Boncourt")
    }

    @Test func openSeaHasNoLocality() throws {
        let a = try answer(35.0, 18.0)
        #expect(a.country == nil)
        #expect(a.locality == nil)
        #expect(a.localityChecked)
        #expect(a.json(language: .local).hasSuffix(",\"locality\":null}"))
    }

    @Test func plainAnswersDoNotCarryALocality() throws {
        let a = try Resolver(index: Bundled.index()).resolve(latitude: 52.52, longitude: 13.405)
        #expect(a.locality == nil)
        #expect(!a.json(language: .local).contains("locality"))
    }

    @Test func reachGrowsWithPopulationWithinItsBounds() {
        #expect(LocalityIndex.reach(population: 0) == 2_000)
        #expect(LocalityIndex.reach(population: 10_000) == 2_000)
        #expect(LocalityIndex.reach(population: 40_000) == 3_000)
        #expect(LocalityIndex.reach(population: 100_000_000) == 30_000)
    }

    /// A single answer asks the R*Tree for the reach boxes around the point first, then reads
    /// those places: left to itself, SQLite's planner walked the country's index and asked the
    /// R*Tree once per place of the country (8 ms a point in Türkiye, 25 ms in France; 0.1-0.2 ms
    /// this way), which made an import's first 400 new regions in France cost 0.7 s.
    @Test func aSingleLocalityStartsFromTheReachBoxes() throws {
        let plan = try Bundled.database().read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + LocalityIndex.reachQuery, arguments: [2.35, 48.85, "FR", nil, nil])
                .map { $0["detail"] as String }
        }
        #expect(plan.first?.hasPrefix("SCAN r VIRTUAL TABLE") == true, "\(plan)")
        #expect(!plan.contains { $0.contains("localities_country") }, "\(plan)")
    }

    /// A batch reads the whole table once a dozen countries have been asked for; an import
    /// (`countriesReadAlone: .max`) reads only the countries it visits, with the same answers
    /// (a ten-year history abroad held the world's 235 k places: 44 MB of its peak).
    @Test func anImportReadsOnlyTheCountriesItVisits() throws {
        let index = try Bundled.index()
        let resolver = try Resolver(index: index)
        let codes = index.unitIDs.map { index.reference($0).code }
        let alone = LocalityIndex(database: index.database, unitCodes: codes, countriesReadAlone: .max)
        let batch = LocalityIndex(database: index.database, unitCodes: codes)
        // Capitals of 16 countries.
        let points = [
            (39.93, 32.85), (52.52, 13.40), (48.86, 2.35), (40.42, -3.70), (41.90, 12.50), (37.98, 23.73),
            (42.70, 23.32), (44.43, 26.10), (47.50, 19.04), (50.08, 14.44), (52.23, 21.01), (59.33, 18.07),
            (60.17, 24.94), (55.68, 12.57), (38.72, -9.14), (53.35, -6.26),
        ]
        var countries = Set<String>()
        for (latitude, longitude) in points {
            let a = try resolver.resolve(latitude: latitude, longitude: longitude)
            let country = try #require(a.country?.code)
            countries.insert(country)
            let one = try alone.locality(at: a.coordinate, country: country, province: a.province?.code, district: a.district?.code)
            let all = try batch.locality(at: a.coordinate, country: country, province: a.province?.code, district: a.district?.code)
            #expect(one != nil && one == all, "\(country)")
        }
        #expect(countries.count == 16)
        #expect(alone.countriesRead == 16)
        #expect(batch.countriesRead > 200)
    }

    /// The R*Tree query (single answers) and the loaded table (batches) give the same locality:
    /// across Europe, and in Türkiye's box where places are dense and the nearest one wins.
    @Test(arguments: [(35.0...55.0, -5.0...45.0), (36.0...42.0, 26.0...45.0)])
    func theDatabaseQueryAndTheLoadedTableAgree(latitudes: ClosedRange<Double>, longitudes: ClosedRange<Double>) throws {
        let index = try Bundled.index()
        let resolver = try Resolver(index: index)
        let table = index.localities()
        var generator = SeededGenerator(state: 23)
        var named = 0
        for _ in 0..<3000 {
            let c = Coordinate(
                latitude: Double.random(in: latitudes, using: &generator), longitude: Double.random(in: longitudes, using: &generator))
            let a = try resolver.resolve(c)
            guard let country = a.country?.code else { continue }
            let loaded = try table.locality(at: c, country: country, province: a.province?.code, district: a.district?.code)
            let queried = try LocalityIndex.locality(
                in: index.database, at: c, country: country, province: a.province?.code,
                district: a.district?.code)
            #expect(loaded == queried, "\(c)")
            if loaded != nil { named += 1 }
        }
        #expect(named > 150)
    }

    @Test func theBundledTableIsImported() throws {
        let info = try Bundled.database().info()
        let places = try #require(info.localities)
        #expect(places.count > 200_000)
        #expect(places.licence.contains("CC BY 4.0"))
        #expect(try Bundled.index().localities().count() == places.count)
    }
}
