import Foundation
import Hummingbird
import RoquaBoundaries
import RoquaIO
import RoquaServeInput

/// `GET /reverse` and `GET /status`, as Nominatim answers them.
enum ReverseRoutes {
    static func add<Context: RequestContext>(to router: Router<Context>, state: ServerState) {
        let formatter = NominatimFormatter(catalog: state.catalog)
        router.get("/reverse") { request, _ -> Response in
            let answer = try ReverseAnswer(query: request.uri.query, acceptLanguage: request.headers[.acceptLanguage],
                                           resolvers: state.resolvers, formatter: formatter)
            return JSONBody.response(answer.body, headers: [.accessControlAllowOrigin: "*"], contentType: answer.contentType)
        }
        router.get("/status") { request, _ -> Response in
            let query = try QueryParameters(request.uri.query)
            switch query["format"] ?? "text" {
            case "text":
                return Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8"],
                                body: ResponseBody(byteBuffer: ByteBuffer(string: "OK")))
            case "json":
                let updated = state.boundariesImportedAt.map { ",\"data_updated\":\(JSONText.quote($0))" } ?? ""
                return JSONBody.response("{\"status\":0,\"message\":\"OK\"\(updated),\"software_version\":\"roqua-\(Roqua.version)\","
                                         + "\"database_version\":\"\(state.boundarySchema)\"}")
            case let other:
                throw APIError.badRequest("Parameter 'format' must be one of: text, json (not \(Echo.quoted(other)))")
            }
        }
    }
}

/// The answer to a `/reverse` query: the route's and `ReverseFastPath`'s, so both answer alike.
struct ReverseAnswer {
    let body: String
    let contentType: String
    static let json = "application/json; charset=utf-8"
    static let geoJSON = "application/geo+json; charset=utf-8"

    /// - Throws: `BadRequest` for a malformed query, `APIError` (500) when the resolver fails.
    init(query: String?, acceptLanguage: String?, resolvers: ResolverPool, formatter: NominatimFormatter) throws {
        let reverse = try NominatimRequest(QueryParameters(query), acceptLanguage: acceptLanguage)
        let resolution: Resolution
        do {
            let answer = try resolvers.resolve(reverse.coordinate)
            // The locality only where the answer reaches the district (zoom ≥ 10).
            resolution = reverse.deepestLevel == .district ? try resolvers.index.withLocality(answer) : answer
        } catch let error as ResolveError {
            // Validated above, so only a GEOS failure can land here: the server's fault, not the query's.
            throw APIError(.internalServerError, "the resolver failed: \(error.kindDescription)")
        }
        contentType = reverse.format == .geojson || reverse.format == .geocodejson ? Self.geoJSON : Self.json
        body = formatter.document(resolution, reverse)
    }
}

extension ResolveError {
    /// What went wrong without the coordinate (personal data, never logged).
    var kindDescription: String {
        switch self {
        case let .invalidCoordinate(_, reason): "invalid coordinate: \(reason)"
        case let .geometry(message): "geometry error: \(message)"
        }
    }
}
