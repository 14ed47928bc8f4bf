import Foundation
import Hummingbird
import RoquaIO

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
        JSONBody.response(Self.body(status: status.code, message: message, path: request.uri.path), status: status, headers: headers)
    }

    /// The error document for a request to `path`.
    static func body(status: Int, message: String, path: String) -> String {
        let code = nominatimRoutes.contains(path) ? "\(status)" : JSONText.quote(code(status))
        return "{\"error\":{\"code\":\(code),\"message\":\(JSONText.quote(message))}}"
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

/// JSON responses built from text the formatters write (fast, key order as documented) or
/// from `Encodable` values (snake_case keys, ISO 8601 dates, as `roqua … --json` prints them).
enum JSONBody {
    static func response(_ text: String, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:],
                         contentType: String = "application/json; charset=utf-8") -> Response {
        var fields = headers
        fields[.contentType] = contentType
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// - Throws: `EncodingError` for a value that cannot be encoded (a non-finite number).
    static func encoded<T: Encodable>(_ value: T, timeZone: TimeZone = TimeZone(identifier: "UTC") ?? .current) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let style = Date.ISO8601FormatStyle(timeZone: timeZone)
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(style.format(date))
        }
        let data = try encoder.encode(value)
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
