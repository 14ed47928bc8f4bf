import AsyncHTTPClient
import Foundation
import RoquaChatCore

// roqua-chat-bench --url URL --outbox FILE [--clients 50] [--messages 400] [--batch 20] [--replay-every 5]
// Against a running `roqua-chat-server` whose guide +905550000001 has the guide role: signs in
// a guide and CLIENTS members, puts them in one group, then every member pushes MESSAGES messages
// in batches of BATCH at once (every REPLAY-EVERY-th batch is sent twice, as a retrying client
// would). Afterwards the guide pulls everything and counts: nothing may be lost or doubled.
// Prints one JSON line of figures; chat/scripts/bench-chat.sh runs it and reports medians.
//
// --mode memory --server-pid PID [--pushes 4]: PUSHES members each push one ~15 MiB body (100
// messages of 64 KiB, a quarter of it escaped) at once, while the server's RSS is sampled.
// --mode abuse --seconds S [--flood 8]: members push, newcomers sign in and a stranger asks for
// the group's attachment while FLOOD tasks request codes for random numbers from 20 addresses;
// every simulated client has its own address (X-Forwarded-For; run the server with
// --trusted-proxy 127.0.0.1). chat/scripts/bench-chat-abuse.sh runs both.

func option(_ name: String, _ fallback: String? = nil) throws -> String {
    let args = CommandLine.arguments
    if let index = args.firstIndex(of: "--" + name), index + 1 < args.count { return args[index + 1] }
    guard let fallback else { throw BenchError("--\(name) is required") }
    return fallback
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
}

func run() async throws {
    switch try option("mode", "push") {
    case "memory": try await memoryRun()
    case "abuse": try await abuseRun()
    case "push": try await pushRun()
    case let other: throw BenchError("unknown --mode \(other) (push, memory, abuse)")
    }
}

func pushRun() async throws {
    let url = try option("url"), outbox = try option("outbox")
    let clients = Int(try option("clients", "50")) ?? 50
    let messages = Int(try option("messages", "400")) ?? 400
    let batch = Int(try option("batch", "20")) ?? 20
    let replayEvery = Int(try option("replay-every", "5")) ?? 5
    let client = BenchClient.make(baseURL: url, connections: clients + 2)

    // Setup: a guide, a group, members who accepted their invites.
    let guide = try await client.signIn(try PhoneNumber("+905550000001"), outbox: outbox, device: "bench-guide")
    let group = try await client.send(
        .POST, "/v1/groups", body: CreateGroupBody(name: "Load test"), token: guide.accessToken,
        expect: 201, as: GroupInfo.self)
    let members = try await withThrowingTaskGroup(of: AuthTokens.self) { tasks in
        for index in 0..<clients {
            tasks.addTask {
                let phone = try PhoneNumber("+90555" + String(format: "%07d", 2_000_000 + index))
                let invite = try await client.send(
                    .POST, "/v1/groups/\(group.id)/invites", body: CreateInviteBody(phone: phone),
                    token: guide.accessToken, expect: 201, as: InviteInfo.self)
                let member = try await client.signIn(phone, outbox: outbox, device: "bench-\(index)")
                _ = try await client.send(
                    .POST, "/v1/invites/\(invite.code)/accept", body: String?.none,
                    token: member.accessToken, expect: 200, as: GroupInfo.self)
                return member
            }
        }
        return try await tasks.reduce(into: []) { $0.append($1) }
    }

    // Load: every member pushes its messages at once.
    let start = ContinuousClock.now
    let latencies = try await withThrowingTaskGroup(of: [Double].self) { tasks in
        for member in members {
            tasks.addTask {
                var latencies: [Double] = []
                for round in 0..<(messages / batch) {
                    let body = PushBody(
                        messages: (0..<batch).map { index in
                            PushMessage(
                                localID: UUIDv7.make(), groupID: group.id, type: .text,
                                content: "load test \(round)-\(index) Kadıköy'de buluşalım", sentAt: Date())
                        })
                    for attempt in 0..<(round % replayEvery == 0 ? 2 : 1) {
                        let sent = ContinuousClock.now
                        let result = try await client.send(
                            .POST, "/v1/sync/push", body: body, token: member.accessToken,
                            expect: 200, as: PushResult.self)
                        let elapsed = ContinuousClock.now - sent
                        latencies.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
                        guard result.synced.count == batch, result.rejected.isEmpty else {
                            throw BenchError("push \(round) attempt \(attempt): \(result.rejected.count) rejected")
                        }
                    }
                }
                return latencies
            }
        }
        return try await tasks.reduce(into: []) { $0 += $1 }.sorted()
    }
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18

    // Count: everything pushed is there exactly once, numbered 1...N without gaps.
    var since: Int64 = 0
    var localIDs: [String] = []
    var seqs: [Int64] = []
    while true {
        let page = try await client.send(
            .GET, "/v1/sync/pull?group=\(group.id)&since=\(since)&limit=500", body: String?.none,
            token: guide.accessToken, expect: 200, as: PullResult.self)
        localIDs += page.messages.map(\.localID)
        seqs += page.messages.map(\.seq)
        since = page.nextSince
        if !page.hasMore { break }
    }
    let expected = clients * (messages / batch) * batch
    let unique = Set(localIDs).count
    let fields: [String: Any] = [
        "bench": "chat-push", "clients": clients, "batch": batch, "messages": expected, "requests": latencies.count,
        "seconds": (seconds * 1000).rounded() / 1000, "msgs_per_s": (Double(expected) / seconds).rounded(),
        "p50_ms": (percentile(latencies, 0.50) * 10).rounded() / 10, "p99_ms": (percentile(latencies, 0.99) * 10).rounded() / 10,
        "stored": localIDs.count, "lost": max(0, expected - unique), "doubled": localIDs.count - unique,
        "seq_contiguous": seqs == (seqs.isEmpty ? [] : Array(1...Int64(seqs.count))),
    ]
    let data = try JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
    try await client.http.shutdown()
    if localIDs.count != expected || unique != expected { throw BenchError("lost or doubled messages: \(fields)") }
}

do {
    try await run()
} catch {
    FileHandle.standardError.write(Data("roqua-chat-bench: \(error)\n".utf8))
    exit(1)
}
