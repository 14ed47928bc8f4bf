import Foundation
import RoquaChatCore

/// What one sync did.
public struct SyncReport: Sendable, Equatable {
    /// Own messages the server now holds.
    public var pushed = 0
    /// Own messages the server refused (now `failed`).
    public var rejected = 0
    /// Messages new on this device.
    public var pulled = 0
    /// Messages still waiting for the server.
    public var pending = 0
    /// Attachment blobs uploaded, and fetched.
    public var blobsUp = 0, blobsDown = 0
    /// Attachments whose blob could not be fetched for good (a malformed digest, refused by the
    /// server, or not the blob its digest names): skipped, the rest of the sync goes on.
    public var blobsSkipped = 0
    /// Pulled messages refused: not signed by a device the verified group log gives that
    /// sender, a log entry that does not apply, or a join request that is not self-signed.
    public var dropped = 0
    /// Why, one line per dropped message (its `local_id` first).
    public var droppedReasons: [String] = []
    /// Group-log entries and join requests moved up or down (not counted as messages).
    public var logEntries = 0
    /// Groups held here whose messages the server no longer shows this user (removed).
    public var closedGroups: [String] = []
    /// Groups held here that were made before group logs: not pulled (nothing in them can be
    /// read end to end); they need re-creating.
    public var groupsBeforeLog: [GroupBeforeLog] = []
}

/// Moves messages between the local store and the server: pushes the outbox in batches, then
/// pulls every group from its cursor. One sync runs at a time; callers arriving meanwhile share
/// it. `start` keeps it running at start, every `interval`, and whenever `trigger` is called
/// (after a send, when connectivity returns); failures back off per `RetryPolicy`.
public actor SyncEngine {
    let store: ClientStore
    let api: ChatAPI
    let codec: MessageCodec
    let keeper: GroupKeeper
    let blobs: BlobFolder
    let policy: RetryPolicy
    let sleep: @Sendable (TimeInterval) async throws -> Void
    private var running: Task<SyncReport, any Error>?
    private var loop: Task<Void, Never>?
    private var wake: AsyncStream<Void>.Continuation?
    /// The outcome of the last background sync (nil before the first).
    public private(set) var lastResult: Result<SyncReport, ChatClientError>?

    init(
        store: ClientStore, api: ChatAPI, codec: MessageCodec, keeper: GroupKeeper, blobs: BlobFolder, policy: RetryPolicy,
        sleep: @escaping @Sendable (TimeInterval) async throws -> Void
    ) {
        self.store = store
        self.api = api
        self.codec = codec
        self.keeper = keeper
        self.blobs = blobs
        self.policy = policy
        self.sleep = sleep
    }

    /// One sync: check the server's identity against the pinned key, collect and hand out group
    /// keys, push everything pending, pull every group.
    /// - Throws: `ChatClientError` (`noInternet`, `authenticationError`, `serverError`, `store`).
    public func syncOnce() async throws -> SyncReport {
        if let running { return try await running.value }
        let task = Task { try await self.perform() }
        running = task
        defer { running = nil }
        return try await task.value
    }

    /// Syncs, retrying transient failures (`noInternet`, 429, 5xx) with back-off up to the
    /// policy's attempts. With `giveUpAfter`, it retries for that many seconds, no longer: the last
    /// attempt starts when they are up (or earlier, when the server's `Retry-After` asks for a wait
    /// beyond them), so it returns within that time plus one attempt. `retrying` hears of each
    /// failure that will be retried, with the wait before the next attempt.
    /// - Throws: the last `ChatClientError` when every attempt failed or one was not transient.
    public func sync(
        giveUpAfter limit: TimeInterval? = nil,
        retrying: (@Sendable (_ error: ChatClientError, _ wait: TimeInterval) -> Void)? = nil
    ) async throws -> SyncReport {
        let start = ContinuousClock.now
        var attempt = 0
        while true {
            do {
                return try await syncOnce()
            } catch let error as ChatClientError where error.isTransient && attempt + 1 < policy.maxAttempts {
                var retryAfter: TimeInterval?
                if case .serverError(_, _, _, let seconds) = error { retryAfter = seconds }
                var wait = policy.delay(afterAttempt: attempt, retryAfter: retryAfter)
                if let limit {
                    let elapsed = ContinuousClock.now - start
                    let left = limit - (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
                    // The last attempt comes when the time is up, unless the server asked for a longer wait.
                    guard left > 0.01, (retryAfter ?? 0) <= left else { throw error }
                    wait = min(wait, left)
                }
                retrying?(error, wait)
                try await sleep(wait)
                attempt += 1
            }
        }
    }

    /// Runs syncs in the background: now, every `interval` seconds, and on each `trigger()`.
    public func start(interval: TimeInterval = 300) {
        guard loop == nil else { return }
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        wake = continuation
        continuation.yield()
        // The period runs on the real clock (the injected sleep is the back-off's, which tests
        // make instant); cancellation, the only error of Task.sleep, ends the ticker.
        let ticker = Task {
            while (try? await Task.sleep(for: .seconds(interval))) != nil {
                continuation.yield()
            }
        }
        loop = Task {
            for await _ in stream {
                await self.runBackground()
            }
            ticker.cancel()
        }
    }

    /// Asks the background loop for a sync soon (coalesced with one already asked for).
    public func trigger() { wake?.yield() }

    /// Stops the background loop.
    public func stop() {
        wake?.finish()
        wake = nil
        loop?.cancel()
        loop = nil
    }

    private func runBackground() async {
        do {
            lastResult = .success(try await sync())
        } catch let error as ChatClientError {
            lastResult = .failure(error)
        } catch {
            lastResult = .failure(.store(path: store.path, reason: "\(error)"))
        }
    }

    private func perform() async throws -> SyncReport {
        var report = SyncReport()
        // First: nothing goes to a server that cannot prove the pinned key.
        try await api.checkServerIdentity()
        let groups: GroupList = try await api.call(.GET, "/v1/groups")
        try store.saveGroups(groups.groups)
        guard let selfID = await api.session.state?.user?.id else { throw ChatClientError.notSignedIn(home: api.session.path) }
        // A message goes up only after its file, so whoever pulls it can fetch the file.
        report.blobsUp = try await uploadBlobs()
        try await pushAll(&report)
        report.groupsBeforeLog = try store.groupsBeforeLog()
        let old = Set(report.groupsBeforeLog.map(\.id))
        for groupID in try store.groupIDs() where !old.contains(groupID) {
            do {
                report.pulled += try await pull(groupID: groupID, selfID: selfID, report: &report)
                if let listed = try await fetchMembers(groupID: groupID) {
                    try keeper.removeUnlisted(Set(listed.map(\.userID)), groupID: groupID, selfID: selfID)
                }
            } catch ChatClientError.serverError(403, _, _, _), ChatClientError.serverError(404, _, _, _) {
                // Removed from the group (or it is gone): what is here stays; the other groups go on.
                report.closedGroups.append(groupID)
                continue
            }
            // A log that changed membership gets a new epoch from this device when it is a guide.
            try keeper.append(groupID: groupID, selfID: selfID, [])
        }
        // What the pull made this device say (adds for join requests, new epochs) goes up now.
        if try store.pendingCount() > 0 { try await pushAll(&report) }
        try await fetchBlobs(&report)
        report.pending = try store.pendingCount()
        try store.checkpoint()
        return report
    }

    /// The members the server lists in the group's mailbox, whose display names are kept for
    /// showing who sent what; nil when the details are refused (the names here stay).
    private func fetchMembers(groupID: String) async throws -> [GroupMemberInfo]? {
        do {
            let details: GroupInfo = try await api.call(.GET, "/v1/groups/\(groupID)")
            try store.saveMemberNames(groupID: groupID, details.members ?? [])
            return details.members
        } catch ChatClientError.serverError(403, _, _, _), ChatClientError.serverError(404, _, _, _) {
            return nil
        }
    }

    private func pushAll(_ report: inout SyncReport) async throws {
        do {
            while true {
                let batch = try store.pendingBatch(limit: ChatLimits.maxMessagesPerPush)
                if batch.isEmpty { break }
                let result: PushResult = try await api.call(.POST, "/v1/sync/push", body: PushBody(messages: batch))
                try store.applyPush(result, pushed: batch)
                let control = Set(batch.filter { $0.type == .control }.map(\.localID))
                let entries = result.synced.filter { control.contains($0.localID) }.count
                report.pushed += result.synced.count - entries
                report.logEntries += entries
                report.rejected += result.rejected.count
            }
        } catch let error as ChatClientError {
            try store.notePushFailure(error.description)
            throw error
        }
    }

    private func pull(groupID: String, selfID: String, report: inout SyncReport) async throws -> Int {
        var since = try store.cursor(groupID: groupID)
        var added = 0
        while true {
            let page: PullResult = try await api.call(
                .GET, "/v1/sync/pull?group=\(groupID)&since=\(since)&limit=\(ChatLimits.maxPullLimit)")
            let records = page.messages.map { message in
                var record = codec.received(
                    PushMessage(
                        localID: message.localID, groupID: message.groupID, type: message.type,
                        content: message.content, sentAt: message.sentAt, metadata: message.metadata,
                        senderID: message.senderID, deviceID: message.deviceID,
                        keyEpoch: message.keyEpoch, signature: message.signature),
                    senderID: message.senderID)
                record.status = .sent
                record.serverID = message.serverID
                record.seq = message.seq
                record.syncedAt = message.receivedAt
                return record
            }
            let (count, intake) = try store.applyPull(
                groupID: groupID, records: records, receipts: page.receipts,
                nextSince: page.nextSince, selfID: selfID, identity: codec.identity)
            added += count
            report.logEntries += intake.logEntries
            report.dropped += intake.dropped.count
            report.droppedReasons += intake.dropped
            for (group, joins) in intake.joins { try keeper.admit(joins, groupID: group, selfID: selfID) }
            since = page.nextSince
            if !page.hasMore { return added }
        }
    }
}

extension SyncEngine {
    /// Uploads the blobs of pending image and file messages held here (the server keeps one
    /// copy per digest, so a relayed message's file uploaded twice costs nothing).
    func uploadBlobs() async throws -> Int {
        var uploaded = 0
        var seen: Set<String> = []
        for held in try store.attachments() where held.pending && seen.insert(held.body.sha256).inserted {
            guard let blob = try blobs.read(held.body.sha256) else { continue }  // a relay without the file: its author uploads it
            _ = try await api.send(.PUT, "/v1/blobs/\(held.body.sha256)", body: blob, authorized: true)
            uploaded += 1
        }
        return uploaded
    }

    /// Fetches the blobs of readable image and file messages that are not here yet; one the
    /// server does not have (its author has not synced) is tried again at the next sync. One
    /// member's bad attachment never fails the sync: a digest that is not a SHA-256, or a blob
    /// the server refuses, is skipped and counted; only an unreachable server or a refused
    /// sign-in end it.
    func fetchBlobs(_ report: inout SyncReport) async throws {
        for sha256 in Set(try store.attachments().map(\.body.sha256)) where !blobs.holds(sha256) {
            guard Hex.isSHA256(sha256) else {
                report.blobsSkipped += 1
                continue
            }
            let blob: Data
            do { blob = try await api.send(.GET, "/v1/blobs/\(sha256)", body: nil, authorized: true) } catch ChatClientError.serverError(
                404, _, _, _)
            {
                continue
            } catch let error as ChatClientError {
                guard case .serverError = error, !error.isTransient else { throw error }
                report.blobsSkipped += 1
                continue
            }
            if try blobs.keep(blob, as: sha256) { report.blobsDown += 1 } else { report.blobsSkipped += 1 }
        }
    }
}
