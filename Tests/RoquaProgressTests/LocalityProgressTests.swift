import Foundation
import RoquaProgress
import RoquaRegions
import Testing

/// Localities visited per country: each place once (by GeoNames id, not by name), in the order
/// first visited; regions without a locality do not count.
@Suite struct LocalityProgressTests {
    private func region(_ day: Double, _ country: String, _ locality: String?, _ id: Int64?) -> VisitedRegion {
        VisitedRegion(
            latitude: 0, longitude: 0, radius: 150, timestampStart: Date(timeIntervalSince1970: day * 86_400),
            country: country == "DE" ? "Germany" : "United States", countryCode: country, geohash: "s000000",
            locality: locality, localityID: id)
    }

    @Test func countsEachPlaceOncePerCountryInVisitOrder() {
        let regions = [
            region(3, "DE", "Potsdam", 2_852_458),
            region(1, "DE", "Berlin", 2_950_159),
            region(2, "DE", "Berlin", 2_950_159),
            region(4, "US", "Berlin", 4_500_771),  // Berlin, New Jersey: another place of the same name
            region(0, "DE", nil, nil),
        ]
        let countries = CountryLocalities.of(regions)
        #expect(countries.map(\.code) == ["DE", "US"])
        #expect(countries[0].localities.map(\.name) == ["Berlin", "Potsdam"])
        #expect(countries[0].localities[0].firstVisit == Date(timeIntervalSince1970: 86_400))
        #expect(countries[0].label == "Germany: 2 localities (Berlin, Potsdam)")
        #expect(countries[1].label == "United States: 1 locality (Berlin)")
    }

    /// A cut list says how many it leaves out.
    @Test func aLongListSaysHowManyMore() {
        let regions = (0..<13).map { region(Double($0), "DE", "Town \($0)", Int64($0)) }
        #expect(
            CountryLocalities.of(regions)[0].label
                == "Germany: 13 localities (Town 0, Town 1, Town 2, Town 3, Town 4, Town 5, Town 6, Town 7, Town 8, Town 9, … and 3 more)")
    }

    @Test func noLocalitiesNoEntries() {
        #expect(CountryLocalities.of([region(0, "DE", nil, nil)]).isEmpty)
    }
}
