import Foundation
import GRDB
import RoquaTestKit
import Testing

/// The tour-group scenario across processes on loopback: a `roqua-chat-server`, a guide and two
/// travellers, each a separate `roqua-chat` process per verb. With the server stopped they
/// exchange text and a location peer to peer only (found by UDP beacons), then one traveller
/// is partitioned from the guide and gets the guide's news through the other traveller (peers
/// files); with the server back, everyone syncs and all hold exactly the server's set.
@Suite struct ChatPeerScenarioTests {
    static let phones = ["guide": "+905551110000", "ayse": "+905552220000", "mehmet": "+905553330000"]

    @Test func messagesTravelPeerToPeerWithoutTheServerThroughARelayAndEndUpIdenticalEverywhere() throws {
        let fixture = try ChatCLIFixture()
        try fixture.startServer()
        let promoted = try CommandRunner.run(
            fixture.serverBinary, ["admin", "--db", fixture.database, "role", Self.phones["guide"]!, "guide"])
        #expect(promoted.status == 0, "\(promoted.stderr)")
        for name in ["guide", "ayse", "mehmet"] { try fixture.signIn(name, phone: Self.phones[name]!) }
        try fixture.ok("guide", ["group", "create", "Kapadokya"])
        for name in ["ayse", "mehmet"] {
            try fixture.ok(
                name, ["group", "join", try fixture.ok("guide", ["group", "invite", "Kapadokya", "--phone", Self.phones[name]!])])
        }
        // The guide's sync adds both devices to the group's log and seals an epoch to them; each traveller's sync fetches it.
        for name in ["guide", "ayse", "mehmet"] { try fixture.ok(name, ["sync"]) }
        fixture.stopServer()

        // Offline: a text each from the guide and Mehmet, Ayşe's location; beacons find everyone.
        try fixture.ok("guide", ["send", "Kapadokya", "Otobüs 8'de kalkıyor."])
        let queued = try fixture.ok("ayse", ["send", "Kapadokya", "--location", "40.9903", "29.0295", "--boundaries", Bundled.path()])
        #expect(queued.hasSuffix("(Kadıköy, İstanbul, Türkiye)"), "\(queued)")
        try fixture.ok("mehmet", ["send", "Kapadokya", "Tamam, lobideyim."])
        let beaconPort = String(Int.random(in: 40_000..<60_000))
        let first = try ["guide", "ayse", "mehmet"].map { name in
            try CommandRunner.start(
                fixture.binary, ["--home", fixture.home(name), "peer", "--for", "6", "--beacon-port", beaconPort, "--json"])
        }
        for (name, run) in zip(["guide", "ayse", "mehmet"], first) {
            let result = run.wait()
            #expect(result.status == 0, "\(name): \(result.stderr)")
            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Int], "\(result.stdout)")
            #expect(
                report["peers"] == 2 && report["received"] == 2 && report["rejected"] == 0 && report["refused"] == 0, "\(name): \(report)")
        }
        for name in ["guide", "ayse", "mehmet"] { #expect(try Self.held(fixture, name).count == 3, "\(name)") }

        // Mehmet is partitioned from the guide: the guide dials only Ayşe, Ayşe dials Mehmet.
        try fixture.ok("guide", ["send", "Kapadokya", "Yarın 7'de balon turu."])
        try fixture.ok("mehmet", ["send", "Kapadokya", "Ben de geliyorum."])
        for name in ["guide", "ayse", "mehmet"] { try Data().write(to: URL(fileURLWithPath: fixture.home("\(name).peers"))) }
        let second = try ["guide", "ayse", "mehmet"].map { name in
            try CommandRunner.start(
                fixture.binary, ["--home", fixture.home(name), "peer", "--for", "8", "--peers", fixture.home("\(name).peers"), "--json"])
        }
        let ports = try second.map { try Self.port(of: $0) }
        try "127.0.0.1:\(ports[1])\n".write(toFile: fixture.home("guide.peers"), atomically: true, encoding: .utf8)
        try "# Mehmet only\n127.0.0.1:\(ports[2])\n".write(toFile: fixture.home("ayse.peers"), atomically: true, encoding: .utf8)
        var reports: [String: [String: Int]] = [:]
        for (name, run) in zip(["guide", "ayse", "mehmet"], second) {
            let result = run.wait()
            #expect(result.status == 0, "\(name): \(result.stderr)")
            reports[name] = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Int]
        }
        #expect(reports["guide"]?["peers"] == 1 && reports["mehmet"]?["peers"] == 1 && reports["ayse"]?["peers"] == 2, "\(reports)")
        let relayed = try Self.held(fixture, "mehmet")
        #expect(relayed.count == 5 && relayed.contains { $0["text"] as? String == "Yarın 7'de balon turu." }, "\(relayed)")
        #expect(try Self.held(fixture, "guide").contains { $0["text"] as? String == "Ben de geliyorum." })

        // The server is back: everyone pushes what it holds (its own and relayed) and pulls.
        try fixture.startServer()
        for _ in 0..<2 { for name in ["guide", "ayse", "mehmet"] { try fixture.ok(name, ["sync"]) } }
        let serverSet = try DatabaseQueue(path: fixture.database).read { db in
            try Row.fetchAll(db, sql: "SELECT sender_id, local_id FROM messages WHERE type != 'control'").map {
                "\($0["sender_id"] as String)/\($0["local_id"] as String)"
            }
        }
        #expect(serverSet.count == 5 && Set(serverSet).count == 5, "\(serverSet)")
        for name in ["guide", "ayse", "mehmet"] {
            let messages = try Self.held(fixture, name)
            #expect(
                Set(messages.map { "\($0["sender_id"] as? String ?? "")/\($0["local_id"] as? String ?? "")" }) == Set(serverSet), "\(name)")
            #expect(messages.count == 5, "\(name) holds a duplicate")
            #expect(messages.allSatisfy { ["sent", "delivered", "read"].contains($0["status"] as? String) }, "\(name): \(messages)")
            let location = messages.compactMap { $0["location"] as? [String: Any] }
            #expect(location.count == 1 && location.first?["address"] as? String == "Kadıköy, İstanbul, Türkiye", "\(name)")
        }
    }

    private static func held(_ fixture: ChatCLIFixture, _ name: String) throws -> [[String: Any]] {
        try fixture.messages(name, group: "Kapadokya")
    }

    /// The port a `peer` run says it listens on.
    private static func port(of run: RunningCommand) throws -> Int {
        for _ in 0..<300 {
            let log = run.stderrSoFar
            if let range = log.range(of: "listening on 127.0.0.1:"), let port = Int(log[range.upperBound...].prefix { $0.isNumber }) {
                return port
            }
            usleep(20_000)
        }
        run.kill()
        throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "peer did not start: \(run.stderrSoFar)"])
    }
}
