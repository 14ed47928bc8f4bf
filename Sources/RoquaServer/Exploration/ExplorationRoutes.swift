import Foundation
import Hummingbird
import RoquaAchievements
import RoquaBoundaries
import RoquaIO
import RoquaProgress
import RoquaRegions
import RoquaServeInput

/// Roqua's own read routes: statistics, visited regions, achievements, profile and the unit
/// shapes the page draws. Reads are blocking SQLite work, run off the request threads.
enum ExplorationRoutes {
    static func add<Context: RequestContext>(to router: Router<Context>, state: ServerState) {
        router.get("/api/stats") { request, _ -> Response in
            let query = try QueryParameters(request.uri.query)
            let zone = try timeZone(query["tz"])
            let decimals = try query["decimals"].map { text throws(APIError) -> Int in
                guard let value = Int(text), (4...9).contains(value) else { throw .badRequest("decimals must be 4…9") }
                return value
            } ?? 5
            if let unit = query["unit"] {
                let found: BoundaryHierarchy.Unit
                do { found = try state.hierarchy.unit(named: unit) } catch let error as BoundaryHierarchy.LookupError {
                    throw APIError(.notFound, error.description)
                }
                let regions = try await offloaded { try state.store.allRegions() }
                guard let progress = ProgressCalculator(hierarchy: state.hierarchy, regions: regions).progress(of: found.code) else {
                    throw APIError(.notFound, "\(found.name) (\(found.code)) has no subdivisions in the boundary database")
                }
                return try JSONBody.encoded(progress, timeZone: zone)
            }
            let report = try await offloaded {
                try ProgressReport(store: state.store, hierarchy: state.hierarchy,
                                   options: .init(timeZone: zone, decimals: decimals), memory: StoredFigures(store: state.store))
            }
            return try JSONBody.encoded(report, timeZone: zone)
        }
        router.get("/api/visited") { _, _ -> Response in
            let codes = try await offloaded { try state.store.visitedCodes() }
            return JSONBody.response("[" + codes.sorted().map(JSONText.quote).joined(separator: ",") + "]")
        }
        router.get("/api/changes") { _, _ -> Response in
            let mark = try await offloaded { try state.store.changeMark() }
            return JSONBody.response("{\"mark\":\(JSONText.quote(mark))}")
        }
        router.get("/api/regions") { _, _ -> Response in
            let regions = try await offloaded { try state.store.allRegions() }
            return JSONBody.response(regionsGeoJSON(regions), contentType: "application/geo+json; charset=utf-8")
        }
        router.get("/api/view") { _, _ -> Response in
            let view = try await offloaded {
                MapView(circles: try state.fog.circles(state.store), visited: try state.store.visitedCodes(), hierarchy: state.hierarchy)
            }
            return try JSONBody.encoded(view)
        }
        router.get("/api/fog") { request, _ -> Response in
            let view = try FogLayer.View(try QueryParameters(request.uri.query))
            let layer = try await offloaded { FogLayer(try state.fog.circles(state.store), view: view) }
            return JSONBody.response(layer.json)
        }
        router.get("/api/achievements") { request, _ -> Response in
            let query = try QueryParameters(request.uri.query)
            let language = query["lang"] ?? "en"
            guard language == "en" || language == "tr" else { throw APIError.badRequest("lang must be en or tr") }
            let board = try await state.boards.board(state)
            return JSONBody.response(achievementsJSON(board, catalog: state.tracker.catalog, language: language))
        }
        router.get("/api/profile") { _, _ -> Response in
            let board = try await state.boards.board(state)
            let profile = try await offloaded { try Profile(store: state.store, tracker: state.tracker, board: board) }
            return try JSONBody.encoded(profile)
        }
        router.get("/api/units/{code}/children") { _, context -> Response in
            let code = try context.parameters.require("code")
            guard code.utf8.count <= 64 else { throw APIError.badRequest("a unit code has at most 64 characters") }
            guard let text = try await offloaded({ try state.shapes.geoJSON(childrenOf: code) }) else {
                throw APIError(.notFound, "no unit with code \(Echo.quoted(code))")
            }
            // Boundaries do not change while the server runs.
            return JSONBody.response(text, headers: [.cacheControl: "private, max-age=3600"],
                                     contentType: "application/geo+json; charset=utf-8")
        }
    }

    static func timeZone(_ name: String?) throws(APIError) -> TimeZone {
        guard let name else { return .current }
        guard let zone = TimeZone(identifier: name) else {
            throw .badRequest("unknown time zone \(Echo.quoted(name)) (use an IANA name such as Europe/Istanbul)")
        }
        return zone
    }

    /// Visited regions as GeoJSON points with their radius in metres (the page draws true-radius circles).
    static func regionsGeoJSON(_ regions: [VisitedRegion]) -> String {
        let style = Date.ISO8601FormatStyle()
        let features = regions.map { r in
            var properties = "\"id\":\(r.id ?? 0),\"radius\":\(r.radius),\"visit_count\":\(r.visitCount),"
                + "\"first_visit\":\"\(style.format(r.timestampStart))\",\"last_visit\":\"\(style.format(r.lastVisit))\""
            for (key, value) in [("country", r.country), ("country_code", r.countryCode), ("province", r.province),
                                 ("province_code", r.provinceCode), ("district", r.district), ("district_code", r.districtCode)] {
                if let value { properties += ",\"\(key)\":\(JSONText.quote(value))" }
            }
            return "{\"type\":\"Feature\",\"properties\":{\(properties)},"
                + "\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(r.longitude),\(r.latitude)]}}"
        }
        return "{\"type\":\"FeatureCollection\",\"features\":[" + features.joined(separator: ",") + "]}"
    }

    /// Every achievement with its progress; a locked hidden one shows only `???`.
    static func achievementsJSON(_ board: AchievementBoard, catalog: AchievementCatalog, language: String) -> String {
        let items = board.statuses.compactMap { status -> String? in
            guard let definition = catalog.definition(status.id) else { return nil }
            let unlock = board.unlock(status.id)
            let secret = definition.hidden && unlock == nil
            let title = secret ? "???" : definition.title.text(language: language)
            let detail = secret ? "???" : definition.description.text(language: language)
            var item = "{\"id\":\(JSONText.quote(secret ? "hidden" : status.id)),\"title\":\(JSONText.quote(title)),"
                + "\"description\":\(JSONText.quote(detail)),\"icon\":\(JSONText.quote(secret ? "?" : definition.icon)),"
                + "\"rarity\":\"\(definition.rarity.rawValue)\",\"category\":\"\(definition.category.rawValue)\","
                + "\"hidden\":\(secret),\"xp\":\(definition.xp),\"unlocked\":\(unlock != nil),"
                + "\"progress\":\(secret ? 0 : (status.fraction * 1000).rounded() / 1000)"
            if let unlock { item += ",\"unlocked_at\":\"\(Date.ISO8601FormatStyle().format(unlock.unlockedAt))\"" }
            return item + "}"
        }
        return "{\"unlocked\":\(board.unlocks.count),\"total\":\(catalog.achievements.count),"
            + "\"achievements\":[" + items.joined(separator: ",") + "]}"
    }
}
