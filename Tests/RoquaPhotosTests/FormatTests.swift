import Foundation
import Testing

@testable import RoquaPhotos

private func expectFix(
    _ reading: PhotoReading, lat: Double, lon: Double, millis: Int64,
    accuracy: Double? = nil, altitude: Double? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let fix = reading.fix else {
        Issue.record("expected a fix, got \(reading)", sourceLocation: sourceLocation)
        return
    }
    #expect(abs(fix.latitude - lat) < 1e-9, "latitude \(fix.latitude) != \(lat)", sourceLocation: sourceLocation)
    #expect(abs(fix.longitude - lon) < 1e-9, "longitude \(fix.longitude) != \(lon)", sourceLocation: sourceLocation)
    #expect(fix.timeMillis == millis, sourceLocation: sourceLocation)
    #expect(fix.accuracy == accuracy, sourceLocation: sourceLocation)
    if let altitude, let a = fix.altitude {
        #expect(abs(a - altitude) < 1e-9, sourceLocation: sourceLocation)
    } else {
        #expect(fix.altitude == altitude, sourceLocation: sourceLocation)
    }
}

@Suite struct FormatTests {
    let reader = PhotoReader()

    @Test func jpegFullGPSPrefersGPSTime() {
        // GPS time 12:34:56.5Z wins over DateTimeOriginal 14:34:50.120+02:00 (= 12:34:50.120Z).
        expectFix(
            reader.read(photoPath: Fixture.path("gps-full.jpg")),
            lat: 48 + 51.0 / 60 + 29.52 / 3600, lon: 2 + 17.0 / 60 + 40.2 / 3600,
            millis: 1_689_338_096_500, accuracy: 4.5, altitude: 35.5)
    }

    @Test func jpegSouthWestBigEndianOffsetAndSubseconds() {
        // 2022-12-31 21:15:00.25 -03:00 → 2023-01-01T00:15:00.250Z; altitude ref 1 → below sea level.
        expectFix(
            reader.read(photoPath: Fixture.path("south-west.jpg")),
            lat: -(33 + 51.0 / 60 + 35.9 / 3600), lon: -(70 + 40.0 / 60 + 12.0 / 3600),
            millis: 1_672_532_100_250, accuracy: nil, altitude: -12)
    }

    @Test func jpegWithoutOffsetNeedsATimeZone() {
        #expect(reader.read(photoPath: Fixture.path("no-offset.jpg")) == .skipped(.noTimeZone))
        let tokyo = PhotoReader(timeZone: TimeZone(identifier: "Asia/Tokyo")!)
        expectFix(
            tokyo.read(photoPath: Fixture.path("no-offset.jpg")),
            lat: 35 + 39.0 / 60 + 31.0 / 3600, lon: 139 + 42.0 / 60 + 3.0 / 3600,
            millis: 1_709_251_200_000)
    }

    @Test func callerZoneHonoursDaylightSaving() {
        // 2023-07-14 14:34:50 in Europe/Berlin is CEST (+02:00); in January it is CET (+01:00).
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        let summer = ExifInterpretation.parseDateTime("2023:07:14 14:34:50")!
        #expect(ExifInterpretation.utcMillis(local: summer, in: berlin) == summer - 7_200_000)
        let winter = ExifInterpretation.parseDateTime("2023:01:14 14:34:50")!
        #expect(ExifInterpretation.utcMillis(local: winter, in: berlin) == winter - 3_600_000)
    }

    @Test func jpegWithoutGPSIsNoPosition() {
        #expect(reader.read(photoPath: Fixture.path("IMG_1234.jpg")) == .skipped(.noPosition))
    }

    @Test func heicFromLibheif() {
        expectFix(
            reader.read(photoPath: Fixture.path("gps.heic")),
            lat: 40 + 41.0 / 60 + 21.0 / 3600, lon: -(74 + 2.0 / 60 + 40.0 / 3600),
            millis: 1_583_020_799_000, accuracy: 12)
    }

    @Test func avifFromLibavifUsesOffset() {
        // No GPS time: 2019-08-10 10:20:30 -03:00.
        expectFix(
            reader.read(photoPath: Fixture.path("gps.avif")),
            lat: -(22 + 54.0 / 60 + 30.0 / 3600), lon: -(43 + 10.0 / 60 + 20.0 / 3600),
            millis: 1_565_443_230_000, accuracy: 30)
    }

    @Test func pngWithExifChunk() {
        expectFix(
            reader.read(photoPath: Fixture.path("gps.png")),
            lat: 64 + 8.0 / 60 + 45.0 / 3600, lon: -(21 + 56.0 / 60 + 30.0 / 3600),
            millis: 1_529_539_200_000)
    }

    @Test func formatIsSniffedNotTakenFromTheExtension() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("roqua-photos-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let fake = dir.appendingPathComponent("IMG_9.HEIC")
        try Data(Fixture.bytes("gps-full.jpg")).write(to: fake)
        #expect(reader.read(photoPath: fake.path).fix?.accuracy == 4.5)
        let gif = dir.appendingPathComponent("a.jpg")
        try Data(Array("GIF89a".utf8) + [UInt8](repeating: 0, count: 64)).write(to: gif)
        #expect(reader.read(photoPath: gif.path) == .skipped(.unsupportedFormat))
        let empty = dir.appendingPathComponent("empty.jpg")
        try Data().write(to: empty)
        #expect(reader.read(photoPath: empty.path) == .skipped(.unsupportedFormat))
        #expect(reader.read(photoPath: dir.path).skipReason == .unreadable("not a regular file"))
        if case .unreadable(let m)? = reader.read(photoPath: dir.appendingPathComponent("nope.jpg").path).skipReason {
            #expect(m.contains("No such file"))
        } else {
            Issue.record("missing file should be unreadable")
        }
        let mp4 = dir.appendingPathComponent("clip.heic")
        try Data(box("ftyp", Array("isom".utf8) + be32(0) + Array("isomavc1".utf8)) + box("mdat", [1, 2, 3])).write(to: mp4)
        #expect(reader.read(photoPath: mp4.path) == .skipped(.unsupportedFormat))
    }

    @Test(arguments: [
        // (version, offset_size, length_size, base_offset_size, index_size, infe version)
        (UInt8(0), 4, 4, 0, 0, UInt8(2)), (0, 8, 8, 0, 0, 2), (0, 4, 8, 4, 0, 2), (0, 0, 4, 8, 0, 2),
        (1, 4, 4, 0, 0, 2), (1, 8, 4, 4, 4, 2), (1, 4, 8, 8, 8, 3),
        (2, 4, 4, 0, 0, 2), (2, 8, 8, 8, 4, 3), (2, 0, 4, 4, 8, 2),
    ])
    func handBuiltHEIFIlocVariants(_ v: (UInt8, Int, Int, Int, Int, UInt8)) {
        var t = TIFFBuilder(bigEndian: v.0 == 1)
        t.standard()
        var h = HEIFBuilder(tiff: t.build().bytes)
        (h.ilocVersion, h.offsetSize, h.lengthSize, h.baseOffsetSize, h.indexSize, h.infeVersion) = v
        expectFix(
            reader.read(photoBytes: h.build()),
            lat: 48 + 51.0 / 60 + 29.52 / 3600, lon: 2 + 17.0 / 60 + 40.2 / 3600, millis: 1_689_338_096_500)
    }

    @Test func heifExifInIdatConstructionMethod1() {
        var t = TIFFBuilder()
        t.standard()
        var h = HEIFBuilder(tiff: t.build().bytes)
        h.ilocVersion = 1
        h.exifInIdat = true
        #expect(reader.read(photoBytes: h.build()).fix != nil)
    }

    @Test func heifLargesizeAndSizeZeroBoxes() {
        var t = TIFFBuilder()
        t.standard()
        let h = HEIFBuilder(tiff: t.build().bytes)
        var bytes = h.build()
        // Rewrite the trailing mdat with size 0 ("to end of file"): still fine.
        let ftypSize = Int(bytes.be32(0))
        let metaSize = Int(bytes.be32(ftypSize))
        let mdatAt = ftypSize + metaSize
        bytes.replaceSubrange(mdatAt..<mdatAt + 4, with: be32(0))
        #expect(reader.read(photoBytes: bytes).fix != nil)
        // A 'free' box with a 64-bit largesize before meta is skipped.
        var h2 = h
        h2.boxesBeforeMeta = be32(1) + Array("free".utf8) + be64(24) + [UInt8](repeating: 0, count: 8)
        #expect(reader.read(photoBytes: h2.build()).fix != nil)
    }
}
