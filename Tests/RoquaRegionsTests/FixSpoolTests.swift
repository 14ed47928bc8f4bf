import Foundation
import GRDB
import RoquaBoundaries
import RoquaTestSupport
import Testing

@testable import RoquaRegions

/// The server's two-step import (`prepare` into a spool of fixes while the store is free, then
/// `commit`) against the CLI's one step: the same fixes bit for bit, the same store.
@Suite struct FixSpoolTests {
    struct Fixes: FixReader {
        var fixes: [Fix]
        let path = "fixes"
        var untimedPoints: Int { 3 }
        mutating func next() throws -> Fix? { fixes.isEmpty ? nil : fixes.removeFirst() }
    }

    @Test func fixesComeBackBitForBit() throws {
        let directory = try TempDirectory("roqua-spool")
        var generator = SeededGenerator(state: 9)
        var fixes = [
            Fix(
                coordinate: Coordinate(latitude: -0.0, longitude: .leastNonzeroMagnitude), timestamp: Date(timeIntervalSince1970: 0.1),
                accuracy: 0, speed: nil, position: -5),
            Fix(
                coordinate: Coordinate(latitude: 89.999999999, longitude: -179.5), timestamp: Date(timeIntervalSinceReferenceDate: -1e-9),
                accuracy: nil, speed: 0, position: Int.max),
        ]
        for index in 0..<20_000 {
            fixes.append(
                Fix(
                    coordinate: Coordinate(
                        latitude: .random(in: -90...90, using: &generator), longitude: .random(in: -180...180, using: &generator)),
                    timestamp: Date(timeIntervalSince1970: .random(in: 0...4e9, using: &generator)),
                    accuracy: index % 3 == 0 ? nil : .random(in: 0...100, using: &generator),
                    speed: index % 5 == 0 ? nil : .random(in: 0...50, using: &generator), position: index))
        }
        var reader: any FixReader = Fixes(fixes: fixes)
        var counts: [Int] = []
        let spool = try FixSpool.write(&reader, to: directory.file("spool"), progress: { counts.append($0) })
        #expect(spool.count == fixes.count && spool.untimedPoints == 3 && counts == [8192, 16384])
        var info = stat()
        #expect(stat(spool.path, &info) == 0 && info.st_mode & 0o777 == 0o600 && Int(info.st_size) == fixes.count * 56)
        var back = try spool.reader()
        for fix in fixes {
            let read = try #require(try back.next())
            #expect(
                read.coordinate.latitude.bitPattern == fix.coordinate.latitude.bitPattern
                    && read.coordinate.longitude.bitPattern == fix.coordinate.longitude.bitPattern
                    && read.timestamp == fix.timestamp && read.accuracy == fix.accuracy && read.speed == fix.speed
                    && read.position == fix.position)
        }
        #expect(try back.next() == nil && back.untimedPoints == 3)
        spool.remove()
        #expect(!FileManager.default.fileExists(atPath: spool.path))
    }

    @Test func prepareThenCommitStoresWhatOneStepStores() throws {
        let directory = try TempDirectory("roqua-spool")
        let files = [
            Repository.path("scripts/examples/istanbul-day.gpx"), Repository.path("Tests/Fixtures/tracks/cerknicko-jezero.gpx.gz"),
        ]
        func rows(_ store: RegionStore) throws -> [Row] {
            try store.write { db in try Row.fetchAll(db, sql: "SELECT * FROM visited_regions ORDER BY id") }
        }
        let oneStep = try RegionStore(path: directory.file("one.sqlite"))
        let twoSteps = try RegionStore(path: directory.file("two.sqlite"))
        let enricher = try RegionEnricher(boundaries: Bundled.path())
        for file in files {
            let one = try TrackImporter(store: oneStep, enricher: enricher).importSource(TrackSource(file: file)) { _, _ in () }.summary
            let importer = try TrackImporter(store: twoSteps, enricher: enricher)
            guard case let .ready(track) = try importer.prepare(TrackSource(file: file), spool: directory.file("fixes")) else {
                Issue.record("\(file) was not read")
                continue
            }
            let two = try importer.commit(track) { _, _ in () }.summary
            #expect(one == two && one.newRegions > 0)
            #expect(!FileManager.default.fileExists(atPath: directory.file("fixes")))
            // Prepared again: already imported, nothing to write.
            guard case let .finished(again) = try importer.prepare(TrackSource(file: file), spool: directory.file("fixes")) else {
                Issue.record("\(file) read twice")
                continue
            }
            #expect(again.alreadyImported)
        }
        #expect(try rows(oneStep) == rows(twoSteps))
    }

    @Test func aMalformedFileFailsBeforeTheStoreAndLeavesNoSpool() throws {
        let directory = try TempDirectory("roqua-spool")
        let bad = directory.file("bad.csv")
        // Nothing readable in it (a file with one good row imports that row; see TrackImportTests).
        try "lat,lon,time\n41,xyz,2024-05-01T07:00:00Z\n41,abc,2024-05-01T07:01:00Z\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let store = try RegionStore(path: directory.file("store.sqlite"))
        let importer = try TrackImporter(store: store, enricher: try RegionEnricher(boundaries: Bundled.path()))
        #expect(throws: TrackReadError.self) { try importer.prepare(TrackSource(file: bad), spool: directory.file("fixes")) }
        #expect(!FileManager.default.fileExists(atPath: directory.file("fixes")))
        #expect(try store.regionCount() == 0)
    }
}
