import Foundation
import RoquaTestSupport

/// Responses read back from one keep-alive connection, each with its header lines in the order
/// the server wrote them, so two servers' answers can be compared byte for byte.
struct RawReply: Equatable {
    var statusLine: String
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }
    func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }

    static func == (a: RawReply, b: RawReply) -> Bool {
        a.statusLine == b.statusLine && a.body == b.body && a.headers.map(\.name) == b.headers.map(\.name)
            && a.headers.map(\.value) == b.headers.map(\.value)
    }

    /// The same, with the `Date` header's value left out (two answers a second apart differ there).
    var withoutDate: RawReply {
        var copy = self
        copy.headers = headers.map { $0.name.lowercased() == "date" ? ($0.name, "") : $0 }
        return copy
    }
}

extension LoopbackHTTP {
    /// Sends `requests` (request lines with their header lines, no `Connection: close`) in one
    /// write, pipelined on this keep-alive connection, and reads as many responses.
    func pipelined(_ requests: [String], port: Int) async throws -> [RawReply] {
        try send(requests.map { "\($0)\r\nHost: 127.0.0.1:\(port)\r\n\r\n" }.joined())
        var buffer: [UInt8] = [], replies: [RawReply] = []
        while replies.count < requests.count {
            if let (reply, used) = try Self.parseOne(buffer) {
                replies.append(reply)
                buffer.removeFirst(used)
                continue
            }
            let more = try await receive()
            guard !more.isEmpty else { throw LoopbackError("the connection closed after \(replies.count) responses") }
            buffer += more
        }
        return replies
    }

    /// One response with a `Content-Length` from the start of `bytes`, and how many bytes it
    /// took; nil until all of it is there.
    static func parseOne(_ bytes: [UInt8]) throws -> (RawReply, Int)? {
        guard let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
        let lines = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw LoopbackError("bad header line \(line)") }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        guard let length = headers.first(where: { $0.name.lowercased() == "content-length" }).flatMap({ Int($0.value) }) else {
            throw LoopbackError("no Content-Length in \(lines[0])")
        }
        guard bytes.count >= end.upperBound + length else { return nil }
        let body = Array(bytes[end.upperBound..<end.upperBound + length])
        return (RawReply(statusLine: lines[0], headers: headers, body: body), end.upperBound + length)
    }
}
