import Foundation
import RoquaBoundaries
import RoquaProgress
import RoquaRegions
import RoquaTestSupport
import Testing

/// x/N on synthetic visits with known answers, over the real bundled boundaries.
@Suite struct UnitProgressTests {
    static let places = Trip.places

    static func calculator() throws -> ProgressCalculator {
        let enricher = try RegionEnricher(boundaries: Bundled.path())
        let start = Date(timeIntervalSince1970: 1_714_550_400)
        let regions = try places.enumerated().map { i, p in
            try enricher.enriched(
                VisitedRegion(
                    latitude: p.0, longitude: p.1, radius: 150,
                    timestampStart: start.addingTimeInterval(Double(i) * 3600), geohash: ""))
        }
        return ProgressCalculator(hierarchy: try BoundaryHierarchy(database: Bundled.database()), regions: regions)
    }

    @Test func istanbulEightOfThirtyNine() throws {
        let istanbul = try #require(try Self.calculator().progress(of: "TR-34"))
        #expect(istanbul.visited == 8 && istanbul.total == 39)
        #expect(istanbul.label == "İstanbul 8/39 districts")
        #expect(istanbul.visitedChildren.first?.name == "Fatih")  // earliest first
        #expect(istanbul.notVisitedChildren.count == 31)
        #expect(istanbul.notVisitedChildren.contains { $0.name == "Adalar" })
        #expect(istanbul.firstVisit == Date(timeIntervalSince1970: 1_714_550_400))
    }

    @Test func turkiyeTwoOfEightyOneAndThreeCountries() throws {
        let calculator = try Self.calculator()
        let turkiye = try #require(calculator.progress(of: "TR"))
        #expect(turkiye.label == "Türkiye 2/81 provinces")
        #expect(Set(turkiye.visitedChildren.map(\.code)) == ["TR-34", "TR-06"])
        #expect(calculator.countries.map(\.code) == ["TR", "GR", "BG"])
        let europe = try #require(calculator.continents.first { $0.name == "Europe" })
        #expect(europe.visited == 2)  // Greece, Bulgaria; Natural Earth puts Türkiye in Asia
        #expect(calculator.progress(of: "TUR034023") == nil)  // a district has no children
        let units = calculator.visitedUnitsWithChildren.map(\.code)
        #expect(units.contains("TR") && units.contains("TR-34") && units.contains("TR-06") && units.contains("GR"))
    }

    @Test(arguments: ["istanbul", "İSTANBUL", "Istanbul", "TR-34", "tr-34"])
    func unitsAreFoundWithoutCaseOrTurkishDotsMattering(query: String) throws {
        #expect(try BoundaryHierarchy(database: Bundled.database()).unit(named: query).code == "TR-34")
    }

    @Test func unknownAndAmbiguousUnitsSayWhy() throws {
        let hierarchy = try BoundaryHierarchy(database: Bundled.database())
        do {
            _ = try hierarchy.unit(named: "Istanbull")
            Issue.record("expected an error")
        } catch let error as BoundaryHierarchy.LookupError {
            guard case let .unknown(_, suggestions) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(suggestions.first == "İstanbul (TR-34)")
        }
        #expect(throws: BoundaryHierarchy.LookupError.self) { try hierarchy.unit(named: "Merkez") }
    }
}
