import Crypto
import Foundation
import RoquaChatCore
import Testing

@testable import RoquaChatServer

/// Receipt marks merged by maximum.
enum ReceiptScenarios {
    static var all: [Scenario] {
        [
            Scenario("receipts: marks only grow, read implies delivered, capped at the newest message, shown in pulls") { h in
                let (guide, group, members) = try await h.groupWithMembers(1)
                _ = try await guide.push((0..<5).map { textMessage("\($0)", group: group.id) })
                let member = members[0]
                func mark(_ update: ReceiptUpdate) async throws -> ReceiptMark {
                    let result: ReceiptsResult = try await member.post("/v1/receipts", ReceiptsBody(receipts: [update])).decode()
                    return result.receipts[0]
                }
                var current = try await mark(ReceiptUpdate(groupID: group.id, deliveredUpTo: 2))
                #expect(current.deliveredUpTo == 2 && current.readUpTo == 0)
                current = try await mark(ReceiptUpdate(groupID: group.id, readUpTo: 4))
                #expect(current.deliveredUpTo == 4 && current.readUpTo == 4)
                let stamp = current.updatedAt
                h.clock.advance(by: 10)
                current = try await mark(ReceiptUpdate(groupID: group.id, deliveredUpTo: 1, readUpTo: 3))
                #expect(current.deliveredUpTo == 4 && current.readUpTo == 4 && current.updatedAt == stamp, "never lowered")
                current = try await mark(ReceiptUpdate(groupID: group.id, readUpTo: 999))
                #expect(current.readUpTo == 5, "capped at the group's last sequence number")
                let page: PullResult = try await guide.pull(group.id).decode()
                #expect(
                    page.receipts == [
                        ReceiptMark(
                            groupID: group.id, userID: member.userID, deliveredUpTo: 5, readUpTo: 5,
                            updatedAt: h.clock.now())
                    ])
                let negative = try await member.post(
                    "/v1/receipts", ReceiptsBody(receipts: [ReceiptUpdate(groupID: group.id, readUpTo: -1)]))
                #expect(negative.status == 400)
                let unknown = try await member.post("/v1/receipts", ReceiptsBody(receipts: [ReceiptUpdate(groupID: "nope", readUpTo: 1)]))
                #expect(unknown.status == 404)
            }
        ]
    }
}

/// Content-addressed blobs.
enum BlobScenarios {
    static func sha(_ data: Data) -> String { Hex.encode(SHA256.hash(data: data)) }

    static var all: [Scenario] {
        var small = ChatSettings()
        small.maxBlobBytes = 4096
        var quotas = ChatSettings()
        quotas.blobBytesPerUser = 5000
        quotas.blobBytesPerGroup = 3500
        @Sendable func attachment(_ digests: [String], group: String) -> PushMessage {
            var message = textMessage("sealed body", group: group)
            message.type = .image
            message.metadata = .object(["blobs": .array(digests.map(JSONValue.string))])
            return message
        }
        return [
            Scenario(
                "blobs: a user's uploads stop at their quota (413 quota_exceeded, nothing stored); a blob already stored costs nothing",
                settings: quotas
            ) { h in
                let user = try await h.signIn("+905551110003")
                let other = try await h.signIn("+905551110004")
                let first = Data(repeating: 1, count: 3000), second = Data(repeating: 2, count: 2001)
                #expect(try await h.http.send(.PUT, "/v1/blobs/\(sha(first))", data: first, token: user.token).status == 201)
                let over = try await h.http.send(.PUT, "/v1/blobs/\(sha(second))", data: second, token: user.token)
                #expect(over.status == 413 && over.errorCode == .quotaExceeded && over.text.contains("3000 of 5000"), "\(over.text)")
                #expect(try await user.get("/v1/blobs/\(sha(second))").status == 404, "nothing stored")
                #expect(try await h.http.send(.PUT, "/v1/blobs/\(sha(first))", data: first, token: user.token).status == 200)
                let fits = Data(repeating: 3, count: 2000)
                #expect(try await h.http.send(.PUT, "/v1/blobs/\(sha(fits))", data: fits, token: user.token).status == 201)
                // Another user's quota is their own.
                #expect(try await h.http.send(.PUT, "/v1/blobs/\(sha(second))", data: second, token: other.token).status == 201)
            },
            Scenario("blobs: a group's attachments stop at its quota: the message that would pass it is refused alone", settings: quotas) {
                h in
                let (_, group, members) = try await h.groupWithMembers(2)
                let (alice, bob) = (members[0], members[1])
                let a = Data(repeating: 4, count: 2000), b = Data(repeating: 5, count: 1000), c = Data(repeating: 6, count: 1000)
                for (blob, owner) in [(a, alice), (b, alice), (c, bob)] {
                    #expect(try await h.http.send(.PUT, "/v1/blobs/\(sha(blob))", data: blob, token: owner.token).status == 201)
                }
                let withA = attachment([sha(a)], group: group.id)
                let withAB = attachment([sha(a), sha(b)], group: group.id)  // a is counted once
                let withC = attachment([sha(c)], group: group.id)  // 4000 > 3500
                let text = textMessage("hello", group: group.id)
                let result = try await alice.push([withA, withAB, withC, text])
                #expect(result.synced.map(\.localID) == [withA.localID, withAB.localID, text.localID], "\(result)")
                #expect(result.rejected.map(\.reason) == [.quotaExceeded])
                // Later pushes see what is stored: naming c still does not fit; naming a again does.
                let later = try await bob.push([attachment([sha(c)], group: group.id), attachment([sha(a)], group: group.id)])
                #expect(later.rejected.map(\.reason) == [.quotaExceeded] && later.synced.count == 1)
            },
            Scenario("messages: a signed sent_at from year 1 or 10 minutes ahead is refused alone; the server keeps its receive time") {
                h in
                let (_, group, members) = try await h.groupWithMembers(1)
                let alice = members[0]
                let ancient = textMessage("backdated", group: group.id, sentAt: Date(timeIntervalSinceReferenceDate: -63_113_904_000))
                let ahead = textMessage("from the future", group: group.id, sentAt: h.clock.now().addingTimeInterval(600))
                let yesterday = textMessage("written offline", group: group.id, sentAt: h.clock.now().addingTimeInterval(-20 * 3600))
                let soon = textMessage("a fast clock", group: group.id, sentAt: h.clock.now().addingTimeInterval(240))
                let result = try await alice.push([ancient, ahead, yesterday, soon])
                #expect(result.rejected.map(\.localID) == [ancient.localID, ahead.localID], "\(result)")
                #expect(Set(result.rejected.map(\.reason)) == [.sentAtOutOfRange])
                let stored = try await alice.pullAll(group.id).filter { $0.type == .text }
                #expect(stored.map(\.content) == ["written offline", "a fast clock"])
                #expect(stored.allSatisfy { $0.receivedAt == h.clock.now() }, "\(stored.map(\.receivedAt))")
            },
            Scenario("blobs: stored under their verified SHA-256, once, and read back") { h in
                let user = try await h.signIn("+905551110001")
                let image = Data((0..<3000).map { UInt8($0 % 251) })
                let digest = sha(image)
                let put = try await h.http.send(.PUT, "/v1/blobs/\(digest)", data: image, token: user.token, contentType: "image/jpeg")
                #expect(put.status == 201)
                #expect(try put.decode(BlobStored.self) == BlobStored(sha256: digest, size: 3000, created: true))
                let again = try await h.http.send(.PUT, "/v1/blobs/\(digest.uppercased())", data: image, token: user.token)
                #expect(try again.status == 200 && again.decode(BlobStored.self).created == false)
                let get = try await user.get("/v1/blobs/\(digest)")
                #expect(get.status == 200 && get.body == image)
                let wrong = try await h.http.send(.PUT, "/v1/blobs/\(sha(Data("other".utf8)))", data: image, token: user.token)
                #expect(wrong.status == 400 && wrong.errorCode == .digestMismatch)
                #expect(try await user.get("/v1/blobs/\(sha(Data("missing".utf8)))").status == 404)
                #expect(try await user.get("/v1/blobs/not-a-digest").status == 400)
                #expect(try await h.http.send(.GET, "/v1/blobs/\(digest)").status == 401)
            },
            Scenario("blobs: readable only by members of a group a message naming it was sent to; a malformed reference is refused alone") {
                h in
                let (guide, group, members) = try await h.groupWithMembers(2)
                let (alice, bob) = (members[0], members[1])
                let stranger = try await h.signIn("+905559990001")
                let other = try await h.signIn("+905559990002", role: .guide)
                _ = try await other.createGroup("Other")
                let sealed = Data((0..<2000).map { UInt8($0 % 241) })
                let digest = sha(sealed)
                #expect(try await h.http.send(.PUT, "/v1/blobs/\(digest)", data: sealed, token: alice.token).status == 201)
                // Before any message names it: only its uploader reads it.
                #expect(try await alice.get("/v1/blobs/\(digest)").status == 200)
                #expect(try await bob.get("/v1/blobs/\(digest)").status == 404)
                var image = textMessage("sealed body", group: group.id)
                image.type = .image
                image.metadata = .object(["blobs": .array([.string(digest)])])
                var malformed = textMessage("sealed body", group: group.id)
                malformed.type = .file
                malformed.metadata = .object(["blobs": .array([.string("not-a-digest")])])
                let result = try await alice.push([image, malformed])
                #expect(result.synced.map(\.localID) == [image.localID] && result.rejected.map(\.reason) == [.invalidAttachment])
                #expect(try await bob.get("/v1/blobs/\(digest)").status == 200)
                #expect(try await guide.get("/v1/blobs/\(digest)").status == 200)
                // A stranger, a guide of another group: as if it did not exist.
                #expect(try await stranger.get("/v1/blobs/\(digest)").status == 404)
                #expect(try await other.get("/v1/blobs/\(digest)").status == 404)
                // Removed: no longer.
                #expect(try await guide.delete("/v1/groups/\(group.id)/members/\(bob.userID)").status == 204)
                #expect(try await bob.get("/v1/blobs/\(digest)").status == 404)
            },
            Scenario("blobs: larger than the limit is 413", settings: small) { h in
                let user = try await h.signIn("+905551110002")
                let big = Data(repeating: 7, count: 4097)
                let put = try await h.http.send(.PUT, "/v1/blobs/\(sha(big))", data: big, token: user.token)
                #expect(put.status == 413 && put.errorCode == .payloadTooLarge)
                let fits = Data(repeating: 7, count: 4096)
                #expect(try await h.http.send(.PUT, "/v1/blobs/\(sha(fits))", data: fits, token: user.token).status == 201)
            },
        ]
    }
}

/// Malformed requests: always a JSON error body with a code and a message that names the problem.
enum RequestScenarios {
    static var all: [Scenario] {
        var small = ChatSettings()
        small.maxPushBodyBytes = 2048
        return [
            Scenario("requests: malformed bodies are 400 with a JSON error naming the field") { h in
                let user = try await h.signIn("+905551110003")
                func push(_ text: String) async throws -> HTTPResult {
                    try await h.http.send(.POST, "/v1/sync/push", data: Data(text.utf8), token: user.token)
                }
                let cases: [(String, String)] = [
                    ("{not json", "not valid JSON"),
                    (
                        #"{"messages": [{"local_id": "a", "type": "text", "content": "x", "sent_at": "2025-05-01T10:00:00Z"}]}"#,
                        "messages[0].group_id is missing"
                    ),
                    (
                        #"{"messages": [{"local_id": "a", "group_id": "g", "type": "video", "content": "x", "sent_at": "2025-05-01T10:00:00Z"}]}"#,
                        "messages[0].type"
                    ),
                    (
                        #"{"messages": [{"local_id": "a", "group_id": "g", "type": "text", "content": "x", "sent_at": "yesterday"}]}"#,
                        "messages[0].sent_at"
                    ),
                    (#"{"messages": "many"}"#, "messages should be"),
                    ("", "empty"),
                ]
                for (body, fragment) in cases {
                    let result = try await push(body)
                    #expect(result.status == 400 && result.errorCode == .invalidRequest, "\(body)")
                    let message = try result.decode(APIErrorBody.self).error.message
                    #expect(message.contains(fragment), "\(message) should mention \(fragment)")
                }
                let groups = try await h.http.send(.POST, "/v1/groups", data: Data("[]".utf8), token: user.token)
                #expect(groups.status == 400 && groups.errorCode == .invalidRequest)
            },
            Scenario("requests: oversized bodies are 413, unknown routes 404, both as JSON", settings: small) { h in
                let user = try await h.signIn("+905551110004")
                let big = PushBody(messages: [textMessage(String(repeating: "x", count: 4000), group: "g")])
                let tooLarge = try await user.post("/v1/sync/push", big)
                #expect(tooLarge.status == 413 && tooLarge.errorCode == .payloadTooLarge)
                let missing = try await user.get("/v1/nothing-here")
                #expect(missing.status == 404 && missing.errorCode == .notFound)
                let wrongMethod = try await h.http.send(.GET, "/v1/auth/otp/request")
                #expect(wrongMethod.status == 404 && wrongMethod.errorCode == .notFound)
                #expect(try await h.http.send(.GET, "/healthz").status == 200)
            },
        ]
    }
}
