import Foundation
import RoquaChatCore
import Testing

@testable import RoquaChatClient
@testable import RoquaChatServer

@Suite("Sync engine against the real server on 127.0.0.1")
struct SyncEngineTests {
    @Test("messages of every member reach every member, decrypted, in clock order, statuses sent or better")
    func converge() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await LiveServer(directory: scratch)
        defer { Task { await server.stop() } }
        let party = try await TourParty.make(server, in: scratch)
        try await party.guide.send(groupID: party.group.id, text: "Sabah 8'de otelin önünde")
        try await party.travellers[0].send(groupID: party.group.id, text: "Tamam")
        try await party.travellers[1].send(
            groupID: party.group.id,
            location: LocationBody(latitude: 40.99, longitude: 29.03, address: "Kadıköy, İstanbul, Türkiye"))
        for client in party.everyone { _ = try await client.engine.sync() }
        for client in party.everyone { _ = try await client.engine.sync() }
        let views = try party.everyone.map { try $0.messages(groupID: party.group.id) }
        for view in views {
            #expect(view.map(\.localID) == views[0].map(\.localID))
            #expect(view.count == 3 && view.allSatisfy { $0.status.rank >= MessageStatus.sent.rank && $0.seq != nil })
            #expect(view.map(\.body).prefix(2) == ["Sabah 8'de otelin önünde", "Tamam"])
            #expect(view[2].location?.address == "Kadıköy, İstanbul, Türkiye")
        }
        // The server holds ciphertext only: neither the words nor the coordinates.
        // (Besides them it holds the group's signed log entries and join requests, which are not messages.)
        let stored = try await server.store.messages(groupID: party.group.id, after: 0, upTo: nil, limit: 100).filter {
            $0.type != .control
        }
        let epoch = try party.guide.log(groupID: party.group.id).epoch
        #expect(stored.count == 3)
        #expect(stored.allSatisfy { !$0.content.contains("Sabah") && !$0.content.contains("40.99") && $0.keyEpoch == epoch })
    }

    @Test("server down: sends stay pending and sync says noInternet; server up: everything converges")
    func serverDown() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await LiveServer(directory: scratch)
        let sleeps = RecordedSleeps()
        let party = try await TourParty.make(server, in: scratch, sleeps: sleeps)
        await server.stop()
        try await party.guide.send(groupID: party.group.id, text: "Otobüs 10 dakika gecikecek")
        try await party.travellers[0].send(groupID: party.group.id, text: "Biz kafedeyiz")
        let sleptBefore = sleeps.all.count
        await #expect {
            try await party.guide.engine.sync()
        } throws: { error in
            guard case ChatClientError.noInternet(let url, _) = error else { return false }
            return url == server.url
        }
        #expect(sleeps.all.count - sleptBefore == 2)
        #expect(try party.guide.pendingCount() == 1)
        #expect(try party.guide.messages(groupID: party.group.id).map(\.status) == [.pending])
        try await server.restart()
        for client in party.everyone + [party.guide] { _ = try await client.engine.sync() }
        let views = try party.everyone.map { try $0.messages(groupID: party.group.id) }
        #expect(views.allSatisfy { $0.count == 2 && $0.map(\.localID) == views[0].map(\.localID) })
        #expect(views.joined().allSatisfy { $0.status != .pending && $0.body != nil })
        #expect(try party.everyone.allSatisfy { try $0.pendingCount() == 0 })
        await server.stop()
    }

    @Test("a send survives reopening the home (and a crash before any sync)")
    func durable() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await LiveServer(directory: scratch)
        let party = try await TourParty.make(server, in: scratch)
        let sent = try await party.travellers[0].send(groupID: party.group.id, text: "Pasaportumu unuttum")
        let reopened = try ChatClient(home: party.travellers[0].home)
        #expect(try reopened.messages(groupID: party.group.id).map(\.localID) == [sent.localID])
        #expect(try reopened.pendingCount() == 1)
        let report = try await reopened.engine.sync()
        #expect(report.pushed == 1)
        await server.stop()
    }

    @Test("an expired access token is refreshed once for all requests that were refused together")
    func refreshOnce() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await LiveServer(directory: scratch)
        let party = try await TourParty.make(server, in: scratch)
        let guide = party.guide
        server.clock.advance(by: 16 * 60)
        async let first = guide.group(party.group.id)
        async let second = guide.group(party.group.id)
        async let third = guide.group(party.group.id)
        let groups = try await [first, second, third]
        #expect(groups.allSatisfy { $0.id == party.group.id })
        #expect(await guide.refreshCount == 1)
        // A revoked sign-in is an authentication error, not a retry loop.
        server.clock.advance(by: 120 * 24 * 3600)
        await #expect {
            try await guide.engine.sync()
        } throws: { error in
            guard case ChatClientError.authenticationError = error else { return false }
            return true
        }
        await server.stop()
    }

    @Test("a message the server refuses becomes failed, and retry queues it again")
    func refusedThenRetried() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await LiveServer(directory: scratch)
        let party = try await TourParty.make(server, in: scratch)
        let traveller = party.travellers[0]
        let message = try await traveller.send(groupID: party.group.id, text: "son mesaj")
        // The guide removes the traveller before the push: the server refuses it as not_a_member.
        let member = try await traveller.user()
        _ = try await server.store.removeMember(groupID: party.group.id, userID: member.id, now: server.clock.now())
        let report = try await traveller.engine.sync()
        #expect(report.rejected == 1 && report.pushed == 0)
        let failed = try #require(try traveller.messages(groupID: party.group.id).first)
        #expect(failed.status == .failed && failed.failure == "not_a_member")
        #expect(try await traveller.retry(localID: message.localID))
        #expect(try traveller.messages(groupID: party.group.id).first?.status == .pending)
        #expect(try await traveller.retry(localID: message.localID) == false)
        await server.stop()
    }

    @Test("the background engine pushes after a send without being asked")
    func background() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await LiveServer(directory: scratch)
        let party = try await TourParty.make(server, in: scratch)
        let guide = party.guide
        await guide.engine.start(interval: 3600)
        try await guide.send(groupID: party.group.id, text: "Herkes otobüste mi?")
        var waited = 0
        while try guide.pendingCount() > 0, waited < 200 {
            try await Task.sleep(for: .milliseconds(50))
            waited += 1
        }
        await guide.engine.stop()
        #expect(try guide.pendingCount() == 0)
        #expect(
            try await server.store.messages(groupID: party.group.id, after: 0, upTo: nil, limit: 100).filter { $0.type != .control }.count
                == 1)
        await server.stop()
    }
}
