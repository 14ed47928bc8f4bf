import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import RoquaChatCore

/// A failure of the load generator, with what went wrong.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// JSON over AsyncHTTPClient against one server; the pool allows a connection per client.
struct BenchClient: Sendable {
    let baseURL: String
    let http: HTTPClient

    static func make(baseURL: String, connections: Int) -> BenchClient {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
        return BenchClient(baseURL: baseURL, http: HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration))
    }

    func send<Response: Decodable>(
        _ method: HTTPMethod, _ path: String, body: (some Encodable)?, token: String?,
        expect status: Int, as _: Response.Type, from address: String? = nil
    ) async throws -> Response {
        let (code, data) = try await raw(
            method, path, body: try body.map { try ChatJSON.encoder().encode($0) }, token: token, from: address)
        guard code == status else {
            throw BenchError("\(method) \(path): HTTP \(code) \(String(decoding: data.prefix(300), as: UTF8.self))")
        }
        return try ChatJSON.decoder().decode(Response.self, from: data)
    }

    /// One request; its status and body. `address`: sent as `X-Forwarded-For` (the server trusts
    /// it from 127.0.0.1 with `--trusted-proxy 127.0.0.1`), so each simulated client has its own.
    func raw(_ method: HTTPMethod, _ path: String, body: Data?, token: String?, from address: String? = nil) async throws -> (Int, Data) {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        request.headers.add(name: "Content-Type", value: "application/json")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let address { request.headers.add(name: "X-Forwarded-For", value: address) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await http.execute(request, timeout: .seconds(60))
        let data = Data(try await response.body.collect(upTo: 64 * 1024 * 1024).readableBytesView)
        return (Int(response.status.code), data)
    }

    /// Signs a phone in, reading its code from the development SMS outbox.
    /// (Servers before sign-in requests had ids answer without one; they ignore the id sent back.)
    func signIn(_ phone: PhoneNumber, outbox: String, device: String, from address: String? = nil) async throws -> AuthTokens {
        struct Accepted: Decodable {
            var requestID: String?
            enum CodingKeys: String, CodingKey { case requestID = "request_id" }
        }
        let accepted = try await send(
            .POST, "/v1/auth/otp/request", body: OTPRequestBody(phone: phone), token: nil, expect: 202,
            as: Accepted.self, from: address)
        let code = try await Self.code(for: phone, outbox: outbox)
        return try await send(
            .POST, "/v1/auth/otp/verify",
            body: OTPVerifyBody(phone: phone, requestID: accepted.requestID ?? "none", code: code, deviceID: device),
            token: nil, expect: 200, as: AuthTokens.self, from: address)
    }

    /// The newest code for `phone` in the outbox, waiting up to 10 s for it to appear.
    static func code(for phone: PhoneNumber, outbox: String) async throws -> String {
        struct Line: Decodable {
            var phone: String
            var code: String
        }
        for _ in 0..<200 {
            if let text = try? String(contentsOfFile: outbox, encoding: .utf8) {
                let lines = text.split(separator: "\n").compactMap { try? JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
                if let line = lines.last(where: { $0.phone == phone.e164 }) { return line.code }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw BenchError("no code for \(phone.redacted) in \(outbox)")
    }
}
