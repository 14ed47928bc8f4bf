import Foundation
import Glibc

/// A minimal HTTP/1.1 client over a plain socket to 127.0.0.1, so tests can send exactly the
/// bytes they mean (malformed queries, huge headers, a body sent in parts) and never wait more
/// than `timeout` seconds for an answer. Every wait runs on a thread of its own: the server under
/// test runs in this process on Swift's cooperative pool, which a blocking `recv` would starve.
public final class LoopbackHTTP: @unchecked Sendable {
    public struct Reply: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }
        public func json() throws -> Any { try JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]) }
        public func object() throws -> [String: Any] {
            guard let object = try json() as? [String: Any] else { throw LoopbackError("not a JSON object: \(text.prefix(200))") }
            return object
        }
    }

    public struct LoopbackError: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    public let socket: Int32

    public init(port: Int, timeout: Int = 30) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw LoopbackError("socket() failed") }
        var time = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            throw LoopbackError("cannot connect to 127.0.0.1:\(port)")
        }
    }

    deinit { close(socket) }

    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw LoopbackError("send failed (errno \(errno))") }
            offset += sent
        }
    }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Runs `body` on a new thread and waits for it without holding a thread of the pool.
    public static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// Some bytes, or empty at the end of the stream.
    public func receive() async throws -> [UInt8] {
        try await Self.offPool { try self.receiveBlocking() }
    }

    private func receiveBlocking() throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        // A server that closes while the client's unread bytes are still arriving (a trickle it
        // cut) resets the connection instead of closing it: for a reader, that is the end too.
        if count < 0, errno == ECONNRESET { return [] }
        guard count >= 0 else { throw LoopbackError("no answer in time (errno \(errno))") }
        return Array(buffer.prefix(count))
    }

    /// Reads until the server closes the connection (requests are sent with `Connection: close`).
    public func readAll() async throws -> [UInt8] {
        try await Self.offPool { try self.readAllBlocking() }
    }

    private func readAllBlocking() throws -> [UInt8] {
        var all: [UInt8] = []
        while true {
            let part = try receiveBlocking()
            if part.isEmpty { return all }
            all += part
        }
    }

    public static func parse(_ raw: [UInt8]) throws -> Reply {
        guard let end = raw.firstRange(of: Array("\r\n\r\n".utf8)) else { throw LoopbackError("no complete response head") }
        let head = String(decoding: raw[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw LoopbackError("bad status line \(head[0])") }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(raw[end.upperBound...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" { body = try dechunk(body) }
        return Reply(status: status, headers: headers, body: body)
    }

    public static func dechunk(_ bytes: [UInt8]) throws -> [UInt8] {
        var out: [UInt8] = [], index = 0
        while index < bytes.count {
            guard let lineEnd = bytes[index...].firstRange(of: [13, 10]) else { throw LoopbackError("bad chunk") }
            let sizeText = String(decoding: bytes[index..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";")[0]
            guard let size = Int(sizeText, radix: 16) else { throw LoopbackError("bad chunk size") }
            index = lineEnd.upperBound
            if size == 0 { break }
            out += bytes[index..<min(index + size, bytes.count)]
            index += size + 2
        }
        return out
    }

    /// One request on a fresh connection. `host`: the `Host` header (nil: none; default: the
    /// server's own address).
    public static func request(
        _ port: Int, _ method: String = "GET", _ target: String, headers: [String: String] = [:],
        body: [UInt8] = [], host: String?? = .none
    ) async throws -> Reply {
        let client = try LoopbackHTTP(port: port)
        var head = "\(method) \(target) HTTP/1.1\r\nConnection: close\r\n"
        switch host {
        case .none: head += "Host: 127.0.0.1:\(port)\r\n"
        case let .some(.some(name)): head += "Host: \(name)\r\n"
        case .some(.none): break
        }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        let request = Array((head + "\r\n").utf8) + body
        // Sending a large body blocks until the server has read it, which its routes (on this
        // process's cooperative pool) must do: block a thread of our own, never one of the pool.
        return try await offPool {
            try client.send(request)
            return try parse(client.readAllBlocking())
        }
    }
}
