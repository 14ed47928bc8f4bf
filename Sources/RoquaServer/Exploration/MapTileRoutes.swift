import Foundation
import HTTPTypes
import Hummingbird
import RoquaIO
import RoquaProgress
import RoquaRegions
import RoquaServeInput

/// `GET /api/tiles/{heat|lines}/{z}/{x}/{y}.png[?from=DAY&to=DAY&tz=ZONE]`: the lifetime map of
/// the kept fixes as 256×256 slippy-map tiles, drawn from the count pyramid the imports keep
/// (`MapTileKeeper`), or from the fixes of the local days asked. Tiles are personal data: read
/// by no page of another site (`OriginGuardMiddleware.isHistoryRead`), `Cache-Control: private`,
/// an `ETag` that changes with the history, 304 for a client that has it.
enum MapTileRoutes {
    static let prefix = "/api/tiles/"

    static func add<Context: RequestContext>(to router: Router<Context>, state: ServerState) {
        router.get("/api/tiles/{kind}/{z}/{x}/{file}") { request, context -> Response in
            let tile = try Tile(
                kind: context.parameters.require("kind"), z: context.parameters.require("z"), x: context.parameters.require("x"),
                file: context.parameters.require("file"))
            let query = try QueryParameters(request.uri.query)
            let span = try days(query)
            let mark = try await offloaded { try state.store.historyMark() }
            // Only checked values in the tag: the span as instants, never the query's text.
            let days = span.map { "-\(Int64($0.0.timeIntervalSince1970))-\(Int64($0.1.timeIntervalSince1970))" } ?? ""
            let tag = "\"\(mark)-\(tile.kind.rawValue)-\(tile.z)-\(tile.x)-\(tile.y)\(days)\""
            var headers = ConditionalGet.headers(tag: tag)
            if let held = ConditionalGet.notModified(request, tag: tag, headers: headers) { return held }
            let png = try await offloaded {
                if let (from, to) = span {
                    try state.store.mapTile(tile.kind, z: tile.z, x: tile.x, y: tile.y, from: from, to: to)
                } else {
                    try state.store.mapTile(tile.kind, z: tile.z, x: tile.x, y: tile.y)
                }
            }
            headers[.contentType] = "image/png"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: png)))
        }
    }

    /// A tile's address, checked: a kind, a zoom 0–18 and a column and row on it, `Y.png`.
    struct Tile {
        var kind: MapTileKind
        var z: Int, x: Int, y: Int

        init(kind: String, z: String, x: String, file: String) throws(APIError) {
            guard let found = MapTileKind(rawValue: kind) else {
                throw APIError(.notFound, "no tiles of kind \(Echo.quoted(kind)) (heat or lines)")
            }
            guard let z = Int(z), (0...18).contains(z) else { throw APIError(.notFound, "the zoom must be 0–18") }
            let side = 1 << z
            guard file.hasSuffix(".png"), let y = Int(file.dropLast(4)), let x = Int(x), (0..<side).contains(x), (0..<side).contains(y)
            else { throw APIError(.notFound, "no tile \(Echo.quoted("\(x)/\(file)")) at zoom \(z): x and y are 0–\(side - 1), as Y.png") }
            (self.kind, self.z, self.x, self.y) = (found, z, x, y)
        }
    }

    /// Days a span may hold: a tile of a span is drawn from all of its fixes, read for each tile
    /// (a month of a phone is about 200,000), so a request's time and memory stay bounded.
    static let longestSpanDays = 31

    /// The span of `from` through `to` (local days of `tz`, both included), nil when neither is given.
    static func days(_ query: QueryParameters) throws(APIError) -> (Date, Date)? {
        guard query["from"] != nil || query["to"] != nil else { return nil }
        let zone = try ExplorationRoutes.timeZone(query["tz"])
        guard let first = query["from"].flatMap({ TimelineAnswer.span(of: $0, zone: zone) }),
            let last = query["to"].flatMap({ TimelineAnswer.span(of: $0, zone: zone) })
        else { throw .badRequest("from and to must both be days of the calendar: YYYY-MM-DD") }
        guard last.0 >= first.0 else { throw .badRequest("to must not be before from") }
        // Two hours of room for the days a clock change lengthens.
        guard last.1.timeIntervalSince(first.0) <= Double(longestSpanDays) * 86_400 + 7_200 else {
            throw .badRequest("from and to span at most \(longestSpanDays) days (the whole history needs neither)")
        }
        return (first.0, last.1)
    }
}
