import Foundation
import Hummingbird
import RoquaIO

/// An answer other than success, sent as Nominatim shapes its errors:
/// `{"error":{"code":400,"message":"…"}}`. Messages echo request values at most 80 characters.
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
        JSONBody.response(Self.body(code: status.code, message: message), status: status, headers: headers)
    }

    static func body(code: Int, message: String) -> String {
        "{\"error\":{\"code\":\(code),\"message\":\(JSONText.quote(message))}}"
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
