import Foundation
import RoquaTestSupport
import Testing

@testable import RoquaPhotos

@Suite struct TakeoutTests {
    let reader = PhotoReader()

    @Test func sidecarAloneWithTruncatedName() throws {
        // geoDataExif is 0/0 (none), so geoData is used; time is photoTakenTime.
        let r = reader.read(photoPath: nil, sidecarPath: Fixture.path("PXL_20220102_030405678.jpg.supplemental-met.json"))
        let fix = try #require(r.fix)
        #expect(fix.latitude == -36.8485)
        #expect(fix.longitude == 174.7633)
        #expect(fix.altitude == 12)
        #expect(fix.accuracy == nil)
        #expect(fix.timeMillis == 1_641_092_645_000)
    }

    @Test func sidecarBesidePhotoWithoutGPS() throws {
        // IMG_1234.jpg has no GPS but DateTimeOriginal 07:08:09 +01:00; the sidecar's geoDataExif wins over geoData.
        let r = reader.read(
            photoPath: Fixture.path("IMG_1234.jpg"),
            sidecarPath: Fixture.path("IMG_1234.jpg.supplemental-metadata.json"))
        let fix = try #require(r.fix)
        #expect(fix.latitude == 51.50072)
        #expect(fix.longitude == -0.12462)
        #expect(fix.altitude == 20.5)
        #expect(fix.timeMillis == 1_620_281_289_000)
    }

    @Test func photoGPSBeatsSidecarPosition() throws {
        let r = reader.read(
            photoPath: Fixture.path("gps-full.jpg"),
            sidecarPath: Fixture.path("IMG_1234.jpg.supplemental-metadata.json"))
        let fix = try #require(r.fix)
        #expect(abs(fix.latitude - 48.8582) < 1e-9)
        #expect(fix.accuracy == 4.5)
        #expect(fix.timeMillis == 1_689_338_096_500)  // GPS time, not photoTakenTime
    }

    @Test func sidecarTimeRescuesLocalTimeWithoutOffset() throws {
        // no-offset.jpg: position from EXIF, local time without offset → the sidecar's UTC photoTakenTime.
        let side = Array(#"{"photoTakenTime": {"timestamp": "1709251200"}, "geoData": {"latitude": 0, "longitude": 0}}"#.utf8)
        let r = PhotoReader().read(photoBytes: Fixture.bytes("no-offset.jpg"), sidecarBytes: side)
        let fix = try #require(r.fix)
        #expect(abs(fix.latitude - (35 + 39.0 / 60 + 31.0 / 3600)) < 1e-9)
        #expect(fix.timeMillis == 1_709_251_200_000)
    }

    @Test func unreadableOrMalformedPhotoFallsBackToSidecar() throws {
        let side = Fixture.path("IMG_1234.jpg.supplemental-metadata.json")
        let missing = reader.read(photoPath: "/nonexistent/IMG_1234.jpg", sidecarPath: side)
        #expect(missing.fix?.latitude == 51.50072)
        let broken = reader.read(
            photoBytes: [0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0],
            sidecarBytes: Fixture.bytes("IMG_1234.jpg.supplemental-metadata.json"))
        #expect(broken.fix?.timeMillis == 1_620_281_289_000)
        // With a sidecar that has no position, the photo's failure is what is reported.
        let both = reader.read(photoPath: "/nonexistent/x.jpg", sidecarPath: Fixture.path("IMG_0001.heic.json"))
        if case .unreadable? = both.skipReason {} else { Issue.record("expected unreadable, got \(both)") }
    }

    @Test func sidecarWithoutPosition() {
        #expect(reader.read(photoPath: nil, sidecarPath: Fixture.path("IMG_0001.heic.json")) == .skipped(.noPosition))
    }

    @Test func hostileSidecars() {
        func reading(_ json: String) -> PhotoReading { reader.read(photoBytes: [], sidecarBytes: Array(json.utf8)) }
        // With empty photo bytes the photo is unsupported; a sidecar position still gives a fix.
        #expect(reading(#"{"geoData":{"latitude":1.5,"longitude":2.5},"photoTakenTime":{"timestamp":"100"}}"#).fix?.timeMillis == 100_000)
        #expect(reading(#"{"geoData":{"latitude":1.5,"longitude":2.5},"photoTakenTime":{"timestamp":100}}"#).fix?.timeMillis == 100_000)
        #expect(reading(#"{"geoData":{"latitude":1.5,"longitude":2.5}}"#) == .skipped(.noTime))
        #expect(reading(#"{"geoData":{"latitude":91,"longitude":2.5},"photoTakenTime":{"timestamp":"1"}}"#).fix == nil)
        #expect(throws: ReadFailure.self) { try TakeoutReader.parse(Array("{not json".utf8)) }
        #expect(throws: ReadFailure.self) { try TakeoutReader.parse(Array(#"{"photoTakenTime":{"timestamp":"soon"}}"#.utf8)) }
        #expect(throws: ReadFailure.self) { try TakeoutReader.parse(Array(#"{"geoData":{"latitude":"north"}}"#.utf8)) }
        let deep = String(repeating: "[", count: 100_000)
        #expect(throws: ReadFailure.self) { try TakeoutReader.parse(Array(deep.utf8)) }
        // Sidecar alone and broken: its own reason.
        let alone = reader.read(photoPath: nil, sidecarPath: "/nonexistent.json")
        if case .unreadable? = alone.skipReason {} else { Issue.record("got \(alone)") }
    }

    @Test func oversizedSidecarIsRefusedWithoutReadingIt() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("roqua-photos-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("big.jpg.json")
        try Data(repeating: 0x20, count: 1 << 20).write(to: url)
        let (r, bytesRead) = reader.readMeasured(photoPath: nil, sidecarPath: url.path)
        #expect(r.malformedMessage?.contains("exceeds the cap") == true)
        #expect(bytesRead == 0)
    }
}

@Suite struct FileKindTests {
    @Test(arguments: ["a.jpg", "B.JPG", "c.jpeg", "d.HEIC", "e.heif", "f.avif", "g.Png", "/x/y/IMG_1.jpg"])
    func photos(_ name: String) {
        #expect(PhotoFileKind(fileName: name) == .photo)
    }

    @Test(arguments: [
        ("IMG_1234.jpg.json", "IMG_1234.jpg"),
        ("IMG_1234.jpg.supplemental-metadata.json", "IMG_1234.jpg"),
        ("IMG_1234.jpg.supplemental-metad.json", "IMG_1234.jpg"),
        ("IMG_1234.JPG.supplemental-met.json", "IMG_1234.JPG"),
        ("IMG_1234.HEIC.s.json", "IMG_1234.HEIC"),
        ("IMG_1234.jpg.supplemental-metadata(1).json", "IMG_1234.jpg"),
        ("IMG_1234.jpg(2).json", "IMG_1234.jpg"),
        ("/takeout/Photos/IMG_5.png.supplemental-metadata.JSON", "IMG_5.png"),
    ])
    func sidecars(_ v: (String, String)) {
        #expect(PhotoFileKind(fileName: v.0) == .takeoutSidecar(photoName: v.1))
    }

    @Test(arguments: [
        "metadata.json", "print-subscriptions.json", "IMG_1.gif", "IMG_1.jpg.other.json",
        "IMG_1.mp4.json", ".json", "jpg", "IMG_1.jpg.txt", "notes",
    ])
    func others(_ name: String) {
        #expect(PhotoFileKind(fileName: name) == .other)
    }
}

@Suite struct BytesReadTests {
    @Test func fiveMegabyteJPEGReadsOnlyItsHeaders() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("roqua-photos-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // Real JPEG with 5 MB of scan data inserted before EOI.
        var bytes = Fixture.bytes("gps-full.jpg")
        var rng = SystemRandomNumberGenerator()
        let payload = (0..<(5 << 20)).map { _ in UInt8.random(in: 0...0xFE, using: &rng) }
        bytes.insert(contentsOf: payload, at: bytes.count - 2)
        let url = dir.appendingPathComponent("big.jpg")
        try Data(bytes).write(to: url)
        let (r, read) = PhotoReader().readMeasured(photoPath: url.path)
        #expect(r.fix?.accuracy == 4.5)
        #expect(read < 128 * 1024)
        #expect(read < 2048, "JPEG read \(read) bytes")

        // HEIF with a 5 MB image item in mdat before the Exif item.
        var t = TIFFBuilder()
        t.standard()
        var h = HEIFBuilder(tiff: t.build().bytes)
        h.imageBytes = 5 << 20
        let heic = dir.appendingPathComponent("big.heic")
        try Data(h.build()).write(to: heic)
        let (r2, read2) = PhotoReader().readMeasured(photoPath: heic.path)
        #expect(r2.fix != nil)
        #expect(read2 < 2048, "HEIF read \(read2) bytes")

        // Every fixture stays well under the budget.
        for name in ["gps-full.jpg", "south-west.jpg", "gps.heic", "gps.avif", "gps.png"] {
            let (_, n) = PhotoReader().readMeasured(photoPath: Fixture.path(name))
            #expect(n < 2048, "\(name) read \(n) bytes")
        }
    }

    @Test func budgetIsEnforced() {
        var t = TIFFBuilder()
        t.standard()
        var small = PhotoReader()
        small.budget = 64
        let r = small.read(photoBytes: jpeg(tiff: t.build().bytes))
        #expect(r.malformedMessage?.contains("read budget of 64 bytes exceeded") == true)
    }
}

@Suite struct FuzzEntryPointTests {
    @Test func fuzzEntryPointsSurviveMutations() {
        var rng = SeededGenerator(state: 42)
        let seeds: [(([UInt8]) -> PhotoReading, [UInt8])] = [
            (fuzzJPEG, Fixture.bytes("gps-full.jpg")), (fuzzISOBMFF, Fixture.bytes("gps.heic")),
            (fuzzISOBMFF, Fixture.bytes("gps.avif")), (fuzzPNG, Fixture.bytes("gps.png")),
            (fuzzTakeout, Fixture.bytes("IMG_1234.jpg.supplemental-metadata.json")),
        ]
        for (run, seed) in seeds {
            #expect(run(seed).fix != nil || run(seed).skipReason == .noPosition)
            #expect(run([]).fix == nil)
            for _ in 0..<300 {
                var b = seed
                for _ in 0..<Int.random(in: 1...8, using: &rng) {
                    let i = Int.random(in: 0..<b.count, using: &rng)
                    b[i] = UInt8.random(in: 0...255, using: &rng)
                }
                _ = run(b)
            }
        }
    }
}

@Suite struct TakeoutNestingTests {
    /// 513 brackets ending the text crash Foundation's decoder on Linux: a sidecar is refused instead.
    @Test func aDeeplyNestedSidecarIsRefusedNotACrash() {
        let deep = [UInt8](repeating: UInt8(ascii: "["), count: 513)
        guard case .skipped(.malformed(let what)) = fuzzTakeout(deep) else {
            Issue.record("a 513-deep sidecar was not refused as damaged")
            return
        }
        #expect(what.contains("sidecar JSON"))
    }
}
