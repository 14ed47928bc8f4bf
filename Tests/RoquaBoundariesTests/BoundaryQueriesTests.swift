import Foundation
import RoquaBoundaries
import RoquaTestSupport
import Testing

/// The boundary DB's queries for maps and the server (`BoundaryQueries.swift`), on the bundled data.
@Suite struct BoundaryQueriesTests {
    @Test func recordsNameEveryUnitWithItsBox() throws {
        let database = try Bundled.database()
        let records = try database.records()
        let hierarchy = try BoundaryHierarchy(database: database)
        #expect(records.count == hierarchy.units.count)
        #expect(Set(records.map(\.code)).count == records.count)
        let istanbul = try #require(records.first { $0.code == "TR-34" })
        #expect(istanbul.level == .province && istanbul.name == "İstanbul" && istanbul.country == "TR")
        #expect(!istanbul.nameEn.isEmpty && !istanbul.nameTr.isEmpty)
        #expect(istanbul.box.contains(x: 29.0281, y: 40.9879) && istanbul.box.width < 3)
    }

    @Test func geometriesComeInTheOrderAskedAndUnknownCodesAreSkipped() throws {
        let database = try Bundled.database()
        let hierarchy = try BoundaryHierarchy(database: database)
        // More codes than one statement takes, in an order that is not the DB's.
        let all = hierarchy.units.keys.sorted().reversed()
        let codes = Array(all.prefix(BoundaryDatabase.codesPerQuery + 120)) + ["NO-SUCH-UNIT", "TR-34", "TR-34"]
        var seen: [String] = []
        try database.forEachGeometry(of: codes) { geometry in
            #expect(!geometry.wkb.isEmpty)
            seen.append(geometry.code)
        }
        #expect(seen == codes.filter { $0 != "NO-SUCH-UNIT" })
        let kadikoy = try #require(try database.geometry(of: "TUR034023"))
        #expect(kadikoy.name == "Kadıköy")
        let point = try GEOSContext().geometry(wkb: kadikoy.wkb).pointOnSurface()
        #expect(try Resolver(index: Bundled.index()).resolve(latitude: point.y, longitude: point.x).district?.code == "TUR034023")
        #expect(try database.geometry(of: "NO-SUCH-UNIT") == nil)
    }

    @Test func localitiesByIdBiggestFirst() throws {
        let index = try Bundled.index()
        let resolver = try Resolver(index: index)
        let places = try [(52.5200, 13.4050), (40.6401, 22.9444), (-33.9249, 18.4241)].map {
            try #require(try index.withLocality(resolver.resolve(latitude: $0.0, longitude: $0.1)).locality)
        }
        let ids = places.map(\.geonameID)
        let found = try Bundled.database().localities(ids: ids + [ids[0], -1])
        #expect(found.count == 3)
        #expect(Set(found.map(\.name)) == ["Berlin", "Thessaloníki", "Cape Town"])
        #expect(found.map(\.population) == found.map(\.population).sorted(by: >))
        let berlin = try #require(found.first { $0.name == "Berlin" })
        #expect(abs(berlin.latitude - 52.52) < 0.1 && abs(berlin.longitude - 13.40) < 0.1)
        #expect(try Bundled.database().localities(ids: []) == [])
    }
}
