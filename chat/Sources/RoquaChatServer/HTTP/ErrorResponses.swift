import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import RoquaChatCore

extension ChatServerError {
    /// The HTTP status of this error.
    package var status: HTTPResponse.Status {
        switch self {
        case .malformedBody, .invalidField, .digestMismatch: .badRequest
        case .bodyTooLarge, .quotaExceeded: .contentTooLarge
        case .missingToken, .invalidToken, .tokenExpired, .invalidCode, .codeExpired,
            .refreshTokenInvalid, .refreshTokenExpired, .refreshTokenReused:
            .unauthorized
        case .tooManyAttempts, .rateLimited: .tooManyRequests
        case .forbidden, .inviteForAnotherPhone: .forbidden
        case .groupNotFound, .userNotFound, .inviteNotFound, .blobNotFound, .routeNotFound: .notFound
        case .methodNotAllowed: .methodNotAllowed
        case .refreshTokenSuperseded, .cannotRemoveGuide: .conflict
        case .inviteUsed, .inviteExpired: .gone
        case .storage: .internalServerError
        case .untrustedProxy: .serviceUnavailable
        }
    }

    /// The stable code clients act on.
    package var code: ChatErrorCode {
        switch self {
        case .malformedBody, .invalidField: .invalidRequest
        case .bodyTooLarge: .payloadTooLarge
        case .missingToken, .invalidToken: .unauthorized
        case .tokenExpired: .tokenExpired
        case .invalidCode: .invalidCode
        case .codeExpired: .codeExpired
        case .tooManyAttempts: .tooManyAttempts
        case .rateLimited: .rateLimited
        case .refreshTokenInvalid: .refreshTokenInvalid
        case .refreshTokenExpired: .refreshTokenExpired
        case .refreshTokenReused: .refreshTokenReused
        case .refreshTokenSuperseded: .refreshTokenSuperseded
        case .forbidden: .forbidden
        case .groupNotFound, .userNotFound, .inviteNotFound, .blobNotFound, .routeNotFound: .notFound
        case .methodNotAllowed: .methodNotAllowed
        case .inviteUsed: .inviteUsed
        case .inviteExpired: .inviteExpired
        case .inviteForAnotherPhone: .inviteForAnotherPhone
        case .cannotRemoveGuide: .cannotRemoveGuide
        case .digestMismatch: .digestMismatch
        case .quotaExceeded: .quotaExceeded
        case .storage: .internalError
        case .untrustedProxy: .unavailable
        }
    }

    /// The JSON error response, with `Retry-After` or `WWW-Authenticate` where they apply.
    package var response: Response {
        var headers = HTTPFields()
        switch self {
        case .tooManyAttempts(let seconds), .rateLimited(_, let seconds):
            headers[.retryAfter] = String(seconds)
        case .missingToken:
            headers[.wwwAuthenticate] = "Bearer"
        case .invalidToken, .tokenExpired:
            headers[.wwwAuthenticate] = "Bearer error=\"invalid_token\""
        default:
            break
        }
        return JSONResponse.make(APIErrorBody(code: code, message: description), status: status, headers: headers)
    }
}

/// JSON responses with the wire's date format.
package enum JSONResponse {
    package static func make(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        do {
            let data = try ChatJSON.encoder().encode(value)
            return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
        } catch {
            // Only non-finite numbers fail to encode, and no response holds any.
            return Response(
                status: .internalServerError, headers: headers,
                body: .init(byteBuffer: ByteBuffer(string: #"{"error":{"code":"internal_error","message":"response encoding failed"}}"#)))
        }
    }
}

/// Reading request bodies with a per-route limit, decoding errors as 400s that name the field.
package enum ChatBody {
    /// The raw body, at most `limit` bytes.
    /// - Throws: `bodyTooLarge`.
    package static func bytes(_ request: Request, limit: Int) async throws -> ByteBuffer {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw ChatServerError.bodyTooLarge(limit: limit)
        }
        do {
            return try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw ChatServerError.bodyTooLarge(limit: limit)
        }
    }

    /// The body decoded as `T`.
    /// - Throws: `bodyTooLarge`, `malformedBody` naming the path of the bad field.
    package static func decode<T: Decodable>(_ type: T.Type, from request: Request, limit: Int) async throws -> T {
        let buffer = try await bytes(request, limit: limit)
        guard buffer.readableBytes > 0 else { throw ChatServerError.malformedBody("the body is empty; JSON expected") }
        do {
            return try ChatJSON.decoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch let error as DecodingError {
            throw ChatServerError.malformedBody(describe(error))
        } catch {
            throw ChatServerError.malformedBody("not JSON")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            let text = codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
            return text.isEmpty ? "the body" : String(text.drop { $0 == "." })
        }
        switch error {
        case let .keyNotFound(key, context):
            return "\(path(context.codingPath + [key])) is missing"
        case let .typeMismatch(type, context):
            return "\(path(context.codingPath)) should be \(type)"
        case let .valueNotFound(type, context):
            return "\(path(context.codingPath)) should be \(type), not null"
        case let .dataCorrupted(context):
            return context.codingPath.isEmpty ? "not valid JSON" : "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
