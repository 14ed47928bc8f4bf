import Foundation
import Hummingbird
import RoquaAchievements
import RoquaBoundaries
import RoquaRegions

/// `POST /api/tracks?name=FILE` (the file as the body) imports a track as `roqua track import`
/// does — one transaction with the achievements, the same summary — and
/// `GET /api/tracks/progress` tells how far the running one is.
enum TrackRoutes {
    static func add<Context: RequestContext>(to router: Router<Context>, state: ServerState) {
        router.get("/api/tracks/progress") { _, _ in try JSONBody.encoded(state.imports.progress) }
        router.post("/api/tracks") { request, _ -> Response in
            let query = try QueryParameters(request.uri.query)
            let name = UploadSpool.safeName(query["name"])
            let length = request.headers[.contentLength].flatMap { Int($0) }
            if let length, length > state.options.maxUploadBytes { throw UploadSpool.tooLarge(state.options.maxUploadBytes) }
            guard state.imports.begin(file: name, totalBytes: length) else {
                throw APIError(.conflict, "another import is running on this store; try again when it has finished")
            }
            var failure: String? = "interrupted"
            defer { state.imports.end(failure: failure) }
            do {
                let spool = try await UploadSpool.receive(request.body, name: name, limit: state.options.maxUploadBytes,
                                                          declaredLength: length) { state.imports.received($0) }
                defer { spool.remove() }
                state.imports.importing()
                let outcome = try await offloaded { try importTrack(spool.file.path, state: state) }
                failure = nil
                state.logger.info("track imported", metadata: ["format": "\(outcome.summary.format)",
                                                                "new_regions": "\(outcome.summary.newRegions)"])
                return JSONBody.response(ImportSummaryJSON.document(outcome.summary, events: outcome.events, name: name,
                                                                    catalog: state.tracker.catalog))
            } catch let error as APIError {
                failure = error.message
                throw error
            } catch let error as TrackReadError {
                // The reader names the temporary file: name the upload instead.
                failure = error.description
                throw APIError(.unprocessableContent, error.description.replacingOccurrences(of: error.file, with: name))
            } catch let error as RegionStoreError {
                failure = error.description
                throw APIError(.internalServerError, error.description)
            }
        }
    }

    /// The CLI's import: regions and achievements in one transaction.
    static func importTrack(_ path: String, state: ServerState) throws -> (summary: TrackImportSummary, events: [AchievementEvent]) {
        let importer = try TrackImporter(store: state.store, enricher: RegionEnricher(boundaries: state.options.boundaries))
        let tracker = state.tracker
        let (summary, events) = try importer.importFile(path) { db, summary in
            try tracker.consume(db, events: summary.events)
        }
        return (summary, events ?? [])
    }
}
