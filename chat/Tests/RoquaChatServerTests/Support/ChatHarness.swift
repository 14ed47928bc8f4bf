import Foundation
import NIOHTTP1
import RoquaChatCore

@testable import RoquaChatServer

/// A signed-in user (one device) talking to a test server.
struct Session: Sendable {
    let http: TestHTTP
    let tokens: AuthTokens
    let deviceID: String

    var userID: String { tokens.user.id }
    var token: String { tokens.accessToken }

    func get(_ path: String) async throws -> HTTPResult { try await http.send(.GET, path, token: token) }
    func delete(_ path: String) async throws -> HTTPResult { try await http.send(.DELETE, path, token: token) }
    func post(_ path: String, _ body: some Encodable) async throws -> HTTPResult {
        try await http.send(.POST, path, json: body, token: token)
    }
    func post(_ path: String, data: Data) async throws -> HTTPResult {
        try await http.send(.POST, path, data: data, token: token)
    }

    func createGroup(_ name: String = "Kapadokya") async throws -> GroupInfo {
        let result = try await post("/v1/groups", CreateGroupBody(name: name))
        guard result.status == 201 else { throw TestFailure("create group: HTTP \(result.status) \(result.text)") }
        return try result.decode()
    }

    func invite(_ phone: String, to groupID: String) async throws -> String {
        let result = try await post("/v1/groups/\(groupID)/invites", CreateInviteBody(phone: try PhoneNumber(phone)))
        guard result.status == 201 else { throw TestFailure("invite: HTTP \(result.status) \(result.text)") }
        return try result.decode(InviteInfo.self).code
    }

    func accept(_ code: String) async throws -> HTTPResult {
        try await http.send(.POST, "/v1/invites/\(code)/accept", token: token)
    }

    func push(_ messages: [PushMessage]) async throws -> PushResult {
        let result = try await post("/v1/sync/push", PushBody(messages: messages))
        guard result.status == 200 else { throw TestFailure("push: HTTP \(result.status) \(result.text)") }
        return try result.decode()
    }

    func pull(_ groupID: String, since: Int64 = 0, limit: Int? = nil) async throws -> HTTPResult {
        try await get("/v1/sync/pull?group=\(groupID)&since=\(since)" + (limit.map { "&limit=\($0)" } ?? ""))
    }

    /// Every message visible to this session, following `next_since` until `has_more` is false.
    func pullAll(_ groupID: String) async throws -> [ChatMessage] {
        var since: Int64 = 0
        var messages: [ChatMessage] = []
        while true {
            let page: PullResult = try await pull(groupID, since: since).decode()
            messages += page.messages
            since = page.nextSince
            if !page.hasMore { return messages }
        }
    }
}

/// A test server plus helpers to sign people in.
struct ChatHarness: Sendable {
    let server: TestServer
    var http: TestHTTP { TestHTTP(baseURL: server.baseURL) }
    var clock: ManualClock { server.clock }
    var store: any ChatStore { server.store }

    /// Requests a code, reads it from the capturing provider and verifies it.
    func signIn(_ phone: String, role: Role = .user, device: String = "device-1", publicKey: String? = nil) async throws -> Session {
        let number = try PhoneNumber(phone)
        if role != .user { _ = try await store.setRole(phone: number, role: role, now: clock.now()) }
        let request = try await http.send(.POST, "/v1/auth/otp/request", json: OTPRequestBody(phone: number))
        guard request.status == 202 else { throw TestFailure("otp request: HTTP \(request.status)") }
        guard let code = server.sms.lastCode(for: number) else { throw TestFailure("no code sent to \(phone)") }
        let requestID = try request.decode(OTPRequestAccepted.self).requestID
        let verify = try await http.send(
            .POST, "/v1/auth/otp/verify",
            json: OTPVerifyBody(
                phone: number, requestID: requestID, code: code, deviceID: device,
                devicePublicKey: publicKey))
        guard verify.status == 200 else { throw TestFailure("verify: HTTP \(verify.status) \(verify.text)") }
        return Session(http: http, tokens: try verify.decode(), deviceID: device)
    }

    /// A guide with a group and members who accepted their invites.
    func groupWithMembers(
        _ count: Int, guidePhone: String = "+905550000001"
    ) async throws -> (guide: Session, group: GroupInfo, members: [Session]) {
        let guide = try await signIn(guidePhone, role: .guide)
        let group = try await guide.createGroup()
        var members: [Session] = []
        for index in 0..<count {
            let phone = "+90555100\(String(format: "%04d", index))"
            let member = try await signIn(phone)
            let code = try await guide.invite(phone, to: group.id)
            let accepted = try await member.accept(code)
            guard accepted.status == 200 else { throw TestFailure("accept: HTTP \(accepted.status) \(accepted.text)") }
            members.append(member)
        }
        return (guide, group, members)
    }
}

/// A text message with a fresh UUIDv7 local id.
func textMessage(
    _ text: String, group: String, localID: String = UUIDv7.make(), sentAt: Date = Date(timeIntervalSince1970: 1_746_000_000)
) -> PushMessage {
    PushMessage(localID: localID, groupID: group, type: .text, content: text, sentAt: sentAt)
}
