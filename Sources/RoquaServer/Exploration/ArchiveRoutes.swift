import Foundation
import Hummingbird
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
            return Response(status: .ok,
                            headers: [.contentType: type, .contentDisposition: "attachment; filename=\"roqua-export.\(format.rawValue)\""],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        }
        router.post("/api/restore") { request, _ -> Response in
            let query = try QueryParameters(request.uri.query)
            let replace = query["replace"] == "1" || query["replace"] == "true"
            let length = request.headers[.contentLength].flatMap { Int($0) }
            guard state.imports.begin(file: "restore", totalBytes: length) else {
                throw APIError(.conflict, "an import is running on this store; try again when it has finished")
            }
            var failure: String? = "interrupted"
            defer { state.imports.end(failure: failure) }
            let spool: UploadSpool
            do {
                spool = try await UploadSpool.receive(request.body, name: "restore.json", limit: state.options.maxUploadBytes,
                                                      declaredLength: length) { state.imports.received($0) }
            } catch let error as APIError {
                failure = error.message  // the progress route says why, not just "interrupted"
                throw error
            }
            defer { spool.remove() }
            state.imports.importing()
            do {
                let count = try await offloaded { try state.store.restore(from: spool.file.path, replace: replace) }
                failure = nil
                state.logger.info("store restored", metadata: ["regions": "\(count)"])
                return JSONBody.response("{\"restored\":\(count)}")
            } catch let error as ArchiveError {
                failure = error.description
                throw APIError(.unprocessableContent, error.description.replacingOccurrences(of: spool.file.path, with: "the upload"))
            } catch let error as RegionStoreError {
                failure = error.description
                if case .notEmpty = error { throw APIError(.conflict, error.description + " (POST /api/restore?replace=1)") }
                throw APIError(.internalServerError, error.description)
            }
        }
    }
}
