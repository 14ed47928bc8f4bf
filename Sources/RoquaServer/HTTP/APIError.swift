import Foundation
import Hummingbird
import Logging
import RoquaIO
import RoquaServeInput

/// An answer other than success: `{"error":{"code":"not_found","message":"…"}}`, the shape the
/// tour-group server answers with too (the codes are its vocabulary: `invalid_request`,
/// `unauthorized`, `forbidden`, `not_found`, `payload_too_large`, `rate_limited`, …). Nominatim's
/// own routes (`/reverse`, `/status`) keep Nominatim's shape, `{"error":{"code":400,"message":"…"}}`,
/// which its clients read. Messages echo request values at most 80 characters.
struct APIError: HTTPResponseError, CustomStringConvertible {
    let status: HTTPResponse.Status
    let message: String
    var headers: HTTPFields = [:]

    init(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.message = message
        self.headers = headers
    }

    var description: String { "\(status.code) \(message)" }

    static func badRequest(_ message: String) -> APIError { APIError(.badRequest, message) }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        reply(path: request.uri.path).response
    }

    /// The answer to a request to `path`: the error document (its code as `path` calls it) and
    /// the error's own headers.
    func reply(path: String) -> JSONReply {
        let code: ErrorDocument.Code = Self.nominatimRoutes.contains(path) ? .number(status.code) : .text(Self.code(status.code))
        return JSONBody.reply(error: ErrorDocument(code: code, message: message), status: status, headers: headers)
    }

    /// The answer to a request to `path` that failed with `error`: `JSONErrorMiddleware`'s, and
    /// `ReverseFastPath`'s for the requests it answers.
    static func reply(for error: any Error, path: String, logger: Logger) -> JSONReply {
        switch error {
        case let error as APIError:
            return error.reply(path: path)
        case let error as BadRequest:
            return APIError.badRequest(error.message).reply(path: path)
        case let error as HTTPError:
            return APIError(error.status, error.body ?? reason(error.status), headers: error.headers).reply(path: path)
        case let error as any HTTPResponseError:
            return APIError(error.status, reason(error.status)).reply(path: path)
        default:
            logger.error("internal error", metadata: ["route": "\(path)", "type": "\(type(of: error))"])
            logger.debug("internal error detail", metadata: ["error": "\(error)"])
            return APIError(.internalServerError, "internal error: \(String(describing: type(of: error)))").reply(path: path)
        }
    }

    /// The message of an error that brought none of its own (Hummingbird's 404, 405, 413, …).
    static func reason(_ status: HTTPResponse.Status) -> String {
        switch status.code {
        case 404: "no such route or file"
        case 405: "method not allowed on this route"
        case 413: "the request body is too large"
        default: status.reasonPhrase
        }
    }

    static let nominatimRoutes: Set<String> = ["/reverse", "/status"]

    /// The stable code of an HTTP status, as the tour-group server names it.
    static func code(_ status: Int) -> String {
        switch status {
        case 400: "invalid_request"
        case 401: "unauthorized"
        case 403: "forbidden"
        case 404: "not_found"
        case 405: "method_not_allowed"
        case 408: "request_timeout"
        case 409: "conflict"
        case 411: "length_required"
        case 413: "payload_too_large"
        case 415: "unsupported_media_type"
        case 421: "misdirected_request"
        case 422: "unprocessable_content"
        case 429: "rate_limited"
        case 503: "unavailable"
        case 500..<600: "internal_error"
        default: "http_\(status)"
        }
    }
}

/// `{"error":{"code":…,"message":…}}`: every error's document.
struct ErrorDocument: OrderedJSON {
    enum Code {
        /// Nominatim's routes: the HTTP status.
        case number(Int)
        /// Every other route: the status's stable name (`APIError.code`).
        case text(String)
    }

    let code: Code
    let message: String

    func encode(to encoder: any Encoder) throws {
        var document = encoder.container(keyedBy: JSONKey.self)
        var error = document.nestedContainer(keyedBy: JSONKey.self, forKey: "error")
        switch code {
        case let .number(status): try error.encode(status, forKey: "code")
        case let .text(name): try error.encode(name, forKey: "code")
        }
        try error.encode(message, forKey: "message")
    }
}

/// A JSON answer before Hummingbird writes it: what routes return as `response`, and what
/// `ReverseFastPath` writes itself on the event loop, so that both send the same bytes.
struct JSONReply {
    var status: HTTPResponse.Status
    /// The route's headers, then `Content-Type`.
    var headers: HTTPFields
    var body: ByteBuffer

    var response: Response {
        Response(status: status, headers: headers, body: ResponseBody(byteBuffer: body))
    }
}

/// Every JSON answer of `roqua serve` is one `Encodable` type written here, in one of two ways
/// the type decides: an `OrderedJSON` answer (Nominatim's formats, GeoJSON, documented bodies)
/// by `OrderedJSONEncoder`, keys in the order the type encodes them; any other answer as
/// `roqua … --json` prints it (sorted keys, snake_case, ISO 8601 dates in `timeZone`).
enum JSONBody {
    static let json = "application/json; charset=utf-8"
    static let geoJSON = "application/geo+json; charset=utf-8"

    /// `value` as its type says (see above).
    /// - Throws: `EncodingError` for a value that cannot be encoded (a non-finite number).
    static func encoded<T: Encodable>(
        _ value: T, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:], contentType: String = json,
        timeZone: TimeZone = TimeZone(identifier: "UTC") ?? .current
    ) throws -> Response {
        // Decided here, not by overloads: which overload a call picks depends on its defaulted
        // arguments, and a type's order must not.
        if let ordered = value as? any OrderedJSON {
            return try reply(ordered, status: status, headers: headers, contentType: contentType).response
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let style = Date.ISO8601FormatStyle(timeZone: timeZone)
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(style.format(date))
        }
        var fields = headers
        fields[.contentType] = contentType
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
    }

    /// An `OrderedJSON` answer, before it is a `Response`.
    /// - Throws: `EncodingError` for a value that cannot be encoded (a non-finite number).
    static func reply<T: OrderedJSON>(
        _ value: T, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:],
        contentType: String = json
    ) throws -> JSONReply {
        var fields = headers
        fields[.contentType] = contentType
        return try reply(value, status: status, fields: fields)
    }

    /// An `OrderedJSON` answer with its headers as given, `Content-Type` included (made once by a
    /// route on a hot path).
    /// - Throws: `EncodingError` for a value that cannot be encoded (a non-finite number).
    static func reply<T: OrderedJSON>(_ value: T, status: HTTPResponse.Status = .ok, fields: HTTPFields) throws -> JSONReply {
        JSONReply(status: status, headers: fields, body: ByteBuffer(bytes: try OrderedJSONEncoder().encode(value)))
    }

    /// An `OrderedJSON` answer encoded once and kept (the unit shapes, which never change).
    static func response(encoded bytes: [UInt8], headers: HTTPFields = [:], contentType: String = json) -> Response {
        var fields = headers
        fields[.contentType] = contentType
        return Response(status: .ok, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// An error's document, which has no number that could fail to encode.
    static func reply(error document: ErrorDocument, status: HTTPResponse.Status, headers: HTTPFields) -> JSONReply {
        do {
            return try reply(document, status: status, headers: headers, contentType: json)
        } catch {
            // Only text and an integer: nothing in an error document can fail to encode.
            return JSONReply(status: status, headers: headers, body: ByteBuffer())
        }
    }
}
