import Foundation
import Hummingbird
import RoquaAchievements
import RoquaBoundaries
import RoquaRegions
import RoquaServeInput

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
                let outcome = try await offloaded { try importUpload(spool.file.path, name: name, state: state) }
                failure = nil
                state.logger.info("track imported", metadata: ["files": "\(outcome.summaries.count)",
                                                                "new_regions": "\(outcome.newRegions)"])
                return JSONBody.response(outcome.document(name: name, catalog: state.tracker.catalog))
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

    /// The CLI's import of one path: a track file, or an archive whose track files are imported
    /// one by one, each in its own transaction with its achievements (as `roqua track import`
    /// does). A single file's reading error is thrown; an archive's are listed in the answer.
    /// - Throws: `TrackReadError` and the store's errors for a single file; `APIError` 422 when
    ///   an archive holds no track that could be imported.
    static func importUpload(_ path: String, name: String, state: ServerState) throws -> UploadOutcome {
        let importer = try TrackImporter(store: state.store, enricher: RegionEnricher(boundaries: state.options.boundaries))
        let tracker = state.tracker
        let inputs = TrackInputs.expand([path])
        var outcome = UploadOutcome()
        for input in inputs {
            switch input {
            case let .failed(_, error):
                let message = UploadOutcome.uploadName(error, path: path, name: name)
                guard inputs.count > 1 else { throw APIError(.unprocessableContent, message) }
                outcome.failures.append((name, message))
            case let .skipped(_, count):
                outcome.passedOver += count
            case let .source(source):
                let entry = source.name.replacingOccurrences(of: path, with: name)
                do {
                    let (summary, events) = try importer.importSource(source, progress: { state.imports.fixes($0) }) { db, summary in
                        try tracker.consume(db, events: summary.events)
                    }
                    outcome.summaries.append((entry, summary, events ?? []))
                } catch {
                    guard inputs.count > 1 || source.name != path else { throw error }
                    outcome.failures.append((entry, UploadOutcome.uploadName(error, path: path, name: name)))
                }
            }
        }
        if outcome.summaries.isEmpty, let first = outcome.failures.first {
            throw APIError(.unprocessableContent, first.message)
        }
        guard !outcome.summaries.isEmpty else { throw APIError(.unprocessableContent, "\(name): no track file in the archive") }
        return outcome
    }
}
