import Foundation
import Hummingbird
import RoquaBoundaries
import RoquaRegions
import RoquaServeInput

/// `GET /api/travel?tz=ZONE&level=country|province|district`: what the page's travel panel and
/// tile layer draw — the days per unit of every year with a ground fix (newest first), the
/// zoom-14 explorer tiles with the largest cluster and the max square, and the flights.
enum TravelRoutes {
    /// Tiles sent to the page at most (the figures always count them all).
    static let maxTiles = 50_000

    struct TileLayer: Encodable {
        let stats: TileStats
        /// `[x, y]` of the visited tiles at `stats.zoom`, at most `maxTiles`.
        let tiles: [[Int]]
        let cluster: [[Int]]
        let truncated: Bool
    }

    struct Travel: Encodable {
        let timeZone: String
        let years: [DaysReport]
        let tiles: TileLayer
        let flights: [FlightRecord]
    }

    static func add<Context: RequestContext>(to router: Router<Context>, state: ServerState) {
        router.get("/api/travel") { request, _ -> Response in
            let query = try QueryParameters(request.uri.query)
            let zone = try ExplorationRoutes.timeZone(query["tz"])
            guard let level = AdminLevel(name: query["level"] ?? "country") else {
                throw APIError.badRequest("level must be country, province or district")
            }
            let travel = try await offloaded {
                let store = state.store
                var calendar = Calendar(identifier: .gregorian)
                calendar.timeZone = zone
                var years: [DaysReport] = []
                if let last = try store.lastOnTheGround(), let first = try store.firstOnTheGround() {
                    let range = calendar.component(.year, from: first)...calendar.component(.year, from: last)
                    years = try range.reversed().map { try store.days(year: $0, level: level, zone: zone) }.filter { !$0.units.isEmpty }
                }
                let visited = try store.visitedTiles(zoom: 14)
                let stats = TileStats(zoom: 14, visited: visited)
                let sent = visited.sorted().prefix(maxTiles).map { [$0.x, $0.y] }
                return Travel(
                    timeZone: zone.identifier, years: years,
                    tiles: TileLayer(
                        stats: stats, tiles: sent, cluster: stats.cluster.map { [$0.x, $0.y] },
                        truncated: visited.count > maxTiles),
                    flights: try store.flights())
            }
            return try JSONBody.encoded(travel, timeZone: zone)
        }
    }
}
