import Foundation
import Hummingbird
import RoquaAchievements
import RoquaBoundaries
import RoquaHTTPGuard
import RoquaIO
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
            guard let ticket = state.imports.begin(file: name, totalBytes: length) else { throw UploadSpool.busy }
            var failure: String? = "interrupted"
            defer { state.imports.end(ticket, failure: failure) }
            do {
                let spool = try await UploadSpool.receive(
                    request.body, name: name, limit: state.options.maxUploadBytes,
                    declaredLength: length
                ) { state.imports.received(ticket, bytes: $0) }
                defer { spool.remove() }
                let outcome = try await offloaded { try importUpload(spool, name: name, state: state, ticket: ticket) }
                state.imports.fixes(ticket, count: outcome.summaries.reduce(0) { $0 + $1.summary.fixesRead })
                failure = nil
                state.logger.info(
                    "track imported",
                    metadata: [
                        "files": "\(outcome.summaries.count)",
                        "new_regions": "\(outcome.newRegions)",
                    ])
                return try outcome.response(name: name, catalog: state.tracker.catalog, maxAccuracy: outcome.maxAccuracy)
            } catch {
                // Messages name the upload, never the temporary file.
                let refusal = UploadSpool.refusal(error, uploadName: name)
                failure = refusal.message
                throw refusal
            }
        }
    }

    /// The CLI's import of one path: a track file, or an archive whose track files are imported
    /// one by one, each in its own transaction with its achievements (as `roqua track import`
    /// does). A single file's reading error is thrown; an archive's are listed in the answer.
    /// The store is held only to write: first every compressed file and archive entry is
    /// expanded without keeping anything and counted against `--max-upload` (a decompression
    /// bomb stops at the limit, 413, after about a second of CPU, having held nothing), then each
    /// file is read and checked into the upload's private folder (`TrackImporter.prepare`), and
    /// only its clustering and writing wait for the store (`TrackImportGate.writing`).
    /// - Throws: `TrackReadError` and the store's errors for a single file; `APIError` 422 when
    ///   an archive holds no track that could be imported, 413 when the content expands past
    ///   the limit; `TrackImportCancelled` when the server stops meanwhile (nothing kept).
    static func importUpload(_ spool: UploadSpool, name: String, state: ServerState, ticket: TrackImportGate.Ticket) throws -> UploadOutcome
    {
        let path = spool.file.path
        let inputs = TrackInputs.expand([path], photos: false)
        let limit = state.options.maxUploadBytes
        var expanded = 0
        for case let .source(source) in inputs {
            // Corrupt data counts up to where it breaks; its import below fails there and says so.
            guard let size = try source.expandedSize(upTo: limit - expanded, check: state.stopping.check) else {
                throw UploadSpool.expandsTooFar(limit)
            }
            expanded += size
        }
        let session = try TrackImportSession(importer: state.importer(), tracker: state.tracker)
        var outcome = UploadOutcome(maxAccuracy: session.importer.settings.maxAccuracy)
        let progress = { (count: Int) throws in
            state.imports.fixes(ticket, count: count)
            try state.stopping.check()
        }
        // Read into the upload's private folder first; only the writing waits for the store.
        try session.run(
            inputs,
            importFile: { source, alongside in
                state.imports.reading(ticket)
                switch try session.importer.prepare(
                    source, spool: spool.directory.appendingPathComponent(".fixes").path, progress: progress)
                {
                case let .finished(summary):
                    return (summary, nil)
                case let .ready(track):
                    return try state.imports.writing(ticket, check: state.stopping.check) {
                        try session.importer.commit(track, progress: progress, alongside: alongside)
                    }
                }
            }
        ) { step in
            switch step {
            case let .unreadable(_, error):
                let message = UploadOutcome.uploadName(error, path: path, name: name)
                guard inputs.count > 1 else { throw APIError(.unprocessableContent, message) }
                outcome.failures.append((name, message))
            case let .failed(entry, error):
                // The one file of an upload that fails is its answer; a cancelled import is never kept.
                guard inputs.count > 1 || entry != path, !(error is TrackImportCancelled) else { throw error }
                outcome.failures.append(
                    (
                        InputFileName.renamed(entry, from: path, to: name),
                        UploadOutcome.uploadName(error, path: path, name: name)
                    ))
            case let .passedOver(count):
                outcome.passedOver += count
            case let .imported(entry, summary, events):
                outcome.summaries.append((InputFileName.renamed(entry, from: path, to: name), summary, events))
            }
        }
        if outcome.summaries.isEmpty, let first = outcome.failures.first {
            throw APIError(.unprocessableContent, first.message)
        }
        guard !outcome.summaries.isEmpty else { throw APIError(.unprocessableContent, "\(name): no track file in the archive") }
        return outcome
    }
}
