import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import RoquaChatCore

/// An HTTP answer.
struct HTTPResult: Sendable {
    let status: Int
    let body: Data
    let headers: HTTPHeaders

    func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        do {
            return try ChatJSON.decoder().decode(T.self, from: body)
        } catch {
            throw TestFailure("HTTP \(status): cannot decode \(T.self) from \(String(decoding: body, as: UTF8.self)): \(error)")
        }
    }

    /// The `error.code` of an error body (nil when the body is not one).
    var errorCode: ChatErrorCode? { (try? ChatJSON.decoder().decode(APIErrorBody.self, from: body))?.error.code }
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// Real HTTP over loopback with AsyncHTTPClient.
struct TestHTTP: Sendable {
    let baseURL: String

    func send(
        _ method: HTTPMethod, _ path: String, data: Data? = nil, token: String? = nil,
        contentType: String = "application/json", headers: [(String, String)] = []
    ) async throws -> HTTPResult {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let data {
            request.headers.add(name: "Content-Type", value: contentType)
            request.body = .bytes(ByteBuffer(bytes: data))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 64 * 1024 * 1024)
        return HTTPResult(status: Int(response.status.code), body: Data(body.readableBytesView), headers: response.headers)
    }

    func send(
        _ method: HTTPMethod, _ path: String, json: some Encodable, token: String? = nil,
        headers: [(String, String)] = []
    ) async throws -> HTTPResult {
        try await send(method, path, data: try ChatJSON.encoder().encode(json), token: token, headers: headers)
    }
}
