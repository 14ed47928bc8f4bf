import Foundation
import GRDB
import RoquaBoundaries
import RoquaTestSupport
import Testing

@testable import RoquaRegions

/// Nothing silently empty: an import that read no fix fails and is not recorded, so the same
/// file can still be imported later (fixed, or with an assumed time).
@Suite struct TrackImportSemanticsTests {
    static func importCount(_ store: RegionStore) throws -> Int {
        try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM imports") ?? 0 }
    }

    @Test func aRouteWithoutTimesFailsUntilATimeIsAssumed() throws {
        let s = try TrackImportTests.setup()
        let route = Repository.path("Tests/Fixtures/tracks/route.gpx")
        let before = try s.store.export(.json)
        let error = #expect(throws: TrackReadError.self) { try s.importer.importFile(route) }
        #expect(error?.file == route && error?.message.contains("no timestamps: 55 point(s) without a time") == true)
        #expect(try s.store.export(.json) == before && Self.importCount(s.store) == 0)

        let walked = try s.importer.importFile(route, options: TrackReadOptions(assumedTime: Date(timeIntervalSince1970: 1_714_550_400)))
        #expect(walked.fixesRead == 55 && walked.untimedAssumed == 55 && walked.untimedSkipped == 0)
        #expect(try walked.newRegions > 0 && Self.importCount(s.store) == 1)
    }

    @Test func emptyAndUnknownJSONIsNeverRecorded() throws {
        let s = try TrackImportTests.setup()
        let empty = s.directory.file("Records.json")
        try #"{"locations": []}"#.write(toFile: empty, atomically: true, encoding: .utf8)
        let error = #expect(throws: TrackReadError.self) { try s.importer.importFile(empty) }
        #expect(error?.message.contains("no fixes") == true)
        let polarsteps = s.directory.file("locations.json")
        try #"{"locations": [{"lat": 41, "lon": 29, "time": 1546336800}]}"#.write(toFile: polarsteps, atomically: true, encoding: .utf8)
        let unknown = #expect(throws: TrackReadError.self) { try s.importer.importFile(polarsteps) }
        #expect(unknown?.message.contains("neither a Records.json location") == true)
        #expect(try Self.importCount(s.store) == 0)

        // The same bytes fixed later import normally: no checksum was stored for the failures.
        try #"{"locations": [{"latitudeE7": 409879000, "longitudeE7": 290281000, "timestamp": "2024-05-01T08:00:00Z"}]}"#
            .write(toFile: empty, atomically: true, encoding: .utf8)
        #expect(try s.importer.importFile(empty).fixesRead == 1)
    }

    @Test func untimedPointsAreCountedBesideTheFixes() throws {
        let s = try TrackImportTests.setup()
        let summary = try s.importer.importFile(Repository.path("Tests/Fixtures/tracks/cerknicko-jezero.gpx"))
        #expect(summary.fixesRead == 297 && summary.untimedSkipped == 6 && summary.untimedAssumed == 0)
    }

    @Test func archiveEntriesImportOneTransactionEach() throws {
        let s = try TrackImportTests.setup()
        var read: [Int] = []
        for case let .source(source) in TrackInputs.expand([Repository.path("Tests/Fixtures/tracks/strava-export.zip")]) {
            let (summary, _) = try s.importer.importSource(source) { _, _ in () }
            if summary.notATrack == nil { read.append(summary.fixesRead) }
        }
        #expect(try read == [21, 6, 297] && Self.importCount(s.store) == 3)
        // Again: every entry is recognised by its content's checksum.
        for case let .source(source) in TrackInputs.expand([Repository.path("Tests/Fixtures/tracks/strava-export.zip")]) {
            let (summary, _) = try s.importer.importSource(source) { _, _ in () }
            #expect(summary.alreadyImported || summary.notATrack != nil)
        }
    }
}
