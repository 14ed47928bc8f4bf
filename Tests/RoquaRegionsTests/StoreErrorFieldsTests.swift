import RoquaIO
import RoquaRegions
import Testing

/// The store's and an export's errors carry their path as a field: an answer that must not show
/// internal paths (roqua serve's) shows the message alone, or the file under the name it came by.
@Suite struct StoreErrorFieldsTests {
    @Test func storeErrorsWithAndWithoutTheirPath() {
        let path = "/home/a/.local/share/roqua/regions.sqlite"
        let errors: [RegionStoreError] = [
            .cannotOpen(path: path, reason: "the disk is full"),
            .notARegionStore(path: path, reason: "it holds the tables notes"),
            .notEmpty(path: path, regions: 8), .cannotWrite(path: path, reason: "read-only"),
        ]
        for error in errors {
            #expect(error.path == path)
            #expect(error.description == "\(path): \(error.message)")
            #expect(!error.message.contains(path) && !error.message.isEmpty)
        }
        #expect(
            RegionStoreError.notEmpty(path: path, regions: 8).message
                == "the store already holds 8 regions; restore into an empty store, or pass --replace")
    }

    @Test func anExportByTheNameItWasUploadedUnder() {
        let spool = "/tmp/roqua-upload.x1/upload"
        let bad = ArchiveError.badRow(file: spool, section: "regions", index: 2, reason: "radius -5 m is outside 10…5000 m")
        #expect(bad.renaming(spool, as: "the upload").description == "the upload: regions entry 3: radius -5 m is outside 10…5000 m")
        #expect(ArchiveError.notRestorable(file: spool).renaming(spool, as: "trip.gpx") == .notRestorable(file: "trip.gpx"))
        #expect(ArchiveError.unreadable(file: spool, reason: "x").renaming(spool, as: "a.json").file == "a.json")
    }
}
