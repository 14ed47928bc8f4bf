import Foundation
import RoquaBoundaries
import RoquaTestSupport
import Testing

/// `roqua resolve` takes a point the ways people copy one: two numbers, "LAT,LON" as map apps
/// copy it, hemisphere letters, degrees-minutes-seconds; each gives the answer of the plain form.
@Suite struct ResolveCoordinateFormsTests {
    @Test(arguments: [
        ["41.0054", "28.9768"], ["41.0054,28.9768"], ["41.0054, 28.9768"], ["41.0054,", "28.9768"], ["41.0054;28.9768"],
        ["41.0054N", "28.9768E"], ["N41.0054", "E28.9768"], ["28.9768E", "41.0054N"],
        ["41°00'19\"N 28°58'36\"E"], ["41°00'19\"N", "28°58'36\"E"], ["41° 0' 19\" N, 28° 58' 36\" E"], ["41°0.32'N 28°58.6'E"],
        ["41º00′19″N 28º58′36″E"],
    ])
    func everyFormGivesTheSameAnswer(arguments: [String]) throws {
        let result = try BatchCLI.resolve(arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        #expect(result.stdout.hasPrefix("Türkiye › İstanbul › Fatih"), "\(arguments): \(result.stdout)")
    }

    @Test(arguments: [["-33.92", "18.42"], ["-33.92,18.42"], ["33°55'S", "18°25'E"], ["S33.92 E18.42"]])
    func southernAndWesternHemispheres(arguments: [String]) throws {
        let result = try BatchCLI.resolve(arguments)
        #expect(
            result.status == 0 && result.stdout.hasPrefix("South Africa › Western Cape"), "\(arguments): \(result.stdout) \(result.stderr)")
    }

    /// Anything else is refused naming the text and the forms that work; nothing is resolved.
    @Test(arguments: [
        ["41.0054"], ["41", "28", "30"], ["abc"], ["41N", "28N"], ["41°75'N 28°E"], ["-41N 28E"], ["41,0054", "28,9768"],
        ["İstanbul"],
    ])
    func othersAreRefusedWithTheForms(arguments: [String]) throws {
        let result = try BatchCLI.resolve(arguments)
        #expect(result.status != 0 && result.stdout.isEmpty, "\(arguments): \(result.stdout)")
        #expect(result.stderr.contains("LAT LON") || result.stderr.contains("two latitudes"), "\(arguments): \(result.stderr)")
    }

    @Test func outOfRangeIsTheResolversError() throws {
        let result = try BatchCLI.resolve(["95,30"])
        #expect(result.status != 0 && result.stderr.contains("latitude"), "\(result.stderr)")
    }

    @Test func theParserDirectly() throws {
        let dms = try CoordinateText.parse("40°59'16\"N 29°01'41\"W")
        #expect(abs(dms.latitude - (40 + 59.0 / 60 + 16.0 / 3600)) < 1e-12 && abs(dms.longitude + (29 + 1.0 / 60 + 41.0 / 3600)) < 1e-12)
        let swapped = try CoordinateText.parse("29.0281E,40.9879N")
        #expect(swapped.latitude == 40.9879 && swapped.longitude == 29.0281)
        #expect(throws: CoordinateText.Failure.self) { try CoordinateText.parse("") }
        #expect(throws: CoordinateText.Failure.self) { try CoordinateText.parse("1 2 3") }
    }
}
