import Foundation
import RoquaQR
import RoquaTestKit
import Testing

/// The built `roqua-chat` client verbs against a `roqua-chat-server` child on 127.0.0.1.
@Suite struct ChatCLITests {
    static let guidePhone = "+905551110000"
    static let travellerPhone = "+905552220000"

    /// A guide's and a traveller's home, signed in, in one group whose key both hold.
    private func tourGroup(_ fixture: ChatCLIFixture) throws {
        try fixture.startServer()
        let promoted = try CommandRunner.run(fixture.serverBinary, ["admin", "--db", fixture.database, "role", Self.guidePhone, "guide"])
        #expect(promoted.status == 0, "\(promoted.stderr)")
        try fixture.signIn("guide", phone: Self.guidePhone)
        try fixture.signIn("traveller", phone: Self.travellerPhone)
        #expect(try fixture.ok("guide", ["group", "create", "Kapadokya"]).hasPrefix("created group Kapadokya"))
        let code = try fixture.ok("guide", ["group", "invite", "Kapadokya", "--phone", Self.travellerPhone])
        // The server's part (3 groups) and the secret only the guide's device keeps (4 groups).
        #expect(code.range(of: #"^([A-Z0-9]{4}-){6}[A-Z0-9]{4}$"#, options: .regularExpression) != nil, "\(code)")
        #expect(try fixture.ok("traveller", ["group", "join", code]).hasPrefix("joined group Kapadokya"))
        // The guide's sync adds the traveller's device to the group's log and seals a new epoch to it; the traveller's fetches it.
        try fixture.ok("guide", ["sync"])
        try fixture.ok("traveller", ["sync"])
    }

    @Test func textAndLocationReachTheOtherDeviceWithTheOfflineAddress() throws {
        let fixture = try ChatCLIFixture()
        try tourGroup(fixture)
        let members = try fixture.ok("guide", ["group", "show", "Kapadokya", "--json"])
        let group = try #require(try JSONSerialization.jsonObject(with: Data(members.utf8)) as? [String: Any])
        let phones = (group["members"] as? [[String: Any]])?.compactMap { $0["phone"] as? String }
        #expect(Set(phones ?? []) == [Self.guidePhone, Self.travellerPhone])

        #expect(try fixture.ok("traveller", ["send", "Kapadokya", "Otobüs kaçta kalkıyor?"]).hasPrefix("queued text"))
        let queued = try fixture.ok("traveller", ["send", "Kapadokya", "--location", "40.9903", "29.0295", "--boundaries", Bundled.path()])
        #expect(queued.hasSuffix("(Kadıköy, İstanbul, Türkiye)"), "\(queued)")
        // Before the push both are pending on the sender.
        #expect(try fixture.messages("traveller", group: "Kapadokya").map { $0["status"] as? String } == ["pending", "pending"])
        #expect(try fixture.ok("traveller", ["sync"]) == "pushed 2, pulled 0, rejected 0, pending 0")
        try fixture.ok("guide", ["sync"])

        let received = try fixture.messages("guide", group: "Kapadokya")
        #expect(received.count == 2)
        #expect(received.first?["text"] as? String == "Otobüs kaçta kalkıyor?")
        let location = try #require(received.last?["location"] as? [String: Any])
        #expect(location["address"] as? String == "Kadıköy, İstanbul, Türkiye")
        #expect(location["latitude"] as? Double == 40.9903 && location["longitude"] as? Double == 29.0295)
        for message in received {
            #expect(message["status"] as? String == "sent")
            #expect(message["synced_at"] is String && message["seq"] is Int)
        }
        let text = try fixture.ok("guide", ["messages", "Kapadokya"])
        #expect(text.contains("location 40.99030 29.02950 — Kadıköy, İstanbul, Türkiye"), "\(text)")
        // The sender sees its own as sent, with the server's sequence numbers.
        #expect(try fixture.messages("traveller", group: "Kapadokya").map { $0["status"] as? String } == ["sent", "sent"])
    }

    @Test func syncWithTheServerDownSaysSoAtOnceRetriesForAWhileThenExitsThree() throws {
        let fixture = try ChatCLIFixture()
        try tourGroup(fixture)
        // Nothing listens on the server's port (127.0.0.1) any more.
        fixture.stopServer()
        #expect(try fixture.ok("guide", ["send", "Kapadokya", "Yarın 8'de lobide."]).hasPrefix("queued text"))
        let started = ContinuousClock.now
        let running = try CommandRunner.start(fixture.binary, ["--home", fixture.home("guide"), "sync", "--retry-for", "4"])
        var firstLine: Duration?
        while firstLine == nil, ContinuousClock.now - started < .seconds(20) {
            if running.stderrSoFar.contains("\n") { firstLine = ContinuousClock.now - started } else { usleep(10_000) }
        }
        let offline = running.wait()
        let total = ContinuousClock.now - started
        let lines = offline.stderr.split(separator: "\n")
        // The first line comes at once (the connection is refused), long before the end of the retries.
        let first = try #require(firstLine)
        #expect(first < .seconds(1), "first line after \(first)")
        #expect(total > .seconds(3.5) && total < .seconds(12), "first line after \(first), exit after \(total)")
        #expect(lines.count == 2, "\(offline.stderr)")
        #expect(
            lines.first?.hasPrefix("warning: cannot reach the server \"\(fixture.url)\"") == true
                && lines.first?.hasSuffix("retrying for up to 4 s (Ctrl-C stops)") == true, "\(offline.stderr)")
        #expect(offline.status == 3, "\(offline.stdout)\(offline.stderr)")
        #expect(
            lines.last?.hasPrefix("error: cannot reach the server") == true && offline.stderr.contains("1 message(s) stay pending")
                && offline.stderr.contains("run `roqua-chat --home \(fixture.home("guide")) sync` again later"), "\(offline.stderr)")
        #expect(try fixture.messages("guide", group: "Kapadokya").map { $0["status"] as? String } == ["pending"])
        // --retry-for 0: one attempt, the final line alone.
        let once = try fixture.run("guide", ["sync", "--retry-for", "0"])
        #expect(
            once.status == 3 && once.stderr.split(separator: "\n").count == 1 && once.stderr.hasPrefix("error: cannot reach"),
            "\(once.stderr)")

        try fixture.startServer()
        #expect(try fixture.ok("guide", ["sync"]) == "pushed 1, pulled 0, rejected 0, pending 0")
        try fixture.ok("traveller", ["sync"])
        #expect(try fixture.messages("traveller", group: "Kapadokya").map { $0["text"] as? String } == ["Yarın 8'de lobide."])
    }

    @Test func removedMemberIsGoneFromTheGroup() throws {
        let fixture = try ChatCLIFixture()
        try tourGroup(fixture)
        let removed = try fixture.ok("guide", ["group", "remove", "Kapadokya", Self.travellerPhone])
        #expect(removed.hasPrefix("removed user"), "\(removed)")
        let shown = try fixture.ok("guide", ["group", "show", "Kapadokya"])
        #expect(shown.contains(Self.guidePhone) && !shown.contains(Self.travellerPhone), "\(shown)")
        // The guide's log has the removal and a new epoch sealed to the guide's device only.
        #expect(shown.hasSuffix("log: 6 entries, epoch 3, 1 member device(s)"), "\(shown)")
        // The removed member's next sync: the server no longer shows it the group, and says so.
        let closed = try fixture.run("traveller", ["sync"])
        #expect(closed.status == 0 && closed.stderr.contains("no longer shows it to you (removed)"), "\(closed.stderr)")
        let notMember = try fixture.run("guide", ["group", "remove", "Kapadokya", Self.travellerPhone])
        #expect(notMember.status != 0 && notMember.stderr.contains("not a member"), "\(notMember.stderr)")
    }

    @Test func logoutEndsTheSignInOnTheServerAtOnce() throws {
        let fixture = try ChatCLIFixture()
        try tourGroup(fixture)
        let session = try String(contentsOfFile: fixture.home("traveller") + "/session.json", encoding: .utf8)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(session.utf8)) as? [String: Any])
        let access = try #require(object["access_token"] as? String)
        #expect(try fixture.ok("traveller", ["auth", "logout", "--all-devices"]) == "signed out on 1 device")
        // The home forgot its tokens, and the server refuses the old access token at once.
        let after = try fixture.run("traveller", ["sync"])
        #expect(after.status != 0 && after.stderr.contains("auth request"), "\(after.stderr)")
        #expect(try fixture.status(get: "/v1/me", bearer: access) == 401)
        let again = try fixture.run("traveller", ["auth", "logout"])
        #expect(again.status != 0 && again.stderr.contains("auth request"), "\(again.stderr)")
    }

    @Test func badInputGivesAClearErrorAndNothingIsQueued() throws {
        let fixture = try ChatCLIFixture()
        try tourGroup(fixture)
        let unknown = try fixture.run("guide", ["send", "Efes", "merhaba"])
        #expect(unknown.status != 0 && unknown.stderr.contains(#"group "Efes": no such group"#), "\(unknown.stderr)")
        let latitude = try fixture.run("guide", ["send", "Kapadokya", "--location", "95", "29", "--boundaries", Bundled.path()])
        #expect(latitude.status != 0 && latitude.stderr.contains("latitude outside -90…90"), "\(latitude.stderr)")
        let notNumbers = try fixture.run("guide", ["send", "Kapadokya", "--location", "north", "29"])
        #expect(notNumbers.status != 0 && notNumbers.stderr.contains("--location takes two numbers"), "\(notNumbers.stderr)")
        let noDatabase = try fixture.run(
            "guide", ["send", "Kapadokya", "--location", "-33.92", "18.42", "--boundaries", "/nonexistent/b.sqlite"])
        #expect(
            noDatabase.status != 0 && noDatabase.stderr.contains("/nonexistent/b.sqlite")
                && noDatabase.stderr.contains("roqua import"), "\(noDatabase.stderr)")
        let phone = try fixture.run("other", ["auth", "request", "--server", fixture.url, "--phone", "0555 12"])
        #expect(phone.status != 0 && phone.stderr.contains("phone \"0555 12\""), "\(phone.stderr)")
        let badListen = try fixture.run("guide", ["peer", "--listen", "nowhere", "--for", "1"])
        #expect(badListen.status != 0 && badListen.stderr.contains("--listen must be HOST:PORT"), "\(badListen.stderr)")
        let noPeersFile = try fixture.run("guide", ["peer", "--peers", "/nonexistent/peers.txt", "--for", "1"])
        #expect(noPeersFile.status != 0 && noPeersFile.stderr.contains("/nonexistent/peers.txt: cannot read it"), "\(noPeersFile.stderr)")
        try "127.0.0.1:9\nnot-an-address\n".write(toFile: fixture.directory.file("bad.peers"), atomically: true, encoding: .utf8)
        let badPeersFile = try fixture.run("guide", ["peer", "--peers", fixture.directory.file("bad.peers"), "--for", "1"])
        #expect(badPeersFile.status != 0 && badPeersFile.stderr.contains("bad.peers:2: expected host:port"), "\(badPeersFile.stderr)")
        let noTime = try fixture.run("guide", ["peer", "--for", "0"])
        #expect(noTime.status != 0 && noTime.stderr.contains("--for must lie in"), "\(noTime.stderr)")
        let notSignedIn = try fixture.run("nobody", ["group", "create", "X"])
        #expect(notSignedIn.status != 0 && notSignedIn.stderr.contains("auth request"), "\(notSignedIn.stderr)")
        #expect(try fixture.messages("guide", group: "Kapadokya").isEmpty)
    }

    @Test func anImageTravelsSealedAndSaveWritesItBack() throws {
        let fixture = try ChatCLIFixture()
        try tourGroup(fixture)
        let image = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7919) })
        try image.write(to: URL(fileURLWithPath: fixture.directory.file("göreme.png")))
        let queued = try fixture.ok("guide", ["send", "Kapadokya", "--file", fixture.directory.file("göreme.png")])
        #expect(queued.hasPrefix("queued image ") && queued.hasSuffix(" göreme.png (image/png, 5008 bytes)"), "\(queued)")
        try fixture.ok("guide", ["sync"])
        try fixture.ok("traveller", ["sync"])
        let row = try #require(try fixture.messages("traveller", group: "Kapadokya").first)
        let attachment = try #require(row["attachment"] as? [String: Any])
        #expect(row["type"] as? String == "image" && attachment["name"] as? String == "göreme.png" && attachment["here"] as? Bool == true)
        #expect(attachment["key"] == nil, "the file key stays in the store")
        let localID = try #require(row["local_id"] as? String)
        let listed = try fixture.ok("traveller", ["messages", "Kapadokya"])
        #expect(listed.contains("image göreme.png (image/png, 5008 bytes)"), "\(listed)")
        let saved = try fixture.ok("traveller", ["save", "Kapadokya", localID, "--output", fixture.directory.file("saved.png")])
        #expect(saved == "wrote göreme.png (image/png, 5008 bytes) to \(fixture.directory.file("saved.png"))")
        #expect(FileManager.default.contents(atPath: fixture.directory.file("saved.png")) == image)

        let missing = try fixture.run("guide", ["send", "Kapadokya", "--file", fixture.directory.file("nothing.png")])
        #expect(
            missing.status != 0 && missing.stderr.contains("nothing.png") && missing.stderr.contains("cannot be read"), "\(missing.stderr)")
        let unknown = try fixture.run("traveller", ["save", "Kapadokya", "01a2-no-such", "--output", fixture.directory.file("x")])
        #expect(unknown.status != 0 && unknown.stderr.contains("no readable image or file message"), "\(unknown.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.file("x")))
        let both = try fixture.run("guide", ["send", "Kapadokya", "hi", "--file", fixture.directory.file("göreme.png")])
        #expect(both.status != 0 && both.stderr.contains("--file takes no text"), "\(both.stderr)")
    }

    @Test func negativeCoordinatesParseAndAPointAtSeaHasNoAddress() throws {
        let fixture = try ChatCLIFixture()
        try tourGroup(fixture)
        let cape = try fixture.ok("guide", ["send", "Kapadokya", "--location", "-33.92", "18.42", "--boundaries", Bundled.path()])
        #expect(cape.contains("South Africa"), "\(cape)")
        let sea = try fixture.ok("guide", ["send", "Kapadokya", "--location", "35.0", "-40.0", "--boundaries", Bundled.path()])
        #expect(sea.hasSuffix("(no address: outside every boundary)"), "\(sea)")
        let sent = try fixture.messages("guide", group: "Kapadokya").compactMap { $0["location"] as? [String: Any] }
        #expect(sent.map { $0["latitude"] as? Double } == [-33.92, 35.0])
        #expect(sent.last?["address"] == nil)
    }

    /// Issue 52 (3a, 3b): the safety number as a QR code and scanned back; a guide made in the log.
    @Test func safetyNumberAsQRCodeScannedBackAndAGuideMadeInTheLog() throws {
        let fixture = try ChatCLIFixture()
        try tourGroup(fixture)
        func json(_ home: String, _ arguments: [String]) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(try fixture.ok(home, arguments).utf8)) as? [String: Any])
        }
        let guideID = try #require(try json("traveller", ["group", "show", "Kapadokya", "--json"])["guide_id"] as? String)
        let scanText = try #require(try json("traveller", ["verify", "Kapadokya", guideID, "--json"])["scan_text"] as? String)
        #expect(scanText.hasPrefix("ROQUA-SN1:") && scanText.count == 70, "\(scanText)")
        // The guide's phone shows the same number as a QR code holding exactly that text.
        let shown = try fixture.ok("guide", ["verify", "Kapadokya", Self.travellerPhone, "--qr"])
        #expect(shown.hasPrefix(try QRCode(scanText).terminalLines().joined(separator: "\n")), "\(shown)")
        let matched = try fixture.ok("guide", ["verify", "Kapadokya", Self.travellerPhone, "--scan", scanText, "--confirm"])
        #expect(matched.hasPrefix("the scanned code matches") && matched.hasSuffix("confirmed: you compared this number with them"))
        // One digit off: exit 1, nothing confirmed.
        let last = try #require(scanText.last?.wholeNumberValue)
        let wrong = try fixture.run(
            "traveller", ["verify", "Kapadokya", guideID, "--scan", String(scanText.dropLast()) + String((last + 1) % 10), "--confirm"])
        #expect(wrong.status == 1 && wrong.stderr.contains("is not your safety number"), "\(wrong.stderr)")
        #expect(try json("traveller", ["verify", "Kapadokya", guideID, "--json"])["confirmed"] as? Bool == false)
        // Roles live in the log: a member cannot change one; the guide makes the traveller a guide.
        let refused = try fixture.run("traveller", ["group", "role", "Kapadokya", "--phone", guideID, "member"])
        #expect(refused.status == 1 && refused.stderr.contains("only a guide"), "\(refused.stderr)")
        #expect(
            try fixture.ok("guide", ["group", "role", "Kapadokya", "--phone", Self.travellerPhone, "guide"]).contains("is now a guide"))
        try fixture.ok("traveller", ["sync"])
        let line = try fixture.ok("traveller", ["group", "show", "Kapadokya"]).split(separator: "\n").first {
            $0.contains(Self.travellerPhone)
        }
        #expect(line?.hasSuffix("in the log as guide") == true, "\(line ?? "")")
    }
}
