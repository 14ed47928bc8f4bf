import Foundation
import GRDB
import RoquaBoundaries
import RoquaIO
import RoquaRegions
import RoquaTestSupport
import Testing

/// Track files → regions in a real store, enriched from the bundled boundaries.
@Suite struct TrackImportTests {
    static let districts = ["Fatih", "Beyoğlu", "Şişli", "Beşiktaş", "Üsküdar", "Kadıköy", "Ataşehir", "Bakırköy"]

    /// A walk of ~1 km inside each of eight İstanbul districts, one track segment each, a fix every 30 s.
    static func eightDistrictWalk() throws -> String {
        let context = GEOSContext()
        let codes = try Bundled.database().read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT code, name FROM boundaries WHERE level = 2 AND country_code = 'TR' AND parent_id = (SELECT id FROM boundaries WHERE code = 'TR-34')"
            )
        }
        var time = Date(timeIntervalSince1970: 1_714_550_400)  // 2024-05-01T08:00:00Z
        var gpx =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"test\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><name>walk</name>\n"
        for name in districts {
            let code: String = try #require(codes.first { $0["name"] == name }?["code"])
            let prepared = try Bundled.geometry(code, in: context).prepared()
            let start = try prepared.geometry.pointOnSurface()
            gpx += "<trkseg>\n"
            for step in 0..<24 {  // 24 fixes, 45 m apart along a small square around the start, kept inside
                let side = Double(step / 6), along = Double(step % 6) * 0.0004
                let dx = side == 0 ? along : side == 1 ? 0.0024 : side == 2 ? 0.0024 - along : 0
                let dy = side == 1 ? along : side == 2 ? 0.0024 : side == 3 ? 0.0024 - along : 0
                var (x, y) = (start.x + dx - 0.0012, start.y + dy - 0.0012)
                if try !prepared.covers(context.point(x: x, y: y)) { (x, y) = start }
                gpx += "<trkpt lat=\"\(y)\" lon=\"\(x)\"><time>\(try StoreTime.text(time))</time></trkpt>\n"
                time += 30
            }
            gpx += "</trkseg>\n"
            time += 3600
        }
        return gpx + "</trk></gpx>\n"
    }

    struct Setup {
        let directory: TempDirectory
        let store: RegionStore
        let importer: TrackImporter
        let events: RegionEventStream
    }

    static func setup() throws -> Setup {
        let directory = try TempDirectory()
        let store = try RegionStore(path: directory.file("regions.sqlite"))
        let events = RegionEventStream()
        let importer = try TrackImporter(store: store, enricher: try RegionEnricher(boundaries: Bundled.path()), events: events)
        return Setup(directory: directory, store: store, importer: importer, events: events)
    }

    @Test func aWalkThroughEightDistrictsIsEnrichedAndReimportingAddsNothing() async throws {
        let s = try Self.setup()
        let file = s.directory.file("walk.gpx")
        try Self.eightDistrictWalk().write(toFile: file, atomically: true, encoding: .utf8)
        let summary = try s.importer.importFile(file)
        #expect(summary.fixesRead == 8 * 24)
        #expect(summary.newRegions >= 8)
        // Into an empty store the checksum is computed beside the import; it is the file's all the same.
        #expect(try s.store.read { try String.fetchAll($0, sql: "SELECT checksum FROM imports") } == [try SHA256.hex(ofFile: file)])
        let regions = try s.store.allRegions()
        #expect(Set(regions.compactMap(\.district)) == Set(Self.districts))
        #expect(regions.allSatisfy { $0.province == "İstanbul" && $0.country == "Türkiye" && $0.countryCode == "TR" })
        #expect(regions.allSatisfy { $0.geohash.count == 7 && $0.radius == 150 })
        #expect(Set(summary.firsts.filter { $0.level == .district }.map(\.name)) == Set(Self.districts))
        #expect(summary.firsts.filter { $0.level == .province }.map(\.code) == ["TR-34"])

        let again = try s.importer.importFile(file)
        #expect(again.alreadyImported)
        #expect(try s.store.allRegions() == regions)

        // The same fixes in another file (other bytes) match the stored regions: no new region, same visit.
        try (Self.eightDistrictWalk() + "\n").write(toFile: s.directory.file("copy.gpx"), atomically: true, encoding: .utf8)
        let copy = try s.importer.importFile(s.directory.file("copy.gpx"))
        #expect(copy.newRegions == 0 && copy.revisits == 0 && copy.firsts.isEmpty)
        #expect(try s.store.allRegions() == regions)

        s.events.finish()
        var news: [RegionEvent.Touch] = [], firstDistricts: [String] = [], firstCountries: [String] = []
        for await event in s.events.events {
            switch event {
            case let .newRegion(touch): news.append(touch)
            case let .firstDistrict(_, name): firstDistricts.append(name)
            case let .firstCountry(code, _): firstCountries.append(code)
            default: break
            }
        }
        // Each new region once, by its stored id, with the end of its visit.
        #expect(news.count == summary.newRegions)
        #expect(news == regions.compactMap(RegionEvent.Touch.init) && news.count == regions.count)
        #expect(Set(firstDistricts) == Set(Self.districts) && firstDistricts.count == 8)
        #expect(firstCountries == ["TR"])
    }

    /// What the importer hands its `alongside` as the stored regions (so the achievements need
    /// not read a million regions again) is what the store reads back, to the bit: new regions,
    /// revisited ones and untouched ones, from fixes timed to the microsecond; the summary that
    /// leaves the importer holds none of them.
    @Test func theRegionsHandedAlongAreTheOnesTheStoreReadsBack() throws {
        let s = try Self.setup()
        func check(_ name: String, _ csv: String) throws -> TrackImportSummary {
            let file = s.directory.file(name)
            try csv.write(toFile: file, atomically: true, encoding: .utf8)
            let (summary, extra) = try s.importer.importFile(file) { db, summary in
                (summary.storedRegions, try RegionStore.regions(db).readable)
            }
            let (handed, read) = try #require(extra)
            #expect(try #require(handed) == read)
            #expect(read.count == (try s.store.allRegions().count) && summary.storedRegions == nil)
            return summary
        }
        let first = try check(
            "day.csv",
            """
            lat,lon,timestamp
            40.9879,29.0281,2024-05-01T08:00:00.123456Z
            40.9880,29.0282,2024-05-01T08:10:00.987654Z
            41.0430,29.0070,2024-05-01T09:00:00.000499Z
            40.9879,29.0281,2024-05-01T12:00:00.999501Z
            39.9208,32.8541,2024-05-01T18:30:00.5005Z
            """)
        #expect(first.newRegions == 3 && first.revisits == 1)
        let next = try check(
            "next.csv",
            """
            lat,lon,timestamp
            40.9879,29.0281,2024-05-02T08:00:00.000001Z
            38.4237,27.1428,2024-05-02T11:00:00.666666Z
            40.9879,29.0281,2024-05-02T13:00:00.333333Z
            """)
        #expect(next.newRegions == 1 && next.revisits == 2)
    }

    @Test func aReturnAfterHoursIsARevisit() throws {
        let s = try Self.setup()
        let csv = """
            lat,lon,timestamp
            40.9879,29.0281,2024-05-01T08:00:00Z
            40.9880,29.0282,2024-05-01T08:10:00Z
            41.0430,29.0070,2024-05-01T09:00:00Z
            40.9879,29.0281,2024-05-01T12:00:00Z
            """
        try csv.write(toFile: s.directory.file("day.csv"), atomically: true, encoding: .utf8)
        let summary = try s.importer.importFile(s.directory.file("day.csv"))
        #expect(summary.newRegions == 2 && summary.revisits == 1)
        let kadikoy = try #require(try s.store.allRegions().first { $0.district == "Kadıköy" })
        #expect(kadikoy.visitCount == 2)
        #expect(try StoreTime.text(kadikoy.lastVisit) == "2024-05-01T12:00:00.000Z")

        // Back the next day, twice within a file: one revisit event for the stored region, as it now is.
        try "lat,lon,timestamp\n40.9879,29.0281,2024-05-02T08:00:00Z\n40.9879,29.0281,2024-05-02T10:00:00Z\n"
            .write(toFile: s.directory.file("next.csv"), atomically: true, encoding: .utf8)
        let next = try s.importer.importFile(s.directory.file("next.csv"))
        #expect(next.revisits == 2 && next.newRegions == 0)
        let later = try #require(try s.store.allRegions().first { $0.id == kadikoy.id })
        #expect(next.events == [.revisit(RegionEvent.Touch(id: try #require(kadikoy.id), latestVisit: later.latestVisit))])
        #expect(try StoreTime.text(later.latestVisit) == "2024-05-02T10:00:00.000Z")
    }

    /// One bad value costs its point: the rest of the file is imported and the skip reported;
    /// a file where nothing can be read is refused naming the first bad record, the store unchanged.
    @Test func aBadRecordIsSkippedAndReported() throws {
        let s = try Self.setup()
        let kml = """
            <kml><Document>
            <Placemark><TimeStamp><when>2024-05-01T08:00:00Z</when></TimeStamp><Point><coordinates>29.0281,40.9879</coordinates></Point></Placemark>
            <Placemark><TimeStamp><when>2024-05-01T08:10:00Z</when></TimeStamp><Point><coordinates>29.0281,140.9879</coordinates></Point></Placemark>
            <Placemark><TimeStamp><when></when></TimeStamp><Point><coordinates>29.0070,41.0430</coordinates></Point></Placemark>
            </Document></kml>
            """
        try kml.write(toFile: s.directory.file("glitch.kml"), atomically: true, encoding: .utf8)
        let summary = try s.importer.importFile(s.directory.file("glitch.kml"))
        #expect(summary.fixesRead == 1 && summary.newRegions == 1 && summary.untimedSkipped == 1)
        #expect(summary.skipped.count == 1 && summary.skipped.lines == [3])
        #expect(
            summary.report(maxAccuracy: 100).contains(
                "1 fixes read, 1 untimed skipped, 1 record(s) skipped (1 invalid coordinate; line 3)"),
            "\(summary.report(maxAccuracy: 100))")
        let before = try s.store.export(.json)
        let bad = s.directory.file("bad.kml")
        try
            "<kml><Placemark><TimeStamp><when>2024-05-02T08:00:00Z</when></TimeStamp>\n<Point><coordinates>29,95</coordinates></Point></Placemark></kml>"
            .write(toFile: bad, atomically: true, encoding: .utf8)
        do {
            _ = try s.importer.importFile(bad)
            Issue.record("a file with nothing readable was imported")
        } catch {
            let text = String(describing: error)
            #expect(text.contains(bad) && text.contains("line 2:") && text.contains("nothing in the file could be read"), "\(text)")
        }
        #expect(try s.store.export(.json) == before)
    }

    @Test(arguments: [
        (
            "truncated.gpx",
            "<?xml version=\"1.0\"?>\n<gpx><trk><trkseg>\n<trkpt lat=\"41.0\" lon=\"29.0\"><time>2024-05-01T08:00:00Z</time></trkpt>\n<trkpt lat=\"41.0"
        ),
        ("broken.gpx", "<gpx><trk><trkseg>\n<trkpt lat=\"41.0\" lon=\"29.0\"><time>2024-05-01T08:00:00Z</time></trkseg>\n</gpx>\n"),
        // Nothing readable (one good row among bad ones is imported: aBadRecordIsSkippedAndReported).
        ("bad-row.csv", "lat,lon,timestamp\n41.0,x29.0,2024-05-01T08:00:00Z\n41.1,abc,2024-05-01T08:01:00Z\n"),
        ("bad-time.csv", "lat,lon,timestamp\n41.0,29.0,today\n41.1,29.1,yesterday\n"),
        ("shape.json", "{\"locations\": {\"latitudeE7\": 1}}"),
    ])
    func malformedFilesChangeNothing(name: String, content: String) throws {
        let s = try Self.setup()
        try "lat,lon,timestamp\n40.9879,29.0281,2024-05-01T08:00:00Z\n".write(
            toFile: s.directory.file("ok.csv"), atomically: true, encoding: .utf8)
        _ = try s.importer.importFile(s.directory.file("ok.csv"))
        let before = try s.store.export(.json)
        let file = s.directory.file(name)
        try content.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(throws: (any Error).self) { try s.importer.importFile(file) }
        do { _ = try s.importer.importFile(file) } catch {
            #expect(String(describing: error).contains(file), "\(error)")
        }
        #expect(try s.store.export(.json) == before)
    }

    @Test func enrichFillsRegionsStoredWithoutNames() throws {
        let s = try Self.setup()
        try s.store.write { db in
            try VisitedRegion(
                latitude: 40.9879, longitude: 29.0281, radius: 150, timestampStart: Date(timeIntervalSince1970: 1_714_550_400),
                geohash: "sxk9ht9"
            ).insert(db)
        }
        let stale = try s.store.regionsNeedingEnrichment(current: s.importer.enricher.identity, all: false)
        #expect(stale.count == 1)
        #expect(try s.store.enrich(stale, with: s.importer.enricher) == 1)
        #expect(try s.store.allRegions().first?.district == "Kadıköy")
        #expect(try s.store.regionsNeedingEnrichment(current: s.importer.enricher.identity, all: true).isEmpty)
    }
}
