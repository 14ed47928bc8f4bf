import Foundation
import Hummingbird
import RoquaProgress
import RoquaRegions
import RoquaServeInput

/// `GET /api/export?format=json|geojson|gpx` downloads the store as `roqua export` writes it;
/// `POST /api/restore[?replace=1]` restores such a file as `roqua restore` does (one
/// transaction, an empty store unless `replace`), taking the import gate.
enum ArchiveRoutes {
    static func add<Context: RequestContext>(to router: Router<Context>, state: ServerState) {
        router.get("/api/export") { request, _ -> Response in
            let query = try QueryParameters(request.uri.query)
            guard let format = ArchiveFormat(rawValue: query["format"] ?? "json") else {
                throw APIError.badRequest("format must be one of: " + ArchiveFormat.allCases.map(\.rawValue).joined(separator: ", "))
            }
            let data = try await offloaded { try state.store.export(format) }
            let type = format == .gpx ? "application/gpx+xml" : format == .geojson ? "application/geo+json" : "application/json"
            return Response(
                status: .ok,
                headers: [.contentType: type, .contentDisposition: "attachment; filename=\"roqua-export.\(format.rawValue)\""],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        }
        router.post("/api/restore") { request, _ -> Response in
            let query = try QueryParameters(request.uri.query)
            let replace = query["replace"] == "1" || query["replace"] == "true"
            let length = request.headers[.contentLength].flatMap { Int($0) }
            if let length, length > state.options.maxUploadBytes { throw UploadSpool.tooLarge(state.options.maxUploadBytes) }
            guard let ticket = state.imports.begin(file: "restore", totalBytes: length) else { throw UploadSpool.busy }
            var failure: String? = "interrupted"
            defer { state.imports.end(ticket, failure: failure) }
            do {
                let spool = try await UploadSpool.receive(
                    request.body, name: "restore.json", limit: state.options.maxUploadBytes,
                    declaredLength: length
                ) { state.imports.received(ticket, bytes: $0) }
                defer { spool.remove() }
                // Restoring reads and checks the whole archive before its one transaction: it
                // holds the store's writer throughout, as any import's writing does.
                let count = try await offloaded {
                    try state.imports.writing(ticket, check: state.stopping.check) {
                        let count = try state.store.restore(from: spool.file.path, replace: replace)
                        // As `roqua restore`: a big store's explored figures remembered now.
                        ExploredFigures.keepRemembered(in: state.store)
                        return count
                    }
                }
                failure = nil
                state.logger.info("store restored", metadata: ["regions": "\(count)"])
                return try JSONBody.encoded(Restored(restored: count))
            } catch {
                let refusal = UploadSpool.refusal(error, uploadName: "the upload")
                failure = refusal.message
                throw refusal
            }
        }
    }
}

/// The answer to a restore: how many regions the store holds from it.
struct Restored: Encodable {
    var restored: Int
}
