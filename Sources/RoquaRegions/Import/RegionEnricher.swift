import Foundation
import RoquaBoundaries
import RoquaIO

/// Fills a region's country / province / district from the offline resolver: no network, at
/// insert time, and again by `roqua regions enrich` after a boundary DB upgrade.
public final class RegionEnricher {
    /// The offline resolver regions are enriched with (one thread at a time).
    public let resolver: Resolver
    /// Identifies the boundary DB (its import time): regions enriched by another one are stale.
    public let identity: String
    /// Localities are first read with one R*Tree query each (~0.2 ms); from this many regions
    /// on (in all, or announced by `expect`) the enricher answers from the places in memory
    /// (~1.5 M/s), each country's read once when first met (Türkiye's 3,968 in a few ms), so a
    /// small import never pays for a read and a big one pays once per country it visits — never
    /// for the world's 235 k places (44 MB of a ten-year import's peak when they were read whole
    /// after a dozen countries).
    let queriesBeforeLoading: Int
    private var lookups = 0

    /// - Throws: `BoundaryDatabaseError` when the boundary database cannot be opened.
    public convenience init(boundaries path: String) throws {
        try self.init(boundaries: path, queriesBeforeLoading: 400)
    }

    /// As `init(boundaries:)`, answering from memory after `queriesBeforeLoading` regions (tests
    /// make the switch early).
    /// - Throws: `BoundaryDatabaseError` when the boundary database cannot be opened.
    package convenience init(boundaries path: String, queriesBeforeLoading: Int) throws {
        let index = try ResolverIndex(path: path)
        try self.init(index: index, identity: Self.identity(of: try index.database.info()), queriesBeforeLoading: queriesBeforeLoading)
    }

    /// An enricher over an index opened already (a server keeps one for every request: opening
    /// the index and reading the database's identity cost ~25 ms, a region's names ~µs).
    /// `identity` is `identity(of:)` of the index's database.
    package init(index: ResolverIndex, identity: String, queriesBeforeLoading: Int = 400) throws {
        self.queriesBeforeLoading = queriesBeforeLoading
        resolver = try Resolver(index: index)
        self.identity = identity
    }

    /// What tells one boundary database from another: when it was built and from which layers
    /// (two builds within one second — adding a layer right after a rebuild — differ by their layers).
    package static func identity(of info: BoundaryInfo) -> String {
        let layers = info.sources.map { "\($0.layer) \($0.shpSha256) \($0.features)" }.joined(separator: "\n")
        return info.importedAt + " " + String(SHA256.hex(of: Array(layers.utf8)).prefix(12))
    }

    /// Tells the enricher that `count` regions are about to be enriched: from `queriesBeforeLoading`
    /// on, it answers from the places in memory now rather than after that many single queries
    /// (~0.2 ms each).
    public func expect(_ count: Int) {
        if lookups + count >= queriesBeforeLoading { _ = resolver.index.localities(countriesReadAlone: .max) }
    }

    /// The region with names and codes of the units its centre lies in, and its locality (nil where none).
    /// - Throws: `ResolveError` when the centre is not a valid coordinate; GRDB's `DatabaseError`
    ///   when the boundary DB's places cannot be read.
    public func enriched(_ region: VisitedRegion) throws -> VisitedRegion {
        var region = region
        lookups += 1
        if lookups == queriesBeforeLoading { _ = resolver.index.localities(countriesReadAlone: .max) }
        let answer = try resolver.index.withLocality(resolver.resolve(latitude: region.latitude, longitude: region.longitude))
        region.names = shared.names(
            RegionNames.Values(
                province: answer.province?.name, district: answer.district?.name, country: answer.country?.name,
                countryCode: answer.country?.code, provinceCode: answer.province?.code, districtCode: answer.district?.code,
                enrichedWith: identity, locality: answer.locality?.name, localityID: answer.locality?.geonameID))
        return region
    }

    private let shared = RegionNames.Shared()

    /// A point's country code and the name of the most local unit holding it (locality,
    /// district, province or country): a flight's ends. Nils where the point is in none.
    public func place(_ point: Coordinate) -> (code: String?, name: String?) {
        guard let resolved = try? resolver.resolve(latitude: point.latitude, longitude: point.longitude),
            let answer = try? resolver.index.withLocality(resolved)
        else { return (nil, nil) }
        return (answer.country?.code, answer.locality?.name ?? answer.district?.name ?? answer.province?.name ?? answer.country?.name)
    }
}
