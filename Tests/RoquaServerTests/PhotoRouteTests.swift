import Foundation
import RoquaTestKit
import RoquaTestSupport
import Testing

/// `GET /api/photos/preview?path=PATH`: a kept photo's embedded preview for the day view, read
/// from its file where it was imported from — for the page of this server only, and never a file
/// the store did not record.
@Suite struct PhotoRouteTests {
    let roqua = ProductsDirectory.product("roqua")
    static let fixtures = Repository.path("Tests/RoquaPhotosTests/Fixtures")

    @Test func aKeptPhotoShowsItsPreviewUntilItIsMovedOrSwapped() async throws {
        try await TestServer.with { server in
            let camera = try server.directory.subdirectory("camera/2024")
            let photo = camera + "/IMG_0001.jpg", plain = camera + "/DSC_0002.jpg", png = camera + "/PNG_0003.png"
            try FileManager.default.copyItem(atPath: Self.fixtures + "/with-thumbnail.jpg", toPath: photo)
            try FileManager.default.copyItem(atPath: Self.fixtures + "/sideways.jpg", toPath: plain)
            try FileManager.default.copyItem(atPath: Self.fixtures + "/gps.png", toPath: png)
            let imported = try CommandRunner.run(
                roqua, ["track", "import", server.directory.file("camera"), "--store", server.store, "--boundaries", try Bundled.path()])
            #expect(imported.status == 0, "\(imported.stderr)")

            // The day view names it as the history does: its path in the folder imported.
            let day = try await server.get("/api/timeline?date=2024-05-06&tz=UTC").object()
            let names = (day["photos"] as? [[String: Any]])?.compactMap { $0["path"] as? String }
            #expect(names == ["2024/IMG_0001.jpg", "2024/DSC_0002.jpg"], "\(day)")

            let preview = try await server.get("/api/photos/preview?path=2024/IMG_0001.jpg")
            #expect(preview.status == 200 && preview.headers["content-type"] == "image/jpeg")
            #expect(preview.headers["cache-control"]?.hasPrefix("private") == true)
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: photo)))
            let start = (3..<bytes.count - 2).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xD8 && bytes[$0 + 2] == 0xFF }!
            #expect(preview.body.count > 100 && Array(bytes[start..<start + preview.body.count]) == preview.body)

            // Revalidated, never kept stale: 304 for the preview the browser holds; a photo edited
            // in place (its preview's last bytes before the end marker changed) answers anew.
            let tag = try #require(preview.headers["etag"])
            #expect(preview.headers["cache-control"] == "private, no-cache")
            let held = try await server.get("/api/photos/preview?path=2024/IMG_0001.jpg", headers: ["If-None-Match": tag])
            #expect(held.status == 304 && held.body.isEmpty)
            var edited = bytes
            edited[start + preview.body.count - 3] ^= 0x5A
            try Data(edited).write(to: URL(fileURLWithPath: photo))
            let fresh = try await server.get("/api/photos/preview?path=2024/IMG_0001.jpg", headers: ["If-None-Match": tag])
            #expect(fresh.status == 200 && fresh.headers["etag"] != tag && fresh.body != preview.body, "\(fresh.status)")
            try Data(bytes).write(to: URL(fileURLWithPath: photo))

            // A JPEG without a preview: one made from its picture (upright, at most 320 pixels),
            // kept beside the store (a folder 0700, a file 0600) and handed out again from there.
            let made = try await server.get("/api/photos/preview?path=2024/DSC_0002.jpg")
            #expect(made.status == 200 && made.headers["content-type"] == "image/jpeg" && made.body.starts(with: [0xFF, 0xD8]))
            let cache = server.store + ".thumbnails"
            let kept = try FileManager.default.contentsOfDirectory(atPath: cache)
            #expect(kept.count == 1 && kept[0].hasSuffix(".jpg"), "\(kept)")
            #expect(try FileManager.default.attributesOfItem(atPath: cache)[.posixPermissions] as? Int == 0o700)
            #expect(try FileManager.default.attributesOfItem(atPath: cache + "/" + kept[0])[.posixPermissions] as? Int == 0o600)
            var cached = [UInt8](try Data(contentsOf: URL(fileURLWithPath: cache + "/" + kept[0])))
            #expect(cached == made.body)
            cached[cached.count - 3] ^= 0x5A  // what is kept is what is handed out
            try Data(cached).write(to: URL(fileURLWithPath: cache + "/" + kept[0]))
            #expect(try await server.get("/api/photos/preview?path=2024/DSC_0002.jpg").body == cached)

            // A PNG without a preview: one made from its picture too; cut short afterwards, none.
            let fromPNG = try await server.get("/api/photos/preview?path=2024/PNG_0003.png")
            #expect(fromPNG.status == 200 && fromPNG.body.starts(with: [0xFF, 0xD8]), "\(fromPNG.status)")
            let whole = try Data(contentsOf: URL(fileURLWithPath: png))
            try whole.prefix(40).write(to: URL(fileURLWithPath: png))

            for (target, status, message) in [
                ("/api/photos/preview?path=2024/PNG_0003.png", 404, "no preview"),  // kept, no preview, none made
                ("/api/photos/preview?path=2024/IMG_9999.jpg", 404, "is kept"),
                ("/api/photos/preview?path=../../etc/passwd", 404, "is kept"),
                ("/api/photos/preview?path=%2Fetc%2Fpasswd", 404, "is kept"),
                ("/api/photos/preview", 400, "path must name"),
            ] {
                let reply = try await server.get(target)
                #expect(reply.status == status && reply.text.contains(message), "\(target): \(reply.status) \(reply.text)")
            }
            try whole.write(to: URL(fileURLWithPath: png))

            // Another site's page and a foreign Host get nothing.
            for headers in [["Sec-Fetch-Site": "cross-site"], ["Origin": "https://evil.example"], ["Referer": "https://evil.example/"]] {
                let reply = try await server.get("/api/photos/preview?path=2024/IMG_0001.jpg", headers: headers)
                #expect(reply.status == 403, "\(headers)")
            }
            let rebound = try await LoopbackHTTP.request(
                server.port, "GET", "/api/photos/preview?path=2024/IMG_0001.jpg", host: .some("evil.example"))
            #expect(rebound.status == 421)

            // Swapped for a link to a file elsewhere: not followed. Moved away: nothing either.
            let elsewhere = server.directory.file("elsewhere.jpg")
            try FileManager.default.moveItem(atPath: photo, toPath: elsewhere)
            try FileManager.default.createSymbolicLink(atPath: photo, withDestinationPath: elsewhere)
            let linked = try await server.get("/api/photos/preview?path=2024/IMG_0001.jpg")
            #expect(linked.status == 404 && linked.text.contains("no longer where it was imported from"), "\(linked.text)")
            try FileManager.default.removeItem(atPath: photo)
            #expect(try await server.get("/api/photos/preview?path=2024/IMG_0001.jpg").status == 404)

            // The folder moved elsewhere and imported again from there: nothing added, previews back.
            try FileManager.default.moveItem(atPath: elsewhere, toPath: photo)
            let moved = server.directory.file("moved-camera")
            try FileManager.default.moveItem(atPath: server.directory.file("camera"), toPath: moved)
            #expect(try await server.get("/api/photos/preview?path=2024/IMG_0001.jpg").status == 404)
            let again = try CommandRunner.run(
                roqua, ["track", "import", moved, "--store", server.store, "--boundaries", try Bundled.path()])
            #expect(again.status == 0 && again.stdout.contains("nothing added"), "\(again.stdout) \(again.stderr)")
            let back = try await server.get("/api/photos/preview?path=2024/IMG_0001.jpg")
            #expect(back.status == 200 && back.body == preview.body)

            // A forget removes the thumbnails made (they are made again when asked for).
            let forget = try CommandRunner.run(
                roqua,
                [
                    "forget", "--from", "2024-05-06T09:42:00Z", "--to", "2024-05-06T09:43:00Z", "--yes", "--store", server.store,
                    "--boundaries", try Bundled.path(),
                ])
            #expect(forget.status == 0, "\(forget.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: cache).isEmpty)
        }
    }
}
