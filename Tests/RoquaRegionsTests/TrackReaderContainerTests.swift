import Foundation
import RoquaIO
import RoquaTestSupport
import Testing

@testable import RoquaRegions

/// `.gz` files, ZIP archives (a Strava-style export) and folders.
@Suite struct TrackReaderContainerTests {
    typealias F = TrackFixtures
    static let fixtures = Repository.path("Tests/Fixtures/tracks")

    @Test func gzipIsReadThroughAndGivesTheSameFixes() throws {
        let plain = try F.readAll(path: Self.fixtures + "/cerknicko-jezero.gpx")
        let reader = try TrackReaders.open(path: Self.fixtures + "/cerknicko-jezero.gpx.gz")
        let zipped = try F.readAll(reader)
        #expect(plain.count == 297 && zipped == plain)  // gpxpy: 297 timed points, 6 without a time
        #expect(reader.untimedPoints == 6)
        #expect(try TrackFormat.detect(path: Self.fixtures + "/cerknicko-jezero.gpx.gz") == .gpx)
    }

    @Test func concatenatedGzipMembersAreOneStream() throws {
        let dir = try TempDirectory()
        let gz = try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/cerknicko-jezero.gpx.gz"))
        // Two members are read as one stream: two GPX documents back to back, which the second
        // member's `<gpx>` after the first's `</gpx>` shows.
        let path = dir.file("twice.gpx.gz")
        try (gz + gz).write(to: URL(fileURLWithPath: path))
        let error = F.readError(path)
        #expect(error?.message.contains("after the end of the document (</gpx>)") == true, "\(String(describing: error))")
    }

    @Test func truncatedOrCorruptGzipIsAnError() throws {
        let dir = try TempDirectory()
        let gz = try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/cerknicko-jezero.gpx.gz"))
        let cut = dir.file("cut.gpx.gz")
        try gz.prefix(gz.count / 2).write(to: URL(fileURLWithPath: cut))
        #expect(F.readError(cut)?.message.contains("truncated") == true)
        var bytes = [UInt8](gz)
        for i in 200..<260 { bytes[i] ^= 0x5A }
        let corrupt = dir.file("corrupt.gpx.gz")
        try Data(bytes).write(to: URL(fileURLWithPath: corrupt))
        let error = F.readError(corrupt)
        #expect(error?.file == corrupt && error?.message.contains("gzip") == true, "\(String(describing: error))")
    }

    @Test func zipArchivesListTheirTrackFiles() throws {
        let archive = Self.fixtures + "/strava-export.zip"
        let inputs = TrackInputs.expand([archive])
        var names: [String] = []
        var passedOver = 0
        for input in inputs {
            switch input {
            case let .source(source): names.append(source.name)
            case let .skipped(_, count): passedOver += count
            case let .failed(path, error): Issue.record("\(path): \(error)")
            case let .photos(batch): Issue.record("no photo in this archive: \(batch)")
            }
        }
        #expect(names == ["activities/1.fit", "activities/2.tcx.gz", "activities/3.gpx.gz", "activities.csv"].map { "\(archive):\($0)" })
        #expect(passedOver == 1)  // profile.txt
        var counts: [Int] = []
        for case let .source(source) in inputs {
            if source.name.hasSuffix("activities.csv") {
                // Strava's activity list: a CSV without coordinates is not a track.
                #expect(throws: TrackReadError.self) { try TrackFormat.detect(source) }
                continue
            }
            counts.append(try F.readAll(try TrackFormat.detect(source).open(source)).count)
        }
        #expect(counts == [21, 6, 297])
    }

    @Test func foldersAreWalkedAndBadArchivesNamed() throws {
        let dir = try TempDirectory()
        let sub = try dir.subdirectory("2019/rides")
        try FileManager.default.copyItem(atPath: Self.fixtures + "/garmin-fenix-5-run.fit", toPath: sub + "/a.fit")
        try FileManager.default.copyItem(atPath: Self.fixtures + "/sample.tcx", toPath: dir.file("b.tcx"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir.file("photo.jpg")))
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir.file(".hidden.gpx")))
        try Data("PK\u{3}\u{4}broken".utf8).write(to: URL(fileURLWithPath: dir.file("broken.zip")))
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir.file("notes.txt")))
        var sources: [String] = [], failed: [String] = [], skipped = 0, photos: [PhotoBatch] = []
        for input in TrackInputs.expand([dir.path]) {
            switch input {
            case let .source(source): sources.append(source.name)
            case let .failed(path, _): failed.append(path)
            case let .skipped(_, count): skipped += count
            case let .photos(batch): photos.append(batch)
            }
        }
        #expect(sources == [sub + "/a.fit", dir.file("b.tcx")])
        #expect(failed == [dir.file("broken.zip")])
        #expect(skipped == 1)
        // Photos are one batch of the folder named, each named by its path in it.
        #expect(photos == [PhotoBatch(name: dir.path, files: [PhotoFile(photo: dir.file("photo.jpg"), historyName: "photo.jpg")])])

        let empty = dir.file("empty.zip")
        try Data([0x50, 0x4B, 0x05, 0x06] + [UInt8](repeating: 0, count: 18)).write(to: URL(fileURLWithPath: empty))
        guard case let .failed(_, error) = TrackInputs.expand([empty]).first else {
            Issue.record("an empty archive must fail")
            return
        }
        #expect("\(error)".contains("a ZIP archive with no supported file"))
    }

    @Test func binaryFilesGetNamedErrors() throws {
        let dir = try TempDirectory()
        let cases: [([UInt8], String)] = [
            ([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10], "a JPEG image"),
            (Array("%PDF-1.4\n".utf8), "a PDF document"),
            (Array("BZh91AY".utf8), "bzip2"),
            (Array("SQLite format 3\0".utf8), "an SQLite database"),
            ([12, 0x10, 0, 0, 0, 0, 0, 0] + Array(".FIT".utf8), "data size of 0"),
            ([0x13, 0x10, 0, 0, 0, 0, 0, 0] + Array(".FIT".utf8), "a FIT file with a header of 19 bytes"),
            ([1, 2, 0, 3, 4, 5], "binary data of an unknown kind"),
        ]
        for (index, (bytes, fragment)) in cases.enumerated() {
            let path = dir.file("file\(index).dat")
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let error = F.readError(path)
            #expect(error?.file == path && error?.message.contains(fragment) == true, "\(String(describing: error))")
        }
    }

    /// What an upload expands to, counted before anything is imported: exact for whole data,
    /// nil past the limit, and up to the break for corrupt data (never a throw that would let
    /// a corrupt member go uncounted).
    @Test func expandedSizeCountsWhatAReaderWouldRead() throws {
        let plain = try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/cerknicko-jezero.gpx")).count
        let gz = Self.fixtures + "/cerknicko-jezero.gpx.gz"
        #expect(try TrackSource(file: gz).expandedSize(upTo: 1 << 30) == plain)
        #expect(try TrackSource(file: gz).expandedSize(upTo: plain - 1) == nil)
        #expect(try TrackSource(file: Self.fixtures + "/cerknicko-jezero.gpx").expandedSize(upTo: plain - 1) == nil)
        let dir = try TempDirectory()
        let truncated = dir.file("truncated.gpx.gz")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: gz))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))
        // zlib gives nothing of a block it cannot finish: what is counted is what a reader gets.
        let counted = try #require(try TrackSource(file: truncated).expandedSize(upTo: 1 << 30))
        #expect(counted < plain)
        #expect(F.readError(truncated)?.message.contains("gzip") == true)
        var entries = 0
        for case let .source(source) in TrackInputs.expand([Self.fixtures + "/strava-export.zip"]) {
            #expect(try (source.expandedSize(upTo: 1 << 30) ?? 0) > 0, "\(source.name)")
            entries += 1
        }
        #expect(entries >= 3)
        var checks = 0
        _ = try TrackSource(file: gz).expandedSize(upTo: 1 << 30) { checks += 1 }
        #expect(checks == 0)  // under 8 MiB: no check needed
    }
}
