import Foundation
import Logging
import RoquaAchievements
import RoquaBoundaries
import RoquaHTTPGuard
import RoquaIO
import RoquaProgress
import RoquaRegions
import RoquaServeInput

/// Everything the routes share, opened once at start: the boundary DB (resolver index, hierarchy,
/// unit names and shapes), the region store with the achievements' tables, and the import gate.
final class ServerState: Sendable {
    let options: ServerOptions
    let index: ResolverIndex
    let resolvers: ResolverPool
    let hierarchy: BoundaryHierarchy
    let catalog: UnitCatalog
    let shapes: UnitShapes
    let store: RegionStore
    let tracker: AchievementTracker
    let imports: TrackImportGate
    /// The regions' circles for the page's fog, read once per change of the store.
    let fog = FogCircles()
    /// The achievement board, evaluated once for the routes that ask together.
    let boards = SharedBoard()
    /// Requests per device on the live ingestion routes.
    let ingestLimits = IngestLimits()
    /// The page's sign-ins, and the failed ones.
    let sessions = PageSessions()
    let loginLimits = LoginLimits()
    /// Which hosts and origins the server answers (and its per-launch page token).
    let origins: OriginPolicy
    /// Set when the graceful shutdown starts.
    let stopping: ServerStopping
    let assets: StaticAssets
    let logger: Logger
    /// The boundary DB's import time and schema, for `/status`.
    let boundariesImportedAt: String?
    let boundarySchema: String
    /// The boundary DB's identity as `RegionEnricher` records it (read once).
    let enricherIdentity: String

    /// - Throws: `BoundaryDatabaseError`, `RegionStoreError`, `AchievementCatalogError`,
    ///   `ServerError.leafletMissing`.
    init(options: ServerOptions, logger: Logger) throws {
        self.options = options
        self.logger = logger
        let database = try BoundaryDatabase(path: options.boundaries)
        index = try ResolverIndex(database: database)
        let info = try database.info()
        enricherIdentity = RegionEnricher.identity(of: info)
        // `BoundaryInfo` writes `?` for a time the DB does not record: `/status` then leaves it out.
        boundariesImportedAt = info.importedAt == "?" ? nil : info.importedAt
        boundarySchema = String(info.schemaVersion)
        resolvers = ResolverPool(index: index)
        // `/reverse` names a locality at district zoom from the places in memory, each country's
        // read when an answer first needs it.
        _ = index.localities()
        hierarchy = try BoundaryHierarchy(database: database)
        catalog = try UnitCatalog(database: database)
        shapes = UnitShapes(catalog: catalog, hierarchy: hierarchy)
        if let warning = PrivateFiles.looseModeWarning(options.store) { logger.warning("\(warning)") }
        var upgraded = false
        store = try RegionStore(
            path: options.store, components: [AchievementStorage.component],
            unreadable: { unreadable in
                logger.warning(
                    "stored regions cannot be read and are skipped; `roqua regions repair` removes them",
                    metadata: ["count": "\(unreadable.count)"])
            },
            upgraded: { copy in
                logger.notice(
                    "the store was upgraded to this Roqua's format; a copy of it as it was is kept beside it",
                    metadata: ["copy": "\(copy)"])
                upgraded = true
            })
        if upgraded { ExploredFigures.keepRemembered(in: store) }
        let achievements = try options.achievements.map(AchievementCatalog.load(path:)) ?? AchievementCatalog.bundled()
        tracker = AchievementTracker(catalog: achievements, hierarchy: hierarchy)
        imports = TrackImportGate()
        origins = OriginPolicy(listenHost: options.listen.host, port: options.listen.port, allowedNames: options.allowHosts)
        stopping = ServerStopping()
        assets = try StaticAssets(leaflet: options.leaflet, csrfToken: origins.csrfToken, signOut: options.token != nil)
    }

    /// When live fixes may have been taken, from now (`--live-max-age`).
    func liveWindow() -> LiveWindow { LiveWindow(maxAgeDays: options.liveMaxAgeDays) }

    /// An importer naming regions from the server's open index (one per import: an enricher
    /// serves one thread at a time).
    func importer() throws -> TrackImporter {
        let settings = try store.derivedWith()
        return try TrackImporter(
            store: store, enricher: RegionEnricher(index: index, identity: enricherIdentity),
            settings: settings.clustering, flights: settings.flights)
    }
}
