import AsyncHTTPClient
import Crypto
import Foundation
import RoquaChatCore

/// A guide, a group and `count` members who accepted their invites; member i signs in from
/// address `prefix` + i (nil: no address).
func tourGroup(_ client: BenchClient, outbox: String, count: Int, prefix: String?) async throws -> (AuthTokens, GroupInfo, [AuthTokens]) {
    let guide = try await client.signIn(
        try PhoneNumber("+905550000001"), outbox: outbox, device: "bench-guide",
        from: prefix.map { $0 + "250" })
    let group = try await client.send(
        .POST, "/v1/groups", body: CreateGroupBody(name: "Load test"), token: guide.accessToken,
        expect: 201, as: GroupInfo.self)
    var members: [AuthTokens] = []
    for index in 0..<count {
        let phone = try PhoneNumber("+90555" + String(format: "%07d", 2_000_000 + index))
        let invite = try await client.send(
            .POST, "/v1/groups/\(group.id)/invites", body: CreateInviteBody(phone: phone),
            token: guide.accessToken, expect: 201, as: InviteInfo.self)
        let member = try await client.signIn(phone, outbox: outbox, device: "bench-\(index)", from: prefix.map { $0 + "\(index)" })
        _ = try await client.send(
            .POST, "/v1/invites/\(invite.code)/accept", body: String?.none,
            token: member.accessToken, expect: 200, as: GroupInfo.self)
        members.append(member)
    }
    return (guide, group, members)
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// Resident memory of a process, in MB (`VmRSS`, or `VmHWM` for the peak the kernel saw).
func residentMB(pid: Int, field: String = "VmRSS") -> Double {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
        let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
        let kilobytes = Double(line.split(separator: " ").dropFirst().first { !$0.isEmpty }.map(String.init) ?? "")
    else { return 0 }
    return kilobytes / 1024
}

func printJSON(_ fields: [String: Any]) throws {
    print(String(decoding: try JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]), as: UTF8.self))
}

/// `--mode memory`: the server's RSS above idle while PUSHES bodies of ~15 MiB arrive at once.
func memoryRun() async throws {
    let url = try option("url"), outbox = try option("outbox")
    let pid = Int(try option("server-pid")) ?? 0
    let pushes = Int(try option("pushes", "4")) ?? 4
    let client = BenchClient.make(baseURL: url, connections: pushes + 2)
    let (_, group, members) = try await tourGroup(client, outbox: outbox, count: pushes, prefix: nil)
    // 64 KiB of content per message, every fourth character one that JSON escapes as \u0001.
    let content = String((0..<65_000).map { $0 % 4 == 0 ? Character("\u{01}") : Character("k") })
    let bodies = try members.map { _ in
        try ChatJSON.encoder().encode(
            PushBody(
                messages: (0..<100).map { _ in
                    PushMessage(localID: UUIDv7.make(), groupID: group.id, type: .text, content: content, sentAt: Date())
                }))
    }
    try await Task.sleep(for: .milliseconds(500))
    var idle: [Double] = []
    for _ in 0..<20 {
        idle.append(residentMB(pid: pid))
        try await Task.sleep(for: .milliseconds(10))
    }
    let idleMB = idle.sorted()[idle.count / 2]
    let sampling = Task { () -> Double in
        var peak = 0.0
        while !Task.isCancelled {
            peak = max(peak, residentMB(pid: pid))
            try? await Task.sleep(for: .milliseconds(5))
        }
        return peak
    }
    let start = ContinuousClock.now
    let synced = try await withThrowingTaskGroup(of: Int.self) { tasks in
        for (member, body) in zip(members, bodies) {
            tasks.addTask {
                let (status, data) = try await client.raw(.POST, "/v1/sync/push", body: body, token: member.accessToken)
                guard status == 200 else { throw BenchError("push: HTTP \(status) \(String(decoding: data.prefix(300), as: UTF8.self))") }
                return try ChatJSON.decoder().decode(PushResult.self, from: data).synced.count
            }
        }
        return try await tasks.reduce(0, +)
    }
    let seconds = milliseconds(ContinuousClock.now - start) / 1000
    sampling.cancel()
    let peakMB = max(await sampling.value, residentMB(pid: pid))
    try printJSON([
        "bench": "chat-memory", "pushes": pushes, "body_mb": (Double(bodies[0].count) / 1_048_576 * 10).rounded() / 10,
        "synced": synced, "seconds": (seconds * 100).rounded() / 100, "idle_mb": idleMB.rounded(), "peak_mb": peakMB.rounded(),
        "above_idle_mb": (peakMB - idleMB).rounded(), "hwm_mb": residentMB(pid: pid, field: "VmHWM").rounded(),
    ])
    try await client.http.shutdown()
    guard synced == pushes * 100 else { throw BenchError("\(synced) of \(pushes * 100) messages synced") }
}

/// Counts of answers by status, shared by the tasks of a run.
actor Tally {
    var counts: [String: Int] = [:]
    var latencies: [Double] = []
    func add(_ key: String, _ amount: Int = 1) { counts[key, default: 0] += amount }
    func latency(_ milliseconds: Double) { latencies.append(milliseconds) }
}

/// `--mode abuse`: legitimate traffic (pushes, sign-ins) beside an OTP flood and a stranger
/// asking for the group's attachment, for SECONDS.
func abuseRun() async throws {
    let url = try option("url"), outbox = try option("outbox")
    let seconds = Double(try option("seconds", "20")) ?? 20
    let flood = Int(try option("flood", "8")) ?? 8
    let clients = Int(try option("clients", "20")) ?? 20
    let client = BenchClient.make(baseURL: url, connections: clients + flood + 8)
    let (_, group, members) = try await tourGroup(client, outbox: outbox, count: clients, prefix: "10.1.0.")
    // An attachment in the group, and a stranger who is in no group.
    let blob = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    let digest = SHA256.hash(data: blob).map { String(format: "%02x", $0) }.joined()
    let (put, _) = try await client.raw(.PUT, "/v1/blobs/\(digest)", body: blob, token: members[0].accessToken, from: "10.1.0.0")
    guard put == 201 || put == 200 else { throw BenchError("blob upload: HTTP \(put)") }
    var image = PushMessage(localID: UUIDv7.make(), groupID: group.id, type: .image, content: "sealed", sentAt: Date())
    image.metadata = .object(["blobs": .array([.string(digest)])])
    _ = try await client.send(
        .POST, "/v1/sync/push", body: PushBody(messages: [image]), token: members[0].accessToken,
        expect: 200, as: PushResult.self, from: "10.1.0.0")
    let stranger = try await client.signIn(try PhoneNumber("+905557000000"), outbox: outbox, device: "stranger", from: "10.2.0.1")

    let tally = Tally()
    let deadline = ContinuousClock.now + .seconds(seconds)
    let start = ContinuousClock.now
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        for (index, member) in members.enumerated() {
            tasks.addTask {
                while ContinuousClock.now < deadline {
                    let body = PushBody(
                        messages: (0..<20).map { _ in
                            PushMessage(localID: UUIDv7.make(), groupID: group.id, type: .text, content: "yükleme testi", sentAt: Date())
                        })
                    let result = try await client.send(
                        .POST, "/v1/sync/push", body: body, token: member.accessToken, expect: 200,
                        as: PushResult.self, from: "10.1.0.\(index)")
                    await tally.add("pushed", result.synced.count)
                }
            }
        }
        // Newcomers signing in, one every 100 ms, each from an address of its own.
        tasks.addTask {
            var index = 0
            while ContinuousClock.now < deadline {
                let phone = try PhoneNumber("+90555" + String(format: "%07d", 3_000_000 + index))
                let begun = ContinuousClock.now
                do {
                    _ = try await client.signIn(phone, outbox: outbox, device: "newcomer", from: "10.3.\(index / 250).\(index % 250)")
                    await tally.latency(milliseconds(ContinuousClock.now - begun))
                    await tally.add("signins")
                } catch {
                    await tally.add("signin_failures")
                }
                index += 1
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        // The stranger asks for the attachment again and again.
        tasks.addTask {
            while ContinuousClock.now < deadline {
                let (status, _) = try await client.raw(
                    .GET, "/v1/blobs/\(digest)", body: nil, token: stranger.accessToken, from: "10.2.0.1")
                await tally.add("stranger_\(status)")
            }
        }
        // The flood: codes for random numbers, and random guesses, from 20 addresses.
        for task in 0..<flood {
            tasks.addTask {
                var generator = SystemRandomNumberGenerator()
                var count = 0
                while ContinuousClock.now < deadline {
                    let address = "10.66.0.\((task * 7 + count) % 20)"
                    let phone = "+90559" + String(format: "%07d", Int.random(in: 0..<10_000_000, using: &generator))
                    let body = try ChatJSON.encoder().encode(OTPRequestBody(phone: try PhoneNumber(phone)))
                    let (status, _) = try await client.raw(.POST, "/v1/auth/otp/request", body: body, token: nil, from: address)
                    await tally.add("flood_\(status)")
                    let guess = try ChatJSON.encoder().encode(
                        OTPVerifyBody(
                            phone: try PhoneNumber(phone), requestID: "sr_guess",
                            code: String(format: "%06d", count % 1_000_000), deviceID: "x"))
                    let (checked, _) = try await client.raw(.POST, "/v1/auth/otp/verify", body: guess, token: nil, from: address)
                    await tally.add("guess_\(checked)")
                    count += 1
                }
            }
        }
        try await tasks.waitForAll()
    }
    let elapsed = milliseconds(ContinuousClock.now - start) / 1000
    let counts = await tally.counts
    let latencies = await tally.latencies.sorted()
    let floodSent =
        (try? String(contentsOfFile: outbox, encoding: .utf8))?.split(separator: "\n").filter { $0.contains("\"+90559") }.count ?? 0
    func sum(_ prefix: String) -> Int { counts.filter { $0.key.hasPrefix(prefix) }.map(\.value).reduce(0, +) }
    var fields: [String: Any] = [
        "bench": "chat-abuse", "seconds": (elapsed * 10).rounded() / 10, "flood_tasks": flood, "clients": clients,
        "msgs_per_s": (Double(counts["pushed"] ?? 0) / elapsed).rounded(),
        "signins": counts["signins"] ?? 0, "signin_failures": counts["signin_failures"] ?? 0,
        "signin_p50_ms": (percentile(latencies, 0.5) * 10).rounded() / 10,
        "signin_p99_ms": (percentile(latencies, 0.99) * 10).rounded() / 10,
        "flood_requests": sum("flood_"), "flood_sms_sent": floodSent, "guesses": sum("guess_"),
        "stranger_downloads": sum("stranger_"), "stranger_200": counts["stranger_200"] ?? 0,
    ]
    for (key, value) in counts where key.hasPrefix("flood_") || key.hasPrefix("guess_") || key.hasPrefix("stranger_") {
        fields[key] = value
    }
    try printJSON(fields)
    try await client.http.shutdown()
}
