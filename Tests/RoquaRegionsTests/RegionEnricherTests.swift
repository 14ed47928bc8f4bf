import Foundation
import RoquaBoundaries
import RoquaRegions
import RoquaTestSupport
import Testing

/// `RegionEnricher` reads localities with one R*Tree query each, then, after
/// `queriesBeforeLoading` regions (2,000; 100 here), from every place loaded into memory: the
/// regions it enriches after the switch must be exactly what a fresh enricher (still querying)
/// makes of them.
@Suite struct RegionEnricherTests {
    @Test func regionsAfterTheSwitchToLoadedPlacesAreEnrichedAsBefore() throws {
        var generator = SeededGenerator(state: 17)
        // Points around İstanbul, Berlin and Cape Town: places with localities, boroughs and none.
        let centres = [(41.02, 28.98), (52.52, 13.40), (-33.92, 18.42)]
        let regions = (0..<400).map { i -> VisitedRegion in
            let (lat, lon) = centres[i % centres.count]
            return VisitedRegion(
                latitude: lat + Double.random(in: -0.15...0.15, using: &generator),
                longitude: lon + Double.random(in: -0.15...0.15, using: &generator), radius: 150,
                timestampStart: Date(timeIntervalSince1970: 1_700_000_000), geohash: "")
        }
        let switching = try RegionEnricher(boundaries: Bundled.path(), queriesBeforeLoading: 100)
        let enriched = try regions.map { try switching.enriched($0) }
        // The last 300 came from the loaded table; a new enricher (own index) queries each of them.
        let querying = try RegionEnricher(boundaries: Bundled.path())
        var differences: [String] = []
        for region in regions.suffix(300) {
            let queried = try querying.enriched(region)
            let loaded = try #require(enriched.first { $0.latitude == region.latitude && $0.longitude == region.longitude })
            if queried.locality != loaded.locality || queried.localityID != loaded.localityID || queried.districtCode != loaded.districtCode
            {
                differences.append(
                    "\(region.latitude),\(region.longitude): queried \(queried.locality ?? "-"), loaded \(loaded.locality ?? "-")")
            }
        }
        #expect(differences.isEmpty, "\(differences.prefix(5))")
        // The sample reaches places: most regions near these cities have a locality.
        #expect(enriched.suffix(300).filter { $0.locality != nil }.count > 150)
    }

    /// Regions of one place share one `RegionNames` (a million regions hold a few thousand), and a
    /// region's names stay its own when another region of that place is renamed.
    @Test func regionsOfOnePlaceShareTheirNamesAndStayValues() throws {
        let enricher = try RegionEnricher(boundaries: Bundled.path())
        func region(_ latitude: Double, _ longitude: Double) -> VisitedRegion {
            VisitedRegion(
                latitude: latitude, longitude: longitude, radius: 150, timestampStart: Date(timeIntervalSince1970: 1_700_000_000),
                geohash: "")
        }
        // Kadıköy, Berlin-Mitte, Kadıköy again (not the last place named: found among those met).
        let first = try enricher.enriched(region(40.9910, 29.0270))
        let berlin = try enricher.enriched(region(52.5200, 13.4050))
        var again = try enricher.enriched(region(40.9905, 29.0280))
        #expect(first.districtCode == again.districtCode && first.district != nil && first.district != berlin.district)
        #expect(first.names === again.names)
        #expect(first.names !== berlin.names)
        let district = first.district
        again.district = "Elsewhere"
        #expect(first.district == district)
        #expect(again.district == "Elsewhere" && again.province == first.province && again.names !== first.names)
        // A region is a few words and one reference, whatever its names.
        #expect(MemoryLayout<VisitedRegion>.stride <= 112)
    }
}
