import Foundation
import RoquaTestKit
import Testing

/// What a new user meets: the commands the client suggests run as pasted, and senders show by
/// the names they gave themselves.
@Suite struct ChatHintAndNameTests {
    static let guidePhone = "+905551110000"
    static let travellerPhone = "+905552220000"

    /// Runs a suggested command as a shell would, pasted, with the built programs on the PATH.
    private func paste(_ command: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = ProductsDirectory.path + ":/usr/bin:/bin"
        environment["ROQUA_CHAT_HOME"] = nil
        let result = try CommandRunner.run("/bin/sh", ["-c", command], environment: environment)
        #expect(result.status == 0, "\(command): \(result.stderr)", sourceLocation: sourceLocation)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The command after `run: ` (or inside backticks) in `line`.
    private func suggestion(in line: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        if let range = line.range(of: "run: ") { return String(line[range.upperBound...]) }
        let parts = line.split(separator: "`")
        return try #require(parts.count >= 3 ? String(parts[1]) : nil, "no suggestion in \(line)", sourceLocation: sourceLocation)
    }

    @Test func everySuggestedCommandCarriesTheHomeAndWorksWhenPasted() throws {
        let fixture = try ChatCLIFixture()
        try fixture.startServer()
        #expect(
            try CommandRunner.run(fixture.serverBinary, ["admin", "--db", fixture.database, "role", Self.guidePhone, "guide"]).status == 0)
        // A home whose path needs quoting, given before the verb; the guide's given after it.
        let trip = fixture.home("trip home, it's mine")
        let requested = try fixture.ok("guide", ["auth", "request", "--server", fixture.url, "--phone", Self.guidePhone])
        let verified = try paste(
            try suggestion(in: requested).replacingOccurrences(of: "CODE", with: try fixture.lastCode(for: Self.guidePhone)))
        #expect(verified.hasPrefix("signed in as \(Self.guidePhone)"), "\(verified)")
        let named = try paste(
            try suggestion(in: verified.components(separatedBy: "\n").last ?? "").replacingOccurrences(of: "NAME", with: "Ahmet"))
        #expect(named.hasPrefix("your groups see you as Ahmet"), "\(named)")
        let created = try fixture.ok("guide", ["group", "create", "Kapadokya Turu"])
        let invite = try suggestion(in: created)
        #expect(invite.contains("--home \(fixture.home("guide")) group invite 'Kapadokya Turu' --phone PHONE"), "\(invite)")
        let code = try paste(invite.replacingOccurrences(of: "PHONE", with: Self.travellerPhone))

        let request = try CommandRunner.run(
            fixture.binary, ["--home", trip, "auth", "request", "--server", fixture.url, "--phone", Self.travellerPhone])
        let hint = try suggestion(in: request.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(hint == "roqua-chat --home '\(fixture.home("trip home, it"))'\\''s mine' auth verify --code CODE", "\(hint)")
        #expect(
            try paste(hint.replacingOccurrences(of: "CODE", with: try fixture.lastCode(for: Self.travellerPhone))).hasPrefix("signed in as")
        )
        let joined = try CommandRunner.run(fixture.binary, ["--home", trip, "group", "join", code]).stdout
        let sync = try suggestion(in: joined.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(sync.hasSuffix("' sync"), "\(sync)")
        // The guide's device adds the traveller; the pasted sync then brings the group's key.
        try fixture.ok("guide", ["sync"])
        #expect(try paste(sync).hasPrefix("pushed 0, pulled 0"))
        #expect(try CommandRunner.run(fixture.binary, ["--home", trip, "send", "Kapadokya Turu", "Merhaba"]).status == 0)

        // Suggestions inside errors carry it too: sync with the server down, a home not signed in.
        fixture.stopServer()
        let offline = try CommandRunner.run(fixture.binary, ["--home", trip, "sync", "--retry-for", "0"])
        #expect(offline.status == 3 && offline.stderr.hasPrefix("error: "), "\(offline.stderr)")
        #expect(try suggestion(in: offline.stderr) == sync, "\(offline.stderr)")
        let stranger = try CommandRunner.run(fixture.binary, ["group", "create", "X", "--home", fixture.home("new one")])
        #expect(
            stranger.status == 1 && stranger.stderr.hasPrefix("error: ")
                && stranger.stderr.contains("`roqua-chat --home '\(fixture.home("new one"))' auth request --server URL --phone PHONE`"),
            "\(stranger.stderr)")
    }

    @Test func sendersShowByTheirNamesWithTheIdWhereNamesCouldBeConfused() throws {
        let fixture = try ChatCLIFixture()
        try fixture.startServer()
        #expect(
            try CommandRunner.run(fixture.serverBinary, ["admin", "--db", fixture.database, "role", Self.guidePhone, "guide"]).status == 0)
        try fixture.ok("guide", ["auth", "request", "--server", fixture.url, "--phone", Self.guidePhone])
        let guide = try fixture.ok(
            "guide", ["auth", "verify", "--code", try fixture.lastCode(for: Self.guidePhone), "--name", "  Ahmet   Bey "])
        #expect(guide.hasSuffix("your groups see you as Ahmet Bey"), "\(guide)")
        // A refused name spends no code: the same code then signs in.
        try fixture.ok("traveller", ["auth", "request", "--server", fixture.url, "--phone", Self.travellerPhone])
        let code = try fixture.lastCode(for: Self.travellerPhone)
        let forged = try fixture.run("traveller", ["auth", "verify", "--code", code, "--name", "Ahmet Bey (guide)"])
        #expect(
            forged.status == 1 && forged.stderr.hasPrefix("error: name \"Ahmet Bey (guide)\": a display name may not hold ("),
            "\(forged.stderr)")
        let escape = try fixture.run("traveller", ["auth", "verify", "--code", code, "--name", "A\u{1B}[2Jb"])
        #expect(
            escape.status == 1 && escape.stderr.contains(#"A\u{1B}[2Jb"#) && !escape.stderr.contains("\u{1B}")
                && escape.stderr.contains("control, format or invisible characters"), "\(escape.stderr)")
        let long = try fixture.run("traveller", ["auth", "verify", "--code", code, "--name", String(repeating: "x", count: 41)])
        #expect(long.status == 1 && long.stderr.contains("at most 40 characters"), "\(long.stderr)")
        #expect(try fixture.ok("traveller", ["auth", "verify", "--code", code]).contains("profile set-name NAME"))

        #expect(try fixture.ok("guide", ["group", "create", "Kapadokya"]).hasPrefix("created group Kapadokya"))
        let invite = try fixture.ok("guide", ["group", "invite", "Kapadokya", "--phone", Self.travellerPhone])
        try fixture.ok("traveller", ["group", "join", invite])
        try fixture.ok("guide", ["sync"])
        try fixture.ok("traveller", ["sync"])
        try fixture.ok("traveller", ["send", "Kapadokya", "Otobüs kaçta?"])
        try fixture.ok("traveller", ["sync"])
        try fixture.ok("guide", ["send", "Kapadokya", "Sekizde."])
        try fixture.ok("guide", ["sync"])
        try fixture.ok("traveller", ["sync"])
        // No name yet: the end of the user id.
        let before = try fixture.ok("guide", ["messages", "Kapadokya"]).components(separatedBy: "\n")
        #expect(before.first?.range(of: #"  …[0-9a-f]{6}: Otobüs kaçta\?$"#, options: .regularExpression) != nil, "\(before)")
        #expect(before.last?.hasSuffix("  me: Sekizde.") == true, "\(before)")
        #expect(try fixture.ok("traveller", ["messages", "Kapadokya"]).hasSuffix("  Ahmet Bey (guide): Sekizde."))

        #expect(try fixture.ok("traveller", ["profile", "set-name", "Ayşe"]).hasPrefix("your groups see you as Ayşe"))
        try fixture.ok("guide", ["sync"])
        let named = try fixture.ok("guide", ["messages", "Kapadokya"])
        #expect(named.components(separatedBy: "\n").first?.hasSuffix("  Ayşe: Otobüs kaçta?") == true, "\(named)")
        let rows = try fixture.messages("guide", group: "Kapadokya")
        #expect(rows.map { $0["sender_name"] as? String } == ["Ayşe", "Ahmet Bey"], "\(rows)")
        #expect(try fixture.ok("guide", ["group", "show", "Kapadokya"]).contains("  member  Ayşe  user "))

        // Taking the guide's name (in other letters and case): both are shown with their ids.
        #expect(try fixture.ok("traveller", ["profile", "set-name", "АHMЕТ bey"]).hasPrefix("your groups see you as"))
        try fixture.ok("traveller", ["sync"])
        let confused = try fixture.ok("traveller", ["messages", "Kapadokya"]).components(separatedBy: "\n")
        #expect(
            confused.last?.range(of: #"  Ahmet Bey \(guide, …[0-9a-f]{6}\): Sekizde\.$"#, options: .regularExpression) != nil, "\(confused)"
        )
        try fixture.ok("guide", ["sync"])
        let seen = try fixture.ok("guide", ["messages", "Kapadokya"]).components(separatedBy: "\n")
        #expect(seen.first?.range(of: #"  АHMЕТ bey \(…[0-9a-f]{6}\): Otobüs kaçta\?$"#, options: .regularExpression) != nil, "\(seen)")
        #expect(try fixture.ok("traveller", ["profile", "clear-name"]).hasPrefix("your groups see you as …"))
    }
}
