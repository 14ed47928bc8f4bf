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
            let decimals =
                try query["decimals"].map { text throws(APIError) -> Int in
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
                try ProgressReport(
                    store: state.store, hierarchy: state.hierarchy,
                    options: .init(timeZone: zone, decimals: decimals), memory: StoredFigures(store: state.store))
            }
            return try JSONBody.encoded(report, timeZone: zone)
        }
        router.get("/api/timeline") { request, _ -> Response in
            let query = try QueryParameters(request.uri.query)
            let zone = try timeZone(query["tz"])
            guard let day = query["date"], TimelineAnswer.span(of: day, zone: zone) != nil else {
                throw APIError.badRequest("date must be a day of the calendar: YYYY-MM-DD")
            }
            var answer = try await offloaded {
                let namer = try PlaceNamer(index: state.index)
                let timeline = try HistoryTimeline(store: state.store, timeZone: zone, isOnLand: namer.isOnLand)
                return try TimelineAnswer(
                    day: day, zone: zone, timeline: timeline, namer: namer, photos: { try state.store.photos(from: $0, to: $1) })
            }
            answer.timeZone = query["tz"] ?? zone.identifier
            return try JSONBody.encoded(answer, timeZone: zone)
        }
        router.get("/api/timeline/days") { request, _ -> Response in
            let query = try QueryParameters(request.uri.query)
            let zone = try timeZone(query["tz"])
            guard let month = query["month"], let days = RecordedDays.days(of: month, zone: zone) else {
                throw APIError.badRequest("month must be a month of the calendar: YYYY-MM")
            }
            var answer = try await offloaded {
                try RecordedDays(month: month, zone: zone, days: days, recorded: state.store.recorded)
            }
            answer.timeZone = query["tz"] ?? zone.identifier
            return try JSONBody.encoded(answer)
        }
        router.get("/api/visited") { _, _ -> Response in
            let codes = try await offloaded { try state.store.visitedCodes() }
            return try JSONBody.encoded(VisitedCodes(codes: codes.sorted()))
        }
        router.get("/api/changes") { _, _ -> Response in
            let mark = try await offloaded { try state.store.changeMark() }
            return try JSONBody.encoded(ChangeMark(mark: mark))
        }
        router.get("/api/regions") { _, _ -> Response in
            let regions = try await offloaded { try state.store.allRegions() }
            return try JSONBody.encoded(RegionsGeoJSON(regions: regions), contentType: JSONBody.geoJSON)
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
            return try JSONBody.encoded(layer)
        }
        router.get("/api/achievements") { request, _ -> Response in
            let query = try QueryParameters(request.uri.query)
            let language = query["lang"] ?? "en"
            guard language == "en" || language == "tr" else { throw APIError.badRequest("lang must be en or tr") }
            let board = try await state.boards.board(state)
            return try JSONBody.encoded(AchievementList(board, catalog: state.tracker.catalog, language: language))
        }
        router.get("/api/profile") { _, _ -> Response in
            let board = try await state.boards.board(state)
            let profile = try await offloaded { try Profile(store: state.store, tracker: state.tracker, board: board) }
            return try JSONBody.encoded(profile)
        }
        router.get("/api/units/{code}/children") { _, context -> Response in
            let code = try context.parameters.require("code")
            guard code.utf8.count <= 64 else { throw APIError.badRequest("a unit code has at most 64 characters") }
            guard let bytes = try await offloaded({ try state.shapes.geoJSON(childrenOf: code) }) else {
                throw APIError(.notFound, "no unit with code \(Echo.quoted(code))")
            }
            // Boundaries do not change while the server runs.
            return JSONBody.response(encoded: bytes, headers: [.cacheControl: "private, max-age=3600"], contentType: JSONBody.geoJSON)
        }
    }

    static func timeZone(_ name: String?) throws(APIError) -> TimeZone {
        guard let name else { return .current }
        guard let zone = TimeZone(identifier: name) else {
            throw .badRequest("unknown time zone \(Echo.quoted(name)) (use an IANA name such as Europe/Istanbul)")
        }
        return zone
    }
}
