import Foundation
import RoquaIO
import RoquaTestSupport
import Testing

@testable import RoquaPhotos

/// The preview a camera embeds in a photo's EXIF: read from the metadata alone, exactly the bytes
/// embedded, and nothing for a photo without one, a damaged one, or a link.
@Suite struct ThumbnailTests {
    /// The JPEG embedded in `photo` after its own start of image, found by its markers.
    static func embedded(_ photo: [UInt8]) -> [UInt8] {
        let start = (3..<photo.count - 2).first { photo[$0] == 0xFF && photo[$0 + 1] == 0xD8 && photo[$0 + 2] == 0xFF }!
        let end = (start..<photo.count - 1).first { photo[$0] == 0xFF && photo[$0 + 1] == 0xD9 }!
        return Array(photo[start...end + 1])
    }

    @Test func theEmbeddedPreviewIsReadAsItIs() throws {
        let photo = Fixture.bytes("with-thumbnail.jpg")
        let preview = try #require(PhotoThumbnail.read(path: Fixture.path("with-thumbnail.jpg")))
        #expect(preview == Self.embedded(photo) && preview.count < photo.count / 2, "\(preview.count) of \(photo.count) bytes")
        // The same photo still gives its position and time: the preview changes nothing of that.
        guard case .fix(let fix) = PhotoReader().read(photoPath: Fixture.path("with-thumbnail.jpg")) else {
            Issue.record("the photo gave no fix")
            return
        }
        #expect(abs(fix.latitude - 41.0294667) < 1e-6 && abs(fix.longitude - 28.9735333) < 1e-6)
    }

    @Test func noPreviewIsNothing() {
        for name in ["gps-full.jpg", "gps.heic", "gps.png", "IMG_1234.jpg.supplemental-metadata.json"] {
            #expect(PhotoThumbnail.read(path: Fixture.path(name)) == nil, "\(name)")
        }
        #expect(PhotoThumbnail.read(path: "/nonexistent/IMG_0001.jpg") == nil)
    }

    /// A photo swapped for a link after its import is not followed, wherever the link points.
    @Test func aLinkIsNotFollowed() throws {
        let directory = try TempDirectory("roqua-thumbnail-link")
        let link = directory.file("IMG_0001.jpg")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: Fixture.path("with-thumbnail.jpg"))
        #expect(PhotoThumbnail.read(path: link) == nil)
    }

    /// IFD1 pointing outside the block, or claiming more bytes than there are: no preview, no crash.
    @Test func aHostilePreviewOffsetGivesNothing() throws {
        let photo = Fixture.bytes("with-thumbnail.jpg")
        let tiffStart = 12  // SOI, APP1 marker and length, "Exif\0\0"
        // IFD1's JPEGInterchangeFormat (0x0201) and its length (0x0202), found by their tags.
        let entry = { (tag: UInt16) in
            (tiffStart..<photo.count - 12).first {
                photo[$0] == UInt8(tag & 0xFF) && photo[$0 + 1] == UInt8(tag >> 8) && photo[$0 + 2] == 4 && photo[$0 + 3] == 0
            }!
        }
        for (tag, value) in [(UInt16(0x0201), UInt32(0xFFFF_FF00)), (0x0202, 0x00FF_FFFF), (0x0201, 2)] {
            var hostile = photo
            let at = entry(tag) + 8
            hostile.replaceSubrange(at..<at + 4, with: withUnsafeBytes(of: value.littleEndian, Array.init))
            let preview = PhotoThumbnail.read(bytes: hostile)
            #expect(preview == nil || preview!.starts(with: [0xFF, 0xD8, 0xFF]), "tag \(tag) = \(value)")
        }
    }
}

/// A thumbnail made from the picture of a JPEG that carries no preview: small, upright by its
/// EXIF orientation, and an error — never a crash or a huge allocation — for a damaged or hostile
/// file.
@Suite struct MadeThumbnailTests {
    /// The mean colour of rows `rows` of an RGB picture.
    static func mean(_ picture: (width: Int, height: Int, rgb: [UInt8]), rows: Range<Int>) -> [Int] {
        var sum = [0, 0, 0]
        for y in rows {
            for x in 0..<picture.width {
                for c in 0..<3 { sum[c] += Int(picture.rgb[(y * picture.width + x) * 3 + c]) }
            }
        }
        return sum.map { $0 / (rows.count * picture.width) }
    }

    /// The CRC-32 of PNG chunks (ISO 3309), bit by bit.
    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func isRed(_ colour: [Int]) -> Bool { colour[0] > 180 && colour[2] < 80 }
    static func isBlue(_ colour: [Int]) -> Bool { colour[2] > 180 && colour[0] < 80 }

    /// Stored 1200×800 on its side (orientation 6), left half red: upright 213×320, red on top.
    @Test func aJPEGWithoutPreviewGetsOneMadeUpright() throws {
        #expect(PhotoThumbnail.read(path: Fixture.path("sideways.jpg")) == nil, "no preview embedded")
        let made = try PhotoThumbnail.make(path: Fixture.path("sideways.jpg"))
        #expect(made.starts(with: [0xFF, 0xD8, 0xFF]) && made.count < 16_000, "\(made.count) bytes")
        let picture = try PhotoThumbnail.pixels(ofJPEG: made)
        #expect((picture.width, picture.height) == (213, 320))
        #expect(Self.isRed(Self.mean(picture, rows: 10..<150)) && Self.isBlue(Self.mean(picture, rows: 170..<310)))
        // The photo is read as before: its fix.
        guard case .fix(let fix) = PhotoReader().read(photoPath: Fixture.path("sideways.jpg")) else {
            Issue.record("the photo gave no fix")
            return
        }
        #expect(abs(fix.latitude - 41.0294667) < 1e-6)
    }

    /// A HEIC and an AVIF without a preview: their pictures (16×16, one colour each) by libheif.
    @Test func heicAndAVIFGetOneMadeToo() throws {
        for (name, colour) in [("gps.heic", [200, 200, 30]), ("gps.avif", [30, 200, 200])] {
            #expect(PhotoThumbnail.read(path: Fixture.path(name)) == nil, "\(name): no preview embedded")
            let picture = try PhotoThumbnail.pixels(ofJPEG: try PhotoThumbnail.make(path: Fixture.path(name)))
            #expect((picture.width, picture.height) == (16, 16), "\(name)")
            let mean = Self.mean(picture, rows: 0..<16)
            #expect(zip(mean, colour).allSatisfy { abs($0 - $1) < 25 }, "\(name): \(mean)")
        }
        // A HEIC 800×1200 upright with a 160×240 thumbnail in its container: the thumbnail, red
        // on top (its EXIF orientation 6 is the container's business, not applied again).
        let sideways = try PhotoThumbnail.pixels(ofJPEG: try PhotoThumbnail.make(path: Fixture.path("sideways.heic")))
        #expect((sideways.width, sideways.height) == (160, 240))
        #expect(Self.isRed(Self.mean(sideways, rows: 10..<110)) && Self.isBlue(Self.mean(sideways, rows: 130..<230)))
        // Cut short or flipped: refused with libheif's reason, never a crash.
        let heic = Fixture.bytes("gps.heic")
        for cut in [12, 100, heic.count / 2] {
            #expect(throws: PhotoThumbnail.Undecodable.self, "cut at \(cut)") { try PhotoThumbnail.make(bytes: Array(heic.prefix(cut))) }
        }
        var generator = SeededGenerator(state: 5)
        for _ in 0..<200 {
            var damaged = heic
            for _ in 0..<4 { damaged[generator.below(damaged.count)] = UInt8(generator.below(256)) }
            if let made = try? PhotoThumbnail.make(bytes: damaged) { #expect(made.starts(with: [0xFF, 0xD8])) }
        }
    }

    /// A PNG stored 1200×800 on its side (eXIf orientation 6), left half red, right half
    /// transparent: upright 213×320, red on top, white (the transparency composed onto white) below.
    @Test func aPNGGetsOneMadeUprightOnWhite() throws {
        #expect(PhotoThumbnail.read(path: Fixture.path("sideways.png")) == nil, "no preview embedded")
        let picture = try PhotoThumbnail.pixels(ofJPEG: try PhotoThumbnail.make(path: Fixture.path("sideways.png")))
        #expect((picture.width, picture.height) == (213, 320))
        let below = Self.mean(picture, rows: 170..<310)
        #expect(Self.isRed(Self.mean(picture, rows: 10..<150)) && below.allSatisfy { $0 > 240 }, "\(below)")
        // 16×16, one colour, no orientation.
        let small = try PhotoThumbnail.pixels(ofJPEG: try PhotoThumbnail.make(path: Fixture.path("gps.png")))
        #expect((small.width, small.height) == (16, 16))
        // Cut, flipped and oversized: refused with libpng's reason, never a crash.
        let png = Fixture.bytes("sideways.png")
        for cut in [8, 40, png.count / 2] {
            #expect(throws: PhotoThumbnail.Undecodable.self, "cut at \(cut)") { try PhotoThumbnail.make(bytes: Array(png.prefix(cut))) }
        }
        // IHDR's width and height (bytes 16…23) set to 60,000 each, its CRC mended: 3.6 G pixels,
        // refused before any row is decoded.
        var huge = png
        huge.replaceSubrange(16..<24, with: [0, 0, 0xEA, 0x60, 0, 0, 0xEA, 0x60])
        huge.replaceSubrange(29..<33, with: be32(Self.crc32(huge[12..<29])))
        do {
            _ = try PhotoThumbnail.pixels(ofPNG: huge)
            Issue.record("a 60,000 × 60,000 picture was decoded")
        } catch {
            #expect("\(error)".contains("60000 x 60000 pixels is too large"), "\(error)")
        }
        var generator = SeededGenerator(state: 7)
        for _ in 0..<200 {
            var damaged = png
            for _ in 0..<4 { damaged[generator.below(damaged.count)] = UInt8(generator.below(256)) }
            if let made = try? PhotoThumbnail.make(bytes: damaged) { #expect(made.starts(with: [0xFF, 0xD8])) }
        }
    }

    /// A preview stored on its side like its picture is turned too: 24×32, red on top.
    @Test func aPreviewOnItsSideIsTurned() throws {
        let preview = try #require(PhotoThumbnail.read(path: Fixture.path("sideways-with-preview.jpg")))
        let picture = try PhotoThumbnail.pixels(ofJPEG: preview)
        #expect((picture.width, picture.height) == (24, 32))
        #expect(Self.isRed(Self.mean(picture, rows: 2..<13)) && Self.isBlue(Self.mean(picture, rows: 19..<30)))
        // An upright photo's preview is handed out as embedded (not decoded again).
        #expect(
            PhotoThumbnail.read(path: Fixture.path("with-thumbnail.jpg")) == ThumbnailTests.embedded(Fixture.bytes("with-thumbnail.jpg")))
    }

    /// Cut short, bytes flipped, not a JPEG, a header claiming 60,000 × 60,000 pixels, a link:
    /// an error naming the reason, nothing decoded beyond the limits.
    @Test func damagedAndHostilePicturesAreRefused() throws {
        let photo = Fixture.bytes("sideways.jpg")
        // Cut inside the scan: libjpeg warns and fills the rest; a thumbnail still comes out.
        #expect((try? PhotoThumbnail.make(bytes: Array(photo.prefix(photo.count * 2 / 3)))) != nil)
        // Cut before the scan, or in its headers: refused.
        for cut in [20, 300, photo.count / 20] {
            #expect(throws: PhotoThumbnail.Undecodable.self, "cut at \(cut)") { try PhotoThumbnail.make(bytes: Array(photo.prefix(cut))) }
        }
        #expect(throws: PhotoThumbnail.Undecodable.self) { try PhotoThumbnail.make(bytes: []) }
        // The start-of-frame's height and width, set to 60,000 each: refused before decoding.
        var huge = photo
        let sof = try #require((2..<huge.count - 9).first { huge[$0] == 0xFF && [0xC0, 0xC1, 0xC2].contains(huge[$0 + 1]) })
        huge.replaceSubrange(sof + 5..<sof + 9, with: [0xEA, 0x60, 0xEA, 0x60])
        do {
            _ = try PhotoThumbnail.make(bytes: huge)
            Issue.record("a 60,000 × 60,000 picture was decoded")
        } catch let error as PhotoThumbnail.Undecodable {
            #expect(error.description.contains("too large"), "\(error)")
        }
        // Seeded random damage: refused or made, never a crash.
        var generator = SeededGenerator(state: 3)
        for _ in 0..<200 {
            var damaged = photo
            for _ in 0..<8 { damaged[generator.below(damaged.count)] = UInt8(generator.below(256)) }
            if let made = try? PhotoThumbnail.make(bytes: damaged) { #expect(made.starts(with: [0xFF, 0xD8])) }
        }
        let directory = try TempDirectory("roqua-thumbnail-made-link")
        let link = directory.file("IMG_0002.jpg")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: Fixture.path("sideways.jpg"))
        #expect(throws: PhotoThumbnail.Undecodable.self) { try PhotoThumbnail.make(path: link) }
    }
}

/// The thumbnails kept beside the store: made once, handed out again, never read through a link
/// planted under a kept name, never written over something that is not a regular file.
@Suite struct ThumbnailCacheTests {
    @Test func madeOnceKeptPrivateAndNeverThroughALink() throws {
        let directory = try TempDirectory("roqua-thumbnail-cache")
        let photo = directory.file("IMG_0003.jpg")
        try FileManager.default.copyItem(atPath: Fixture.path("sideways.jpg"), toPath: photo)
        let cache = ThumbnailCache(store: directory.file("regions.sqlite"))
        let made = try cache.thumbnail(of: photo)
        let names = try FileManager.default.contentsOfDirectory(atPath: cache.directory)
        #expect(names.count == 1)
        let kept = cache.directory + "/" + names[0]
        #expect(try FileManager.default.attributesOfItem(atPath: kept)[.posixPermissions] as? Int == 0o600)
        #expect(try cache.thumbnail(of: photo) == made)

        // A link planted under the kept name (to another picture) is not read: made again, and
        // the link replaced by a file, not written through.
        let other = directory.file("other.jpg")
        try FileManager.default.copyItem(atPath: Fixture.path("with-thumbnail.jpg"), toPath: other)
        try FileManager.default.removeItem(atPath: kept)
        try FileManager.default.createSymbolicLink(atPath: kept, withDestinationPath: other)
        #expect(try cache.thumbnail(of: photo) == made)
        #expect(try FileManager.default.attributesOfItem(atPath: kept)[.type] as? FileAttributeType == .typeRegular)
        #expect(try Data(contentsOf: URL(fileURLWithPath: other)) == Data(Fixture.bytes("with-thumbnail.jpg")))

        // A FIFO under the kept name is left as it is; the thumbnail is still handed out.
        try FileManager.default.removeItem(atPath: kept)
        #expect(mkfifo(kept, 0o600) == 0)
        #expect(try cache.thumbnail(of: photo) == made)
        #expect(FileKind(path: kept) == .fifo)

        // An edit in place (a new modification time) makes it again; `clear` removes regular files only.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: photo)
        _ = try cache.thumbnail(of: photo)
        try FileManager.default.createDirectory(atPath: cache.directory + "/kept-dir", withIntermediateDirectories: false)
        cache.clear()
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: cache.directory)) == [names[0], "kept-dir"])
        #expect(FileKind(path: kept) == .fifo)
    }
}
