import Foundation
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
