import Crypto
import Foundation
import RoquaChatCore
import RoquaHTTPGuard
import RoquaTestKit
import Testing

@testable import RoquaChatServer

/// Push and pull: idempotency, ordering, paging, clamping, per-message refusals, concurrency.
enum SyncScenarios {
    /// Bodies past 1 KiB spill to the spool; batches of about 2 KiB.
    static var streaming: ChatSettings {
        var settings = ChatSettings()
        settings.pushMemoryBytes = 1024
        settings.pushBatchBytes = 2048
        return settings
    }

    /// Connection limits short enough for a test: heads within 1 s, 200 bytes per 0.5 s.
    static var impatient: ChatSettings {
        var settings = ChatSettings()
        settings.connectionLimits = ConnectionLimits(tick: 0.1, headDeadline: 1, window: 0.5, minimumBytes: 200, requestDeadline: 4)
        return settings
    }

    static var all: [Scenario] {
        [
            Scenario(
                "slow clients: a push trickled a byte at a time is cut, and nothing of it is stored; a silent connection is closed",
                settings: impatient
            ) { h in
                let (_, group, members) = try await h.groupWithMembers(1)
                let body = Array(try ChatJSON.encoder().encode(PushBody(messages: [textMessage("trickled", group: group.id)])))
                let client = try LoopbackHTTP(port: h.server.port, timeout: 30)
                let head =
                    "POST /v1/sync/push HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(members[0].token)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
                try client.send(head)
                let started = ContinuousClock.now
                let cut = try await LoopbackHTTP.offPool { () -> Bool in
                    for byte in body.dropLast() {
                        // A send into a closed connection fails (EPIPE/ECONNRESET): the server cut it.
                        guard (try? client.send([byte])) != nil else { return true }
                        usleep(50_000)
                        if ContinuousClock.now - started > .seconds(12) { return false }
                    }
                    return false
                }
                let answer = String(decoding: try await client.readAll(), as: UTF8.self)
                #expect(cut && !answer.contains(" 200 "), "the trickle was not cut: \(answer)")
                // (The body would take 15 s to trickle; the loop gives up at 12 s, so `cut` says it was
                // cut. The cut can come seconds late while a busy test run holds the server's threads.)
                #expect(try await members[0].pullAll(group.id).allSatisfy { $0.content != "trickled" })
                // Connected, then silent: closed after the head deadline.
                let silent = try LoopbackHTTP(port: h.server.port, timeout: 30)
                let opened = ContinuousClock.now
                #expect(try await silent.readAll().isEmpty)
                #expect(ContinuousClock.now - opened < .seconds(25), "closed by the head deadline, not the client's timeout")
            },
            Scenario("sync: pushed messages come back in order with their sequence numbers") { h in
                let (guide, group, members) = try await h.groupWithMembers(1)
                let location = PushMessage(
                    localID: UUIDv7.make(), groupID: group.id, type: .location, content: "",
                    sentAt: h.clock.now(),
                    metadata: .object([
                        "latitude": .number(40.99), "longitude": .number(29.03),
                        "address": .string("Kadıköy, İstanbul, Türkiye"),
                    ]))
                let result = try await members[0].push([
                    textMessage("merhaba", group: group.id), location,
                    textMessage("nasılsınız", group: group.id),
                ])
                #expect(result.synced.map(\.seq) == [1, 2, 3] && result.rejected.isEmpty)
                #expect(result.syncTime == h.clock.now())
                let page: PullResult = try await guide.pull(group.id).decode()
                #expect(page.messages.map(\.content) == ["merhaba", "", "nasılsınız"])
                #expect(page.messages.map(\.seq) == [1, 2, 3] && page.nextSince == 3 && !page.hasMore)
                #expect(page.messages[1].metadata?["address"]?.stringValue == "Kadıköy, İstanbul, Türkiye")
                #expect(page.messages.allSatisfy { $0.senderID == members[0].userID })
                #expect(Set(page.messages.map(\.serverID)) == Set(result.synced.map(\.serverID)))
                let empty: PullResult = try await guide.pull(group.id, since: 3).decode()
                #expect(empty.messages.isEmpty && empty.nextSince == 3 && !empty.hasMore)
            },
            Scenario("sync: a replay returns the original result; the same id with other content is a conflict") { h in
                let (_, group, members) = try await h.groupWithMembers(1)
                let message = textMessage("bir", group: group.id)
                let first = try await members[0].push([message])
                h.clock.advance(by: 600)
                let replay = try await members[0].push([message])
                #expect(replay.synced == first.synced && replay.rejected.isEmpty)
                var altered = message
                altered.content = "iki"
                let conflict = try await members[0].push([altered])
                #expect(conflict.synced.isEmpty && conflict.rejected == [RejectedMessage(localID: message.localID, reason: .conflict)])
                // Twice in one batch: one row; with other content: a conflict.
                let twin = textMessage("üç", group: group.id)
                var twinAltered = twin
                twinAltered.sentAt = twin.sentAt.addingTimeInterval(1)
                let batch = try await members[0].push([twin, twin, twinAltered])
                #expect(batch.synced.count == 2 && batch.synced[0] == batch.synced[1])
                #expect(batch.rejected.map(\.reason) == [.conflict])
                #expect(try await members[0].pullAll(group.id).map(\.content) == ["bir", "üç"])
            },
            Scenario("sync: at most 100 messages per push") { h in
                let (_, group, members) = try await h.groupWithMembers(1)
                let tooMany = try await members[0].post(
                    "/v1/sync/push", PushBody(messages: (0..<101).map { textMessage("\($0)", group: group.id) }))
                #expect(
                    tooMany.status == 400 && tooMany.errorCode == .invalidRequest && tooMany.text.contains("more than 100 messages"),
                    "\(tooMany.text)")
                #expect(try await members[0].pullAll(group.id).isEmpty, "nothing of a refused push is stored")
                let hundred = try await members[0].push((0..<100).map { textMessage("\($0)", group: group.id) })
                #expect(hundred.synced.count == 100)
            },
            Scenario(
                "sync: a push larger than memory streams through a spool and is stored in batches, in order, idempotently",
                settings: streaming
            ) { h in
                let (_, group, members) = try await h.groupWithMembers(1)
                let messages = (0..<40).map { textMessage(String(repeating: "\($0 % 10)", count: 300) + " \($0)", group: group.id) }
                let first = try await members[0].push(messages)
                #expect(first.synced.map(\.localID) == messages.map(\.localID) && first.rejected.isEmpty)
                #expect(first.synced.map(\.seq) == Array(1...40), "one sequence across batches")
                #expect(try await members[0].push(messages) == first, "a replay answers the same")
                let stored = try await members[0].pullAll(group.id)
                #expect(stored.map(\.content) == messages.map(\.content))
                // Whitespace, other members and escapes in the body are the decoder's business, as before.
                let text = String(
                    decoding: try ChatJSON.encoder().encode(PushBody(messages: [textMessage("ok", group: group.id)])), as: UTF8.self)
                let padded =
                    "  {\"note\": {\"a\": [1, \"]}\"]}, \"messages\" :\n " + text.dropFirst(#"{"messages":"#.count).dropLast()
                    + " , \"x\": null }  "
                let result = try await members[0].post("/v1/sync/push", data: Data(padded.utf8))
                #expect(result.status == 200 && (try? result.decode(PushResult.self).synced.count) == 1, "\(result.text)")
            },
            Scenario("sync: one malformed message in a spooled push is named, and nothing of the push is stored", settings: streaming) {
                h in
                let (_, group, members) = try await h.groupWithMembers(1)
                let good = try ChatJSON.encoder().encode(
                    PushBody(messages: (0..<30).map { _ in textMessage(String(repeating: "x", count: 300), group: group.id) }))
                var text = String(decoding: good, as: UTF8.self)
                text =
                    String(text.dropLast(2))
                    + #", {"local_id": "a", "group_id": "g", "type": "text", "content": 7, "sent_at": "2025-05-01T10:00:00Z"}]}"#
                let result = try await members[0].post("/v1/sync/push", data: Data(text.utf8))
                #expect(result.status == 400 && result.text.contains("messages[30].content"), "\(result.text)")
                for cut in [text.count / 2, text.count - 3] {
                    let truncated = try await members[0].post("/v1/sync/push", data: Data(text.prefix(cut).utf8))
                    #expect(truncated.status == 400 && truncated.text.contains("ends early"), "\(truncated.text)")
                }
                #expect(try await members[0].pullAll(group.id).isEmpty)
            },
            Scenario("sync: pull pages follow next_since until has_more is false") { h in
                let (guide, group, members) = try await h.groupWithMembers(1)
                for batch in 0..<3 {
                    _ = try await members[0].push((0..<(batch == 2 ? 50 : 100)).map { textMessage("\(batch)-\($0)", group: group.id) })
                }
                var since: Int64 = 0
                var pages: [(Int, Bool, Int64)] = []
                var seqs: [Int64] = []
                while true {
                    let page: PullResult = try await guide.pull(group.id, since: since, limit: 100).decode()
                    pages.append((page.messages.count, page.hasMore, page.nextSince))
                    seqs += page.messages.map(\.seq)
                    since = page.nextSince
                    if !page.hasMore { break }
                }
                #expect(pages.map(\.0) == [100, 100, 50] && pages.map(\.1) == [true, true, false] && pages.map(\.2) == [100, 200, 250])
                #expect(seqs == Array(1...250))
                #expect(try await guide.pull(group.id, limit: 0).status == 400)
                #expect(try await guide.pull(group.id, limit: 501).status == 400)
                #expect(try await guide.get("/v1/sync/pull?group=\(group.id)&since=abc").status == 400)
                #expect(try await guide.get("/v1/sync/pull?since=0").status == 400)
            },
            Scenario("sync: sent_at more than 2 minutes ahead is clamped for ordering, and kept as sent; an hour ahead is refused") { h in
                let (_, group, members) = try await h.groupWithMembers(1)
                let now = h.clock.now()
                let ahead = textMessage("a fast clock", group: group.id, sentAt: now.addingTimeInterval(240))
                let slightlyAhead = textMessage("a bit ahead", group: group.id, sentAt: now.addingTimeInterval(60))
                let past = textMessage("from the past", group: group.id, sentAt: now.addingTimeInterval(-86_400))
                let future = textMessage("from the future", group: group.id, sentAt: now.addingTimeInterval(3600))
                let result = try await members[0].push([ahead, slightlyAhead, past, future])
                #expect(result.rejected == [RejectedMessage(localID: future.localID, reason: .sentAtOutOfRange)])
                let messages = try await members[0].pullAll(group.id).filter { $0.type == .text }
                try #require(messages.count == 3)
                #expect(messages[0].sentAt == now.addingTimeInterval(240))
                #expect(messages[0].orderAt == now.addingTimeInterval(120))
                #expect(messages[1].orderAt == now.addingTimeInterval(60))
                #expect(messages[2].orderAt == now.addingTimeInterval(-86_400))
                #expect(messages.allSatisfy { $0.receivedAt == now })
            },
            Scenario("sync: refusals are per message: unknown group, not a member, bad ids, oversize content") { h in
                let (_, group, members) = try await h.groupWithMembers(1)
                let other = try await h.signIn("+905559990000", role: .guide)
                let otherGroup = try await other.createGroup("Other")
                let huge = String(repeating: "x", count: ChatLimits.maxContentBytes + 1)
                let bigMetadata = JSONValue.object(["blob": .string(String(repeating: "y", count: ChatLimits.maxMetadataBytes))])
                let messages = [
                    textMessage("ok", group: group.id),
                    textMessage("where", group: "no-such-group"),
                    textMessage("intruder", group: otherGroup.id),
                    textMessage("bad id", group: group.id, localID: "not ok!"),
                    textMessage(huge, group: group.id),
                    PushMessage(
                        localID: UUIDv7.make(), groupID: group.id, type: .image, content: "", sentAt: h.clock.now(), metadata: bigMetadata),
                    PushMessage(
                        localID: UUIDv7.make(), groupID: group.id, type: .text, content: "x", sentAt: h.clock.now(), deviceID: "bad device"),
                ]
                let result = try await members[0].push(messages)
                #expect(result.synced.count == 1)
                #expect(
                    result.rejected.map(\.reason) == [
                        .groupNotFound, .notAMember, .invalidLocalID, .contentTooLarge,
                        .metadataTooLarge, .invalidDeviceID,
                    ])
            },
            Scenario("sync: signatures are checked; a member may upload another member's signed message") { h in
                let aliceKey = Curve25519.Signing.PrivateKey()
                let (guide, group, _) = try await h.groupWithMembers(0)
                let alice = try await h.signIn(
                    "+905551000000", device: "alice-phone",
                    publicKey: aliceKey.publicKey.rawRepresentation.base64EncodedString())
                _ = try await alice.accept(try await guide.invite("+905551000000", to: group.id))
                let bob = try await h.signIn("+905551000001")
                _ = try await bob.accept(try await guide.invite("+905551000001", to: group.id))
                func signed(_ text: String, tamper: Bool = false) throws -> PushMessage {
                    var message = textMessage(text, group: group.id)
                    message.senderID = alice.userID
                    message.deviceID = "alice-phone"
                    message.signature = try DeviceSignature.sign(try MessageSigningFields(message, senderID: alice.userID), with: aliceKey)
                    if tamper { message.content += "!" }
                    return message
                }
                let relayed = try signed("relayed by bob")
                let byBob = try await bob.push([relayed])
                #expect(byBob.synced.count == 1)
                // Idempotent on the author: Alice uploading the same message later gets the same result.
                #expect(try await alice.push([relayed]).synced == byBob.synced)
                let forged = try await bob.push([try signed("altered", tamper: true)])
                #expect(forged.rejected.map(\.reason) == [.badSignature])
                var unsigned = textMessage("unsigned", group: group.id)
                unsigned.senderID = alice.userID
                #expect(try await bob.push([unsigned]).rejected.map(\.reason) == [.signatureRequired])
                var unknownDevice = try signed("other device")
                unknownDevice.deviceID = "alice-tablet"
                #expect(try await bob.push([unknownDevice]).rejected.map(\.reason) == [.unknownDevice])
                // Alice's own messages may be signed or not; a wrong signature is refused either way.
                #expect(try await alice.push([try signed("direct")]).synced.count == 1)
                #expect(try await alice.push([try signed("direct, altered", tamper: true)]).rejected.map(\.reason) == [.badSignature])
                let pulled = try await guide.pullAll(group.id)
                #expect(pulled.first?.senderID == alice.userID && pulled.first?.signature == relayed.signature)
            },
            Scenario("sync: concurrent pushes and replays lose nothing and double nothing") { h in
                let (guide, group, members) = try await h.groupWithMembers(5)
                let batches = members.map { member in (member, (0..<40).map { textMessage("\(member.userID) \($0)", group: group.id) }) }
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    for (member, messages) in batches {
                        for chunk in stride(from: 0, to: messages.count, by: 10) {
                            let slice = Array(messages[chunk..<chunk + 10])
                            tasks.addTask { _ = try await member.push(slice) }
                            tasks.addTask { _ = try await member.push(slice) }  // a client retrying
                        }
                    }
                    try await tasks.waitForAll()
                }
                let pulled = try await guide.pullAll(group.id)
                #expect(pulled.count == 200)
                #expect(pulled.map(\.seq) == Array(1...200))
                #expect(Set(pulled.map(\.localID)).count == 200)
                let group2: GroupInfo = try await guide.get("/v1/groups/\(group.id)").decode()
                #expect(group2.lastSeq == 200)
            },
        ]
    }
}
