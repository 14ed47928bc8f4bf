import Foundation
import HTTPTypes
import Hummingbird
import RoquaIO
import RoquaRegions
import RoquaServeInput

/// `GET /api/photos/preview?path=PATH`: the preview a camera embedded in a kept photo (a small
/// JPEG in its EXIF), read from the photo's file where it was imported from, for the day view;
/// for a JPEG, HEIC or AVIF without one, a thumbnail made from it (kept beside the store).
/// Only a photo the history keeps can be asked for, by its name in the history; the file is
/// found from what the store recorded, never from the request. Read by no page of another site
/// (`OriginGuardMiddleware.isHistoryRead`); `Cache-Control: private, no-cache` with an `ETag` of
/// the preview, 304 for a browser that has it.
enum PhotoRoutes {
    static let prefix = "/api/photos/"

    static func add<Context: RequestContext>(to router: Router<Context>, state: ServerState) {
        router.get("/api/photos/preview") { request, _ -> Response in
            let query = try QueryParameters(request.uri.query)
            guard let path = query["path"], !path.isEmpty else { throw APIError.badRequest("path must name a kept photo") }
            switch try await offloaded({ try state.store.photoPreview(path) }) {
            case .jpeg(let bytes):
                // Tagged by what is sent, so a photo edited in place shows its new preview at once
                // (an embedded preview is re-read from the file on each request anyway, at most
                // 64 KiB; a made one is kept under the file's size and modification time).
                let tag = "\"\(SHA256.hex(of: bytes).prefix(32))\""
                var headers = ConditionalGet.headers(tag: tag)
                if let held = ConditionalGet.notModified(request, tag: tag, headers: headers) { return held }
                headers[.contentType] = "image/jpeg"
                return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
            case .notKept:
                throw APIError(.notFound, "no photo named \(Echo.quoted(path)) is kept")
            case .unavailable:
                throw APIError(.notFound, "the photo has no preview and none can be made, or is no longer where it was imported from")
            }
        }
    }
}
