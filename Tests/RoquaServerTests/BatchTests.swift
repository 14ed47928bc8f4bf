import Foundation
import RoquaTestSupport
import Testing

@Suite struct BatchTests {
    func lines(_ reply: LoopbackHTTP.Reply) throws -> [[String: Any]] {
        try reply.text.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
    }

    @Test func ndjsonRowsAnsweredInOrderWithErrorsPerRow() async throws {
        let server = try await SharedServer.get()
        let input = """
            {"id":"a","lat":40.9879,"lon":29.0281}
            {"id":7,"lat":0,"lon":-30}

            not json
            {"id":"x","lat":95,"lon":0}
            {"lat":52.52,"lon":13.405}
            """
        let reply = try await server.post(
            "/reverse/batch?accept-language=en", body: Array(input.utf8),
            headers: ["Content-Type": "application/x-ndjson"])
        #expect(reply.status == 200 && reply.headers["content-type"]?.hasPrefix("application/x-ndjson") == true)
        let rows = try lines(reply)
        #expect(rows.count == 5)
        #expect(rows[0]["row"] as? Int == 1 && rows[0]["id"] as? String == "a")
        #expect((rows[0]["district"] as? [String: Any])?["name"] as? String == "Kadıköy")
        #expect((rows[0]["province"] as? [String: Any])?["name"] as? String == "Istanbul")
        #expect(rows[1]["id"] as? Int == 7 && rows[1]["country"] is NSNull)
        #expect(rows[2]["row"] as? Int == 4 && (rows[2]["error"] as? String)?.contains("not a JSON object") == true)
        #expect(rows[3]["row"] as? Int == 5 && (rows[3]["error"] as? String)?.contains("latitude outside") == true)
        #expect((rows[4]["country"] as? [String: Any])?["code"] as? String == "DE")
    }

    @Test func csvWithHeaderAndLongLines() async throws {
        let server = try await SharedServer.get()
        let long = String(repeating: "9", count: 70_000)
        let input = "name,latitude,longitude\nKadıköy,40.9879,29.0281\nbad,abc,1\n\(long),1,1\nAnkara,39.9251,32.8369"
        let rows = try await lines(server.post("/reverse/batch", body: Array(input.utf8), headers: ["Content-Type": "text/csv"]))
        #expect(rows.count == 4)
        #expect((rows[0]["district"] as? [String: Any])?["name"] as? String == "Kadıköy" && rows[0]["row"] as? Int == 2)
        #expect(rows[1]["error"] as? String == "latitude \"abc\" is not a number")
        #expect((rows[2]["error"] as? String)?.contains("longer than 65536 bytes") == true)
        #expect((rows[3]["district"] as? [String: Any])?["name"] as? String == "Çankaya")
    }

    /// The first answer arrives while the upload is still open: streamed both ways.
    @Test func answersStreamBeforeTheUploadEnds() async throws {
        let server = try await SharedServer.get()
        let client = try LoopbackHTTP(port: server.port)
        try client.send(
            "POST /reverse/batch HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nContent-Type: application/x-ndjson\r\n"
                + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
        let first = #"{"id":1,"lat":40.9879,"lon":29.0281}"# + "\n"
        try client.send(String(first.utf8.count, radix: 16) + "\r\n" + first + "\r\n")
        var received: [UInt8] = []
        while !String(decoding: received, as: UTF8.self).contains("Kadıköy") {
            let part = try await client.receive()
            guard !part.isEmpty else { break }
            received += part
        }
        #expect(String(decoding: received, as: UTF8.self).contains("\"id\":1"))
        let second = #"{"id":2,"lat":39.9251,"lon":32.8369}"# + "\n"
        try client.send(String(second.utf8.count, radix: 16) + "\r\n" + second + "\r\n0\r\n\r\n")
        received += try await client.readAll()
        let reply = try LoopbackHTTP.parse(received)
        let rows = try lines(reply)
        #expect(rows.map { $0["id"] as? Int } == [1, 2])
    }
}
