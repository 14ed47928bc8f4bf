import Foundation
import HTTPTypes
import Hummingbird
import RoquaBoundaries
import RoquaIO
import RoquaServeInput

/// `GET /reverse` and `GET /status`, as Nominatim answers them.
enum ReverseRoutes {
    static func add<Context: RequestContext>(to router: Router<Context>, state: ServerState) {
        let reverse = ReverseEndpoint(state: state)
        router.get("/reverse") { request, _ -> Response in
            try reverse.reply(query: request.uri.query, acceptLanguage: request.headers[.acceptLanguage]).response
        }
        router.get("/status") { request, _ -> Response in
            let query = try QueryParameters(request.uri.query)
            switch query["format"] ?? "text" {
            case "text":
                return Response(
                    status: .ok, headers: [.contentType: "text/plain; charset=utf-8"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: "OK")))
            case "json":
                return try JSONBody.encoded(NominatimStatus(dataUpdated: state.boundariesImportedAt, databaseVersion: state.boundarySchema))
            case let other:
                throw APIError.badRequest("Parameter 'format' must be one of: text, json (not \(Echo.quoted(other)))")
            }
        }
    }
}

/// `/status?format=json`, in Nominatim's order.
struct NominatimStatus: OrderedJSON {
    var status = 0
    var message = "OK"
    /// When the boundary DB was imported (left out when it does not say).
    var dataUpdated: String?
    var softwareVersion = "roqua-\(Roqua.version)"
    var databaseVersion: String

    init(dataUpdated: String?, databaseVersion: String) {
        self.dataUpdated = dataUpdated
        self.databaseVersion = databaseVersion
    }

    enum CodingKeys: String, CodingKey {
        case status, message, dataUpdated = "data_updated", softwareVersion = "software_version", databaseVersion = "database_version"
    }
}

/// What `GET /reverse` answers once its request got past the guards (`Host`, token): the
/// route's answer and `ReverseFastPath`'s are this one.
struct ReverseEndpoint: Sendable {
    let resolvers: ResolverPool
    let formatter: NominatimFormatter

    init(state: ServerState) {
        resolvers = state.resolvers
        formatter = NominatimFormatter(catalog: state.catalog)
    }

    /// The answer, allowed to any origin (Nominatim's is).
    /// - Throws: `BadRequest` for a malformed query, `APIError` (500) when the resolver fails.
    func reply(query: String?, acceptLanguage: String?) throws -> JSONReply {
        let answer = try ReverseAnswer(query: query, acceptLanguage: acceptLanguage, resolvers: resolvers, formatter: formatter)
        let headers = answer.contentType == JSONBody.geoJSON ? Self.headers.geoJSON : Self.headers.json
        return try JSONBody.reply(answer.document, fields: headers)
    }

    /// Made once (a field checks its value when it is made), in the order `JSONBody` gives them.
    private static let headers = (
        json: HTTPFields([
            HTTPField(name: .accessControlAllowOrigin, value: "*"),
            HTTPField(name: .contentType, value: JSONBody.json),
        ]),
        geoJSON: HTTPFields([
            HTTPField(name: .accessControlAllowOrigin, value: "*"),
            HTTPField(name: .contentType, value: JSONBody.geoJSON),
        ])
    )
}

/// The answer to a `/reverse` query and its content type.
struct ReverseAnswer {
    let document: NominatimAnswer
    let contentType: String

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
        contentType = reverse.format == .geojson || reverse.format == .geocodejson ? JSONBody.geoJSON : JSONBody.json
        document = formatter.document(resolution, reverse)
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
