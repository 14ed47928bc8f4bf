import Foundation
import RoquaBoundaries
import RoquaProgress
import RoquaRegions
import RoquaTestSupport
import Testing

/// `roqua stats` end to end: a store filled by the real importer, the report and the CLI.
@Suite struct ProgressReportTests {
    static func store(in directory: TempDirectory) throws -> RegionStore {
        let store = try RegionStore(path: directory.file("regions.sqlite"))
        try Trip.csv.write(toFile: directory.file("trip.csv"), atomically: true, encoding: .utf8)
        _ = try TrackImporter(store: store, enricher: RegionEnricher(boundaries: Bundled.path())).importFile(directory.file("trip.csv"))
        return store
    }

    @Test func reportOfATrip() throws {
        let directory = try TempDirectory()
        let store = try Self.store(in: directory)
        let now = try #require(ISO8601DateFormatter().date(from: "2024-05-12T12:00:00Z"))
        let report = try ProgressReport(
            regions: store.allRegions(), hierarchy: BoundaryHierarchy(database: Bundled.database()),
            options: .init(timeZone: TimeZone(identifier: "Europe/Istanbul")!, decimals: 6, now: now))
        #expect(report.regions == 12)  // the two Kadıköy fixes are ~170 m apart: two regions, overlapping
        #expect(report.countries.map(\.code) == ["TR", "GR", "BG"])
        #expect(report.units.contains { $0.label == "İstanbul 8/39 districts" })
        #expect(report.units.contains { $0.label == "Türkiye 2/81 provinces" })
        // 12 circles of 150 m, two of them overlapping: less than 12 πr², more than 11 πr².
        let circle = Double.pi * 0.15 * 0.15
        #expect(report.exploredSquareKilometres < 12 * circle * 0.99 && report.exploredSquareKilometres > 11 * circle)
        #expect(report.worldPercentText.split(separator: ".").last?.count == 6)
        #expect(report.streaks.longestDailyLength == 12 && report.streaks.currentDaily == 12)
        #expect(report.text.contains("İstanbul 8/39 districts"))
    }
}
