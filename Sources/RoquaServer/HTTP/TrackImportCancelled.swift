import RoquaHTTPGuard

/// An import stopped because the server is shutting down; its transaction was rolled back.
package struct TrackImportCancelled: Error, CustomStringConvertible {
    package var description: String { "the server is stopping: the import was cancelled and nothing of it was kept" }
}

extension ServerStopping {
    /// - Throws: `TrackImportCancelled` once stopping.
    package func check() throws(TrackImportCancelled) {
        if isStopping { throw TrackImportCancelled() }
    }
}
