import Foundation
import GRDB
import RoquaBoundaries
import RoquaTestSupport
import Testing

@testable import RoquaRegions

@Suite struct RegionStoreTests {
    static func sampleRegions() -> [VisitedRegion] {
        let start = Date(timeIntervalSince1970: 1_700_000_000.123)
        return [
            VisitedRegion(
                latitude: 40.9879, longitude: 29.0281, radius: 150, timestampStart: start,
                timestampEnd: start.addingTimeInterval(600), province: "İstanbul", district: "Kadıköy",
                country: "Türkiye", countryCode: "TR", provinceCode: "TR-34", districtCode: "TUR034023",
                geohash: "sxk9byz", visitCount: 2, lastVisit: start.addingTimeInterval(7200)),
            VisitedRegion(
                latitude: -33.9249, longitude: 18.4241, radius: 200, timestampStart: start.addingTimeInterval(86_400),
                geohash: "k3vp4bp"),
        ]
    }

    static func storeWithSamples(in directory: TempDirectory) throws -> RegionStore {
        let store = try RegionStore(path: directory.file("regions.sqlite"))
        try store.write { db in
            for var region in sampleRegions() {
                region.id = nil
                try region.insert(db)
            }
        }
        return store
    }

    @Test func opensInWALModeWithTheSeedsIndexes() throws {
        let directory = try TempDirectory()
        let store = try RegionStore(path: directory.file("sub/dir/regions.sqlite"))
        let (mode, indexes) = try store.read { db in
            (
                try String.fetchOne(db, sql: "PRAGMA journal_mode"),
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'idx_%'")
            )
        }
        #expect(mode == "wal")
        #expect(Set(indexes).isSuperset(of: ["idx_regions_location", "idx_regions_geohash", "idx_regions_country"]))
        // Opening again migrates nothing and keeps the data.
        _ = try RegionStore(path: directory.file("sub/dir/regions.sqlite"))
    }

    /// The read the clustering starts from leaves room for an import's new regions (one more in
    /// an array of a million regions' exact size copied them all into one twice as big); the
    /// engine keeps that room, and the regions are the same as a plain read's.
    @Test func theClusteringsReadLeavesRoomForNewRegions() throws {
        let directory = try TempDirectory()
        let store = try Self.storeWithSamples(in: directory)
        let (plain, growing) = try store.read { db in
            (try RegionStore.regions(db).readable, try store.readableRegions(db, growing: true))
        }
        #expect(plain == growing && plain.count == 2 && growing.capacity >= 2 + 1024)
        let engine = ClusteringEngine(existingRegions: growing)
        #expect(engine.regions == plain && engine.regions.capacity >= 2 + 1024)
    }

    @Test func timestampsKeepTheirMilliseconds() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.123)
        #expect(try StoreTime.text(date) == "2023-11-14T22:13:20.123Z")
        #expect(StoreTime.date("2023-11-14T22:13:20.123Z").map(StoreTime.rounded) == StoreTime.rounded(date))
        #expect(try StoreTime.text(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500Z")
    }

    @Test(arguments: [ArchiveFormat.json, .geojson])
    func exportRestoreExportIsIdentical(format: ArchiveFormat) throws {
        let directory = try TempDirectory()
        let store = try Self.storeWithSamples(in: directory)
        let first = try store.export(format)
        let file = directory.file("export.\(format.rawValue)")
        try first.write(to: URL(fileURLWithPath: file))
        let empty = try RegionStore(path: directory.file("restored.sqlite"))
        #expect(try empty.restore(from: file) == 2)
        #expect(try empty.export(format) == first)
        #expect(try empty.allRegions().map(\.district) == ["Kadıköy", nil])
    }

    /// An export's regions of one place are read sharing one `RegionNames` (a million regions
    /// decoded with names of their own held ~250 MB more), those of another place their own; the
    /// restored store holds the same regions.
    @Test func anExportsRegionsOfOnePlaceShareTheirNames() throws {
        let directory = try TempDirectory()
        let store = try RegionStore(path: directory.file("regions.sqlite"))
        try store.write { db in
            for (i, district) in ["Kadıköy", "Kadıköy", "Beşiktaş", "Kadıköy"].enumerated() {
                try VisitedRegion(
                    latitude: 41, longitude: 29 + Double(i) / 100, radius: 100, timestampStart: Date(timeIntervalSince1970: 1_700_000_000),
                    province: "İstanbul", district: district, country: "Türkiye", countryCode: "TR", geohash: "sxk9"
                ).insert(db)
            }
        }
        for format in [ArchiveFormat.json, .geojson] {
            let file = directory.file("export.\(format.rawValue)")
            try store.export(format).write(to: URL(fileURLWithPath: file))
            let regions = try ArchiveCoding.read(file).regions
            #expect(regions.count == 4 && regions[0].names === regions[1].names && regions[0].names === regions[3].names)
            #expect(regions[2].names !== regions[0].names && regions[2].district == "Beşiktaş")
            let restored = try RegionStore(path: directory.file("restored-\(format.rawValue).sqlite"))
            try restored.restore(from: file)
            #expect(try restored.allRegions() == store.allRegions())
        }
    }

    /// Exports name the province `province`; one written before (`city`) still restores, and a
    /// store of that time is migrated with its provinces kept.
    @Test func theProvinceIsCalledSoAndOldExportsStillRestore() throws {
        let directory = try TempDirectory()
        let store = try Self.storeWithSamples(in: directory)
        let text = String(decoding: try store.export(.json), as: UTF8.self)
        #expect(text.contains(#""province" : "İstanbul""#) && !text.contains(#""city""#), "\(text.prefix(800))")
        let old = directory.file("old.json")
        try text.replacingOccurrences(of: #""province" : "#, with: #""city" : "#).write(toFile: old, atomically: true, encoding: .utf8)
        let restored = try RegionStore(path: directory.file("restored.sqlite"))
        #expect(try restored.restore(from: old) == 2)
        #expect(try restored.allRegions().map(\.province) == ["İstanbul", nil])
        let columns = try restored.read { db in try db.columns(in: "places").map(\.name) }
        #expect(columns.contains("province") && !columns.contains("city"))
    }

    @Test func restoreRefusesANonEmptyStoreAndBadFilesChangeNothing() throws {
        let directory = try TempDirectory()
        let store = try Self.storeWithSamples(in: directory)
        let file = directory.file("export.json")
        try store.export(.json).write(to: URL(fileURLWithPath: file))
        #expect(throws: RegionStoreError.notEmpty(path: store.path, regions: 2)) { try store.restore(from: file) }
        #expect(try store.restore(from: file, replace: true) == 2)

        let before = try store.export(.json)
        var text = String(decoding: before, as: UTF8.self)
        text = text.replacingOccurrences(of: "\"latitude\" : -33.9249", with: "\"latitude\" : -133.9249")
        try Data(text.utf8).write(to: URL(fileURLWithPath: directory.file("bad.json")))
        #expect(
            throws: ArchiveError.badRow(
                file: directory.file("bad.json"), section: "regions", index: 1,
                reason: "coordinate -133.9249, 18.4241 is out of range")
        ) {
            try store.restore(from: directory.file("bad.json"), replace: true)
        }
        try Data("{\"regions\": 3}".utf8).write(to: URL(fileURLWithPath: directory.file("wrong.json")))
        #expect(throws: ArchiveError.self) { try store.restore(from: directory.file("wrong.json"), replace: true) }
        try store.export(.gpx).write(to: URL(fileURLWithPath: directory.file("e.gpx")))
        #expect(throws: ArchiveError.notRestorable(file: directory.file("e.gpx"))) {
            try store.restore(from: directory.file("e.gpx"), replace: true)
        }
        #expect(try store.export(.json) == before)
    }

    @Test func gpxExportHasOneWaypointPerRegion() throws {
        let directory = try TempDirectory()
        let gpx = String(decoding: try Self.storeWithSamples(in: directory).export(.gpx), as: UTF8.self)
        #expect(gpx.components(separatedBy: "<wpt ").count - 1 == 2)
        #expect(gpx.contains("<name>Kadıköy, İstanbul, Türkiye</name>"))
        #expect(gpx.contains("<time>2023-11-14T22:13:20.123Z</time>"))
    }

    @Test func unitsMatchByCodeOrByNameWithoutCaseOrTurkishDots() throws {
        let directory = try TempDirectory()
        let store = try Self.storeWithSamples(in: directory)
        for unit in ["TR-34", "tr-34", "istanbul", "İSTANBUL", "Istanbul", "kadikoy", "Türkiye", "TUR034023"] {
            #expect(try store.regions(in: unit).count == 1, "\(unit)")
        }
        #expect(try store.regions(in: "Ankara").isEmpty)
    }
}

/// The store, its write-ahead log and shared memory, and a new directory for it are the owner's
/// only (under umask 022, SQLite alone would make them 0644 and the directory 0755).
@Suite(.serialized) struct RegionStorePrivacyTests {
    @Test func aNewStoreAndItsCompanionsArePrivate() throws {
        let directory = try TempDirectory("roqua-store-mode")
        let path = directory.file("home/roqua/regions.sqlite")
        let previous = umask(0o022)
        defer { umask(previous) }
        let store = try RegionStore(path: path)
        try store.write { db in try db.execute(sql: "DELETE FROM visited_regions") }
        for file in [path, path + "-wal", path + "-shm"] {
            var info = stat()
            #expect(stat(file, &info) == 0 && info.st_mode & 0o777 == 0o600, "\(file): \(String(info.st_mode & 0o777, radix: 8))")
        }
        for folder in [directory.file("home"), directory.file("home/roqua")] {
            var info = stat()
            #expect(stat(folder, &info) == 0 && info.st_mode & 0o777 == 0o700, "\(folder)")
        }
    }
}
